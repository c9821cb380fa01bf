import type { Alert, Decision, EventSummary, ListMatch } from '../../contract/index.js';
import type { SqliteDatabase } from './database.js';
import type { VelocityField, VelocityUse } from '../scoring/rules.js';

/*
 * Every read and write of events goes through here. Each call is synchronous, so within one
 * process a request's check-then-write cannot interleave with another's; across processes the
 * primary key still keeps one row per (merchant, id).
 *
 * Writes are group-committed: the first write in a turn of the event loop opens a transaction
 * and a setImmediate commits it, so every write that turn shares one commit. A request is
 * answered only after `committed()` resolves, so nothing is acknowledged before it is stored.
 * Reads on this connection see the open transaction, so replays and velocity stay exact.
 */

type Statement = { get(...params: unknown[]): unknown; run(...params: unknown[]): unknown };

const closed = (): never => {
  throw new Error('the sandbox database is closed');
};
/** What stands for every statement once the store let go of them (EventStore.release). */
const CLOSED: Statement = { get: closed, run: closed };

export type StoredSummary = Omit<EventSummary, 'state' | 'comments'>;

export interface SummaryRow {
  state: string;
  comments: string | null;
  summary: StoredSummary;
}

export interface AssessmentRow {
  decision: Decision;
  assessment: { alerts: Alert[]; listMatches: ListMatch[] };
}

export interface NewEvent extends SummaryRow, AssessmentRow {
  merchantId: string;
  id: string;
  payloadHash: string;
  eventTs: number;
  userEmail: string | null;
  userIp: string | null;
}

export class DuplicateEventError extends Error {}

const VELOCITY_COLUMNS: Record<VelocityField, string> = { userEmail: 'user_email', userIp: 'user_ip' };

/**
 * This merchant's events with this value within [from, to], counted up to a cap. The LIMIT
 * stops the index scan once a rule has the count it asks about; a NULL value matches nothing.
 */
const velocityCount = (column: string) =>
  `(SELECT count(*) FROM (SELECT 1 FROM events WHERE merchant_id = ? AND ${column} = ? AND event_ts BETWEEN ? AND ? LIMIT ?))`;

export class EventStore {
  private insertStmt: Statement;
  private replayStmt: Statement;
  private summaryStmt: Statement;
  private assessmentStmt: Statement;
  private velocityStmts: Record<VelocityField, Statement>;
  private readonly db: SqliteDatabase;
  private updateStateStmt: Statement;
  private recordChangeStmt: Statement;
  private beginStmt: Statement;
  private commitStmt: Statement;
  private rollbackStmt: Statement;
  private batchOpen = false;
  private waiting: { resolve: () => void; reject: (error: Error) => void }[] = [];
  /** What release() calls: each lets go of statements (those of the fields, those of each velocityCounter). */
  private readonly releasers: (() => void)[] = [];

