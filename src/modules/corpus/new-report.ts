// The rules of a new report, written once for both ingest paths: what an article's body makes
// (its entities, report date, checked values and timestamps), the row it is stored as, the
// source it counts as, the event an incident_id joins, and what placing it in an event reads
// (event-state.ts reads it as the event's state does). The single path (report-ingest.ts)
// and the bulk path (article-batch.ts) are peers that take these and never each other, so a
// line of a bulk request is refused, placed and counted exactly as the single call would.
import type { Queryable } from '../../platform/db/database.js';
import { databaseFailure, INVALID_VALUE_DETAIL } from '../../platform/db/failures.js';
import { fieldProblem, ProblemError } from '../../platform/problems.js';
import { DAY_MS } from '../../platform/clock.js';
import { readHappenedOn, windowAnchor } from './clustering.js';
import { type TextShingles, textShingles } from './copy-fingerprint.js';
import type { EventRow, InPlaceChange } from './events.store.js';
import type { IngestArticleBody } from './events.schemas.js';
import { type EventTypeRow, type EventTypeWithRoles, type LockedSurvivor, referenceStore, type RoleRow } from './reference.store.js';
import type { NewReportRows, ReportRow, ReportValue } from './reports.store.js';
import { refuse, resolveRoleValues } from './role-values.js';

/** A checked report of any source, ready to be added to the corpus. */
export interface NewReport {
  source: { kind: 'ARTICLE'; outletId: string } | { kind: 'STRUCTURED'; accountId: string; grantId: string | null };
  type: EventTypeRow;
  /** The type's current roles. */
  roles: RoleRow[];
  /** Values in role order, entities as given. */
  values: ReportValue[];
  /** Entity id as given → live canonical id, for every entity the report names. */
  survivors: ReadonlyMap<string, string>;
  /** Live canonical id → name, for the same entities. */
  names: ReadonlyMap<string, string>;
  mentioned: string[];
  receivedAt: Date;
  publishedAt: Date | null;
  happenedAt: string | null;
  headline: string | null;
  url: string | null;
  /** Join this event (or its survivor) instead of clustering. */
  incidentId: string | null;
  /** An article's text as copy detection reads it (null: no text, or fewer than 50 words; structured reports). */
  text: TextShingles | null;
}

/** What became of one article of a batch: stored anew (201), stored already (200), or refused with its problem. */
export type LineOutcome =
  | { line: number; status: 201 | 200; id: string; incident_id: string; copy_of_report_id: string | null }
  | { line: number; status: 400; problem: ProblemError };

/**
 * Entity id → live canonical id, for the ids that exist and whose survivor is not deleted, and
 * those survivors' names (the survivors share-locked: referenceStore.resolveEntitiesLocked).
 */
export async function liveSurvivors(tx: Queryable, ids: readonly string[]) {
  return survivorsOf(await referenceStore.resolveEntitiesLocked(tx, [...new Set(ids)]));
}

/** The live entities of locked survivor rows, as a report holds them. */
export function survivorsOf(rows: readonly LockedSurvivor[]): Pick<NewReport, 'survivors' | 'names'> {
  const live = rows.filter((r) => !r.deleted);
  return { survivors: new Map(live.map((r) => [r.id, r.canonical_id])), names: new Map(live.map((r) => [r.canonical_id, r.name])) };
}

/** The refusal of an article whose outlet does not exist (both paths look the outlet up first). */
export const noSuchOutlet = () => fieldProblem('/outlet_id', 'names no news outlet');

/** Rule 3 of event search: the publish time, unless missing or more than a day after receipt. */
export function reportDate(publishedAt: Date | null, receivedAt: Date): Date {
  if (publishedAt === null || publishedAt.getTime() > receivedAt.getTime() + DAY_MS) return receivedAt;
  return publishedAt;
}

/** Every entity an article names, in roles and mentions. */
export function articleEntityIds(input: IngestArticleBody): string[] {
  return [...input.roles.flatMap((role) => (role.entity_id ? [role.entity_id] : [])), ...(input.mentioned_entity_ids ?? [])];
}

/**
 * An article's text as copy detection reads it (null: none sent), read before ingest's
 * transaction: no lock is held while texts are read, and a bulk load reads the next batch's
 * while the database writes this one.
 */
export const readText = (input: IngestArticleBody): TextShingles | null => (input.text === undefined ? null : textShingles(input.text));

