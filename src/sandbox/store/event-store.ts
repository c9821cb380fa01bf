import type { Alert, Decision, EventSummary, ListMatch } from '../../contract/index.js';
import type { SqliteDatabase } from './database.js';

type Statement = { get(...params: unknown[]): unknown };
import type { VelocityField } from '../scoring/rules.js';

/*
 * Every read and write of events goes through here. Each call is one synchronous statement
 * or transaction, so within one process a request's check-then-insert cannot interleave with
 * another's; across processes the primary key still keeps one row per (merchant, id).
 */

export interface StoredEvent {
  payloadHash: string;
  state: string;
  comments: string | null;
  summary: Omit<EventSummary, 'state' | 'comments'>;
  decision: Decision;
  assessment: { alerts: Alert[]; listMatches: ListMatch[] };
}

export interface NewEvent extends StoredEvent {
  merchantId: string;
  id: string;
  eventTs: number;
  userEmail: string | null;
  userIp: string | null;
}

export class DuplicateEventError extends Error {}

interface Row {
  payload_hash: string;
  state: string;
  comments: string | null;
  summary_json: string;
  decision_json: string;
  assessment_json: string;
}

export class EventStore {
  private readonly insertStmt;
  private readonly findStmt;
  private readonly velocityStmts: Record<VelocityField, Statement>;
  private readonly updateStateStmt;
  private readonly recordChangeStmt;

  constructor(private readonly db: SqliteDatabase) {
    this.insertStmt = db.prepare(
      `INSERT INTO events (merchant_id, id, payload_hash, event_ts, user_email, user_ip, state, comments,
                           summary_json, decision_json, assessment_json, received_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.findStmt = db.prepare(
      `SELECT payload_hash, state, comments, summary_json, decision_json, assessment_json
         FROM events WHERE merchant_id = ? AND id = ?`,
    );
    const velocity = (column: string): Statement =>
      db.prepare<unknown[]>(`SELECT count(*) AS n FROM events WHERE merchant_id = ? AND ${column} = ? AND event_ts BETWEEN ? AND ?`);
    this.velocityStmts = { userEmail: velocity('user_email'), userIp: velocity('user_ip') };
    this.updateStateStmt = db.prepare('UPDATE events SET state = ?, comments = ?, updated_at = ? WHERE merchant_id = ? AND id = ?');
    this.recordChangeStmt = db.prepare(
      'INSERT INTO state_changes (merchant_id, event_id, from_state, to_state, comments, changed_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
  }

  find(merchantId: string, id: string): StoredEvent | undefined {
    const row = this.findStmt.get(merchantId, id) as Row | undefined;
    if (!row) return undefined;
    return {
      payloadHash: row.payload_hash,
      state: row.state,
      comments: row.comments,
      summary: JSON.parse(row.summary_json) as StoredEvent['summary'],
      decision: JSON.parse(row.decision_json) as Decision,
      assessment: JSON.parse(row.assessment_json) as StoredEvent['assessment'],
    };
  }

  /** Stores a new event; throws DuplicateEventError when (merchant, id) exists already. */
  insert(e: NewEvent): void {
    const now = new Date().toISOString();
    try {
      this.insertStmt.run(
        e.merchantId, e.id, e.payloadHash, e.eventTs, e.userEmail, e.userIp, e.state, e.comments,
        JSON.stringify(e.summary), JSON.stringify(e.decision), JSON.stringify(e.assessment), now, now,
      );
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') throw new DuplicateEventError(e.id);
      throw err;
    }
  }

  /** Events of this merchant with this field value whose time is within `seconds` before `eventTs`. */
  countRecent(merchantId: string, field: VelocityField, value: string, eventTs: number, seconds: number): number {
    const row = this.velocityStmts[field].get(merchantId, value, eventTs - seconds, eventTs) as { n: number };
    return row.n;
  }

  /** Sets state and comments and records the change, in one transaction. */
  changeState(merchantId: string, id: string, from: string, to: string, comments: string | null, newComments: string | null): void {
    const now = new Date().toISOString();
    this.db.transaction(() => {
      this.updateStateStmt.run(to, comments, now, merchantId, id);
      this.recordChangeStmt.run(merchantId, id, from, to, newComments, now);
    })();
  }
}