  constructor(db: SqliteDatabase) {
    this.db = db;
    const prepare = (sql: string): Statement => db.prepare<unknown[]>(sql);
    this.insertStmt = prepare(
      `INSERT INTO events (merchant_id, id, payload_hash, event_ts, user_email, user_ip, state, comments,
                           summary_json, decision_json, assessment_json, received_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.beginStmt = prepare('BEGIN IMMEDIATE');
    this.commitStmt = prepare('COMMIT');
    this.rollbackStmt = prepare('ROLLBACK');
    this.replayStmt = prepare('SELECT payload_hash, decision_json FROM events WHERE merchant_id = ? AND id = ?');
    this.summaryStmt = prepare('SELECT state, comments, summary_json FROM events WHERE merchant_id = ? AND id = ?');
    this.assessmentStmt = prepare('SELECT decision_json, assessment_json FROM events WHERE merchant_id = ? AND id = ?');
    // raw: the count as a one-element array, without a row object per call (libsql ignores pluck).
    const velocity = (column: string) =>
      (db.prepare<unknown[]>(`SELECT ${velocityCount(column)}`) as { raw(): Statement }).raw();
    this.velocityStmts = { userEmail: velocity('user_email'), userIp: velocity('user_ip') };
    this.updateStateStmt = prepare(
      'UPDATE events SET state = ?, comments = ?, updated_at = ? WHERE merchant_id = ? AND id = ?',
    );
    this.recordChangeStmt = prepare(
      'INSERT INTO state_changes (merchant_id, event_id, from_state, to_state, comments, changed_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.releasers.push(() => {
      this.insertStmt = this.replayStmt = this.summaryStmt = this.assessmentStmt = CLOSED;
      this.updateStateStmt = this.recordChangeStmt = this.beginStmt = this.commitStmt = this.rollbackStmt = CLOSED;
      this.velocityStmts = { userEmail: CLOSED, userIp: CLOSED };
    });
  }

  /**
   * Lets go of every prepared statement, before the database is closed. libsql closes the
   * connection, and with it the files, only once the statements prepared on it are collected
   * (tursodatabase/libsql-js#228): held here, by a sandbox a test or a process still holds, they
   * would keep the database open, and on Windows an open file cannot be deleted or moved. Any
   * use of the store afterwards throws. Figures: docs/decisions/closed-database-lets-go-of-its-files.md.
   */
  release(): void {
    for (const release of this.releasers.splice(0)) release();
  }

  /** The stored payload hash and decision of an event, for recognising a replay. */
  findForReplay(merchantId: string, id: string): { payloadHash: string; decision: Decision } | undefined {
    const row = this.replayStmt.get(merchantId, id) as { payload_hash: string; decision_json: string } | undefined;
    return row && { payloadHash: row.payload_hash, decision: JSON.parse(row.decision_json) as Decision };
  }

  findSummary(merchantId: string, id: string): SummaryRow | undefined {
    const row = this.summaryStmt.get(merchantId, id) as
      { state: string; comments: string | null; summary_json: string } | undefined;
    return row && { state: row.state, comments: row.comments, summary: JSON.parse(row.summary_json) as StoredSummary };
  }

  findAssessment(merchantId: string, id: string): AssessmentRow | undefined {
    const row = this.assessmentStmt.get(merchantId, id) as
      { decision_json: string; assessment_json: string } | undefined;
    return (
      row && {
        decision: JSON.parse(row.decision_json) as Decision,
        assessment: JSON.parse(row.assessment_json) as AssessmentRow['assessment'],
      }
    );
  }

  /** Stores a new event; throws DuplicateEventError when (merchant, id) exists already. */
  insert(e: NewEvent): void {
    this.openBatch();
    const now = new Date().toISOString();
    try {
      this.insertStmt.run(
        e.merchantId,
        e.id,
        e.payloadHash,
        e.eventTs,
        e.userEmail,
        e.userIp,
        e.state,
        e.comments,
        JSON.stringify(e.summary),
        JSON.stringify(e.decision),
        JSON.stringify(e.assessment),
        now,
        now,
      );
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') throw new DuplicateEventError(e.id);
      throw err;
    }
  }

  /** Events of this merchant with this field value within `seconds` before `eventTs`, counted up to `atMost`. */
  countRecent(
    merchantId: string,
    field: VelocityField,
    value: string,
    eventTs: number,
    seconds: number,
    atMost: number,
  ): number {
    return (this.velocityStmts[field].get(merchantId, value, eventTs - seconds, eventTs, atMost) as [number])[0];
  }

  /**
   * Counts for several velocity questions in one statement: each call into SQLite costs more
   * than a count itself (bench:sandbox), and the rules ask all their questions of most events.
   * The counts come back in the order of `uses`; a field without a value counts 0.
   */
  velocityCounter(
    uses: readonly VelocityUse[],
  ): (merchantId: string, values: Readonly<Record<string, unknown>>, eventTs: number) => number[] {
    if (uses.length === 0) return () => [];
    let statement = (
      this.db.prepare<unknown[]>(`SELECT ${uses.map((u) => velocityCount(VELOCITY_COLUMNS[u.field])).join(', ')}`) as {
        raw(): Statement;
      }
    ).raw();
    this.releasers.push(() => (statement = CLOSED));
    return (merchantId, values, eventTs) => {
      const params: unknown[] = [];
      for (const { field, seconds, atMost } of uses) {
        const value = values[field];
        params.push(merchantId, typeof value === 'string' ? value : null, eventTs - seconds, eventTs, atMost);
      }
      return statement.get(...params) as number[];
    };
  }

  /** Sets state and comments and records the change; both land in the same commit. */
  changeState(
    merchantId: string,
    id: string,
    from: string,
    to: string,
    comments: string | null,
    newComments: string | null,
  ): void {
    this.openBatch();
    const now = new Date().toISOString();
    this.updateStateStmt.run(to, comments, now, merchantId, id);
    this.recordChangeStmt.run(merchantId, id, from, to, newComments, now);
  }

  /** Resolves once every write made so far is committed. */
  committed(): Promise<void> {
    if (!this.batchOpen) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  /** Commits at once (on close). */
  flush(): void {
    if (this.batchOpen) this.commit();
  }

  private openBatch(): void {
    if (this.batchOpen) return;
    this.beginStmt.run();
    this.batchOpen = true;
    setImmediate(() => this.commit());
  }

  private commit(): void {
    if (!this.batchOpen) return;
    const waiting = this.waiting;
    this.waiting = [];
    this.batchOpen = false;
    try {
      this.commitStmt.run();
    } catch (error) {
      // Nothing of this batch was acknowledged yet: its requests fail, and nothing half-stored stays.
      try {
        this.rollbackStmt.run();
      } catch {
        // The failed COMMIT may have rolled back already.
      }
      for (const w of waiting) w.reject(error as Error);
      return;
    }
    for (const w of waiting) w.resolve();
  }
}