/** Articles with their texts read (readText), as ingest takes them. */
export interface ArticleLine {
  line: number;
  body: IngestArticleBody;
  /** readText(body); read by ingest when left out. */
  text?: TextShingles | null;
}

/**
 * An article's report once its outlet is known and it is no stored article: its type, roles,
 * entities and timestamps checked in the order the single call answers them (`survivors` and
 * `names`: live entities → survivor → name, at least those it names).
 */
export async function articleReport(
  input: IngestArticleBody,
  known: EventTypeWithRoles | null | undefined,
  { survivors, names }: Pick<NewReport, 'survivors' | 'names'>,
  now: Date,
  text: TextShingles | null,
): Promise<NewReport> {
  if (!known) throw refuse('TEMPLATE_NOT_FOUND', `event_type_id ${input.event_type_id} names no event type.`);
  const { type, roles } = known;
  const mentioned = [...new Set(input.mentioned_entity_ids ?? [])];
  const values = await resolveRoleValues(input.roles, roles, async (ids) => new Set(ids.filter((id) => survivors.has(id))));
  const missing = mentioned.findIndex((id) => !survivors.has(id));
  if (missing >= 0) throw fieldProblem(`/mentioned_entity_ids/${(input.mentioned_entity_ids ?? []).indexOf(mentioned[missing]!)}`, 'names no entity');

  const receivedAt = input.received_at ? new Date(input.received_at) : now;
  const publishedAt = input.published_at ? new Date(input.published_at) : null;
  if (Number.isNaN(receivedAt.getTime())) throw fieldProblem('/received_at', 'is not a readable timestamp');
  if (publishedAt && Number.isNaN(publishedAt.getTime())) throw fieldProblem('/published_at', 'is not a readable timestamp');
  return {
    source: { kind: 'ARTICLE', outletId: input.outlet_id },
    type,
    roles,
    values: values.map((v) => ({ roleId: v.role.id, roleNumber: v.role.number, entityId: v.entityId, date: v.date, amount: v.amount, text: v.text })),
    survivors,
    names,
    mentioned,
    receivedAt,
    publishedAt,
    happenedAt: input.happened_at ?? null,
    headline: input.headline ?? null,
    url: input.url ?? null,
    incidentId: input.incident_id ?? null,
    text,
  };
}

/** The source a report counts as (decisions.md, Beats: a structured report counts as its filing account). */
function reportSource({ source }: NewReport): { kind: NewReport['source']['kind']; id: string } {
  return { kind: source.kind, id: source.kind === 'ARTICLE' ? source.outletId : source.accountId };
}

/**
 * The report's entity roles, each with the live survivor of its entity (a deleted entity counts
 * for nothing): what clustering compares (its named roles) and whom the report brings in.
 */
function namedRoles(report: NewReport): { roleId: string; entityId: string }[] {
  return report.values.flatMap((v) => {
    const entityId = v.entityId === null ? undefined : report.survivors.get(v.entityId);
    return entityId === undefined ? [] : [{ roleId: v.roleId, entityId }];
  });
}

/** The live canonical ids of the entities the report mentions, in id order. */
const mentionedSurvivors = (report: NewReport): string[] =>
  [...new Set(report.mentioned.flatMap((id) => (report.survivors.has(id) ? [report.survivors.get(id)!] : [])))].sort();

/** What placing a report in an event reads of it, worked out once for either path. */
export interface Placement {
  /** Its report date (rule 3 of event search). */
  date: Date;
  /** Its entity roles with live survivors (namedRoles). */
  namedRoles: { roleId: string; entityId: string }[];
  /** The distinct survivors among them: the report's participants. */
  participants: string[];
  source: ReturnType<typeof reportSource>;
  /** The survivors it mentions, in id order. */
  mentioned: string[];
  /** Its rows as stored with id `id` in event `eventId`, in copy group `copyGroup` (null: its own). */
  rows(at: { id: string; eventId: string; copyGroup: number | null }): NewReportRows;
  /**
   * The event's state from this report alone, in the statement that writes it, where that is
   * exact (its type unchanged since the state was computed, the report sorting last, and what
   * InPlaceChange says the statement checks); else undefined, and it is recomputed from all
   * its reports.
   */
  inPlace(event: EventRow, now: Date): InPlaceChange | undefined;
  happenedOn: string | null;
  /** Its window anchor (ms): clustering looks for events around it. */
  anchor: number;
}

