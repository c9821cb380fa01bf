import { hash, randomBytes } from 'node:crypto';
import { stringify as stableStringify } from 'safe-stable-stringify';
import {
  EVENT_ID_PATTERN,
  INITIAL_STATE,
  TRANSITIONS,
  isKnownState,
  unsafeTextCodes,
  type Decision,
  type EventPayload,
  type EventSummary,
  type RiskAssessment,
  type StateChange,
} from '../contract/index.js';
import type { SandboxConfig } from './config/sandbox-config.js';
import { normaliseEvent, valueErrors } from './scoring/normalise-event.js';
import { compileRules, velocityKey, velocityUses, type CompiledRule } from './scoring/rules.js';
import { screen } from './scoring/screen.js';
import { DuplicateEventError, type EventStore, type SummaryRow } from './store/event-store.js';
import { invalid, notFound, ServiceError } from './http/service-error.js';

/*
 * What the four endpoints do, apart from HTTP: screen and store a new event (or recognise a
 * replay), read an event, its risk assessment, and move it through the state machine.
 * Everything here is synchronous, so one request's read-check-write runs without interleaving.
 */

const ID_RE = new RegExp(EVENT_ID_PATTERN);

export interface SubmitResult {
  created: boolean;
  decision: Decision;
}

function newEventId(): string {
  return `evt_${Date.now().toString(36)}${randomBytes(6).toString('hex')}`;
}

function payloadHash(payload: EventPayload): string {
  return hash('sha256', stableStringify(payload) ?? '', 'base64url');
}

export class EventService {
  private readonly rules: CompiledRule[];
  /** Where each velocity question's count is in what velocityCounts returns. */
  private readonly velocityIndex: Map<string, number>;
  private readonly velocityCounts: (
    merchantId: string,
    values: Readonly<Record<string, unknown>>,
    eventTs: number,
  ) => number[];

  constructor(
    private readonly store: EventStore,
    private readonly config: SandboxConfig,
    private readonly now: () => number = Date.now,
  ) {
    this.rules = compileRules(config.rules);
    const uses = velocityUses(this.rules);
    this.velocityIndex = new Map(uses.map((u, i) => [velocityKey(u.field, u.seconds, u.atMost), i]));
    this.velocityCounts = store.velocityCounter(uses);
  }

  /** 422 for an id no event can have, so a typo is told apart from a missing event. */
  checkId(id: string): void {
    if (!ID_RE.test(id)) throw invalid(['eventId:INVALID_FORMAT']);
  }

  /**
   * Screens and stores a new event, or recognises a replay. `schemaCodes` are the field codes
   * the schema found; with the value checks they make one 422 that names every bad field.
   */
  submit(merchantId: string, body: unknown, schemaCodes: readonly string[] = []): SubmitResult {
    const flagged = new Set(schemaCodes.map((c) => c.slice(0, c.lastIndexOf(':'))));
    const valueCodes = [...valueErrors(body, this.config), ...unsafeTextCodes(body)];
    const codes = [...schemaCodes, ...valueCodes.filter((c) => !flagged.has(c.slice(0, c.lastIndexOf(':'))))];
    if (codes.length > 0) throw invalid(codes);
    const payload = body as EventPayload;
    const hash = payloadHash(payload);
    const id = payload.id ?? newEventId();
    const { summary, facts, eventTs, comments } = normaliseEvent(payload, id, this.now(), this.config);

    // The first velocity question asked fetches the answers to all of them, in one statement.
    let counts: number[] | undefined;
    const result = screen(facts, this.rules, this.config, (field, value, seconds, atMost) => {
      const index = this.velocityIndex.get(velocityKey(field, seconds, atMost));
      if (index === undefined) return this.store.countRecent(merchantId, field, value, eventTs, seconds, atMost);
      counts ??= this.velocityCounts(merchantId, facts, eventTs);
      return counts[index]!;
    });
    const state = INITIAL_STATE[result.actionType];
    const decision: Decision = {
      id,
      actionType: result.actionType,
      totalRiskScore: result.totalRiskScore,
      state,
      ruleMatches: result.alerts.map(({ ruleId, name, score }) => ({ ruleId, name, score })),
      listMatches: result.listMatches,
    };
    summary.totalScore = result.totalRiskScore;
    try {
      this.store.insert({
        merchantId,
        id,
        payloadHash: hash,
        eventTs,
        userEmail: summary.userEmail,
        userIp: summary.userIp,
        state,
        comments,
        summary: Object.assign(summary, { allowlistMatch: result.allowlistMatch, denylistMatch: result.denylistMatch }),
        decision,
        assessment: { alerts: result.alerts, listMatches: result.listMatches },
      });
    } catch (e) {
      // The id exists: the same payload is a replay, another one a conflict. (Inserting first
      // and reading only on a clash saves a read on every new event.)
      if (e instanceof DuplicateEventError) return this.replay(merchantId, id, hash);
      throw e;
    }
    return { created: true, decision };
  }

  /** Resolves when everything stored so far is committed: answer only after it. */
  committed(): Promise<void> {
    return this.store.committed();
  }

  private replay(merchantId: string, id: string, hash: string): SubmitResult {
    const existing = this.store.findForReplay(merchantId, id);
    if (!existing) throw new Error(`event ${id} clashed on insert but cannot be read`);
    if (existing.payloadHash !== hash) throw new ServiceError(409, ['EVENT_ID_CONFLICT']);
    return { created: false, decision: existing.decision };
  }

  summary(merchantId: string, id: string): EventSummary {
    this.checkId(id);
    const row = this.store.findSummary(merchantId, id);
    if (!row) throw notFound();
    return toSummary(row);
  }

  riskAssessment(merchantId: string, id: string): RiskAssessment {
    this.checkId(id);
    const row = this.store.findAssessment(merchantId, id);
    if (!row) throw notFound();
    return {
      eventId: id,
      actionType: row.decision.actionType,
      totalRiskScore: row.decision.totalRiskScore,
      alerts: row.assessment.alerts,
      listMatches: row.assessment.listMatches,
    };
  }

  changeState(merchantId: string, id: string, change: StateChange): EventSummary {
    this.checkId(id);
    const event = this.store.findSummary(merchantId, id);
    if (!event) throw notFound();
    const from = event.state;
    const to = change.state ?? from;
    if (to !== from) {
      if (!isKnownState(to)) throw invalid(['INVALID_STATE']);
      const allowed: readonly string[] = isKnownState(from) ? TRANSITIONS[from] : [];
      if (!allowed.includes(to)) throw invalid(['INVALID_STATE_TRANSITION']);
    }
    const comments = change.comments ?? event.comments;
    this.store.changeState(merchantId, id, from, to, comments, change.comments ?? null);
    return toSummary({ ...event, state: to, comments });
  }
}

function toSummary(row: SummaryRow): EventSummary {
  return Object.assign(row.summary, { state: row.state, comments: row.comments });
}