export function placementOf(report: NewReport): Placement {
  const date = reportDate(report.publishedAt, report.receivedAt);
  const roles = namedRoles(report);
  const source = reportSource(report);
  const mentioned = mentionedSurvivors(report);
  const rows = (at: { id: string; eventId: string; copyGroup: number | null }): NewReportRows => ({
    values: report.values,
    mentions: report.mentioned,
    row: reportRow(report, { ...at, date }),
  });
  const happenedOn = readHappenedOn(report.happenedAt);
  const inPlace = (event: EventRow, now: Date): InPlaceChange | undefined =>
    event.type_version === report.type.version && date.getTime() > event.last_report_date.getTime()
      ? {
          values: report.values.flatMap((v): { roleId: string; entityId: string | null }[] => {
            if (v.entityId === null) return [{ roleId: v.roleId, entityId: null }];
            const survivor = report.survivors.get(v.entityId);
            return survivor === undefined ? [] : [{ roleId: v.roleId, entityId: survivor }]; // a deleted entity counts for nothing
          }),
          happenedOn,
          newMentions: mentioned.filter((id) => !event.involved_entity_ids.includes(id)),
          involved: event.involved_entity_ids,
          firstReportDate: event.first_report_date,
          at: now,
        }
      : undefined;
  return {
    date,
    namedRoles: roles,
    participants: [...new Set(roles.map((role) => role.entityId))],
    source,
    mentioned,
    rows,
    inPlace,
    happenedOn,
    anchor: windowAnchor(happenedOn, date),
  };
}

/** The live survivors a report names, as participant or mention (copy detection compares them). */
export const namedEntities = ({ participants, mentioned }: Placement): string[] => [...new Set([...participants, ...mentioned])];

/** The stored row of a checked report, in event `eventId`. */
function reportRow(report: NewReport, at: { id: string; eventId: string; date: Date; copyGroup: number | null }): ReportRow {
  const { source } = report;
  return {
    id: at.id,
    event_id: at.eventId,
    source_kind: source.kind,
    outlet_id: source.kind === 'ARTICLE' ? source.outletId : null,
    account_id: source.kind === 'STRUCTURED' ? source.accountId : null,
    grant_id: source.kind === 'STRUCTURED' ? source.grantId : null,
    event_type_id: report.type.id,
    published_at: report.publishedAt,
    received_at: report.receivedAt,
    report_date: at.date,
    happened_at: report.happenedAt,
    headline: report.headline,
    url: report.url,
    fingerprint: report.text === null ? null : Buffer.from(report.text.fingerprint).toString('hex'),
    copy_group: at.copyGroup,
  };
}

/**
 * The event a report names through incident_id joins: the survivor of `event` (`survivor`,
 * the same row when it was not merged), refused when either is gone or of another type.
 */
export function incidentTarget<T extends Pick<EventRow, 'id' | 'event_type_id' | 'deleted_at'>>(
  event: T | null | undefined,
  survivor: T | null | undefined,
  eventTypeId: string,
): T {
  if (!event || event.deleted_at) throw fieldProblem('/incident_id', 'names no event');
  if (!survivor || survivor.deleted_at) throw fieldProblem('/incident_id', 'names an event that was merged into one since deleted');
  if (survivor.event_type_id !== eventTypeId) throw fieldProblem('/incident_id', 'names an event of another event type');
  return survivor;
}

/**
 * Whether a copy joins the event of the report it copies (decisions.md: whatever clustering
 * would choose): an event can take it while live and of its type; else it is clustered.
 */
export function copyJoins(event: Pick<EventRow, 'event_type_id' | 'deleted_at' | 'merged_into_event_id'>, eventTypeId: string): boolean {
  return !event.deleted_at && !event.merged_into_event_id && event.event_type_id === eventTypeId;
}

/**
 * A database refusal of one article's values as the single call answers it (400, the error
 * handler's words); null for failures that are not the line's (the database unavailable, say).
 */
export function lineProblem(error: unknown): ProblemError | null {
  return databaseFailure(error) === 'invalid-value' ? new ProblemError('validation-failed', INVALID_VALUE_DETAIL) : null;
}

/** When the event reached each of its distinct sources, ascending (events.source_seqs). */
export function sourceSeqs(reports: readonly { received_seq: number; source_id: string }[]): number[] {
  const first = new Map<string, number>();
  for (const r of reports) first.set(r.source_id, Math.min(first.get(r.source_id) ?? Infinity, r.received_seq));
  return [...first.values()].sort((a, b) => a - b);
}
