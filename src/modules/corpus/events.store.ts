// SQL for events: their rows, the state written for them (one by one, in place for one new
// report, or many at once for a bulk ingest), their participant rows, merges and deletions. A
// report joins its event in the statement that updates the event (reports.store.ts writes its
// rows). Returns plain rows.
import type { CopyValue } from '../../platform/db/copy-text.js';
import type { Queryable } from '../../platform/db/database.js';
import { queryOne } from '../../platform/db/database.js';
import { SqlParams } from '../../platform/db/sql-params.js';
import { namesOthers, windowAnchor, windowAnchorSql } from './clustering.js';
import { eventsInvolving, indexedEntityIds } from './event-entities.js';
import type { EventState } from './event-state.js';
import { type NewReportRows, reportParams, reportRolesOf, reportRows } from './reports.store.js';

export interface EventRow {
  id: string;
  event_type_id: string;
  happened_at: string | null;
  first_report_date: Date;
  last_report_date: Date;
  sentence: string | null;
  involved_entity_ids: string[];
  merged_into_event_id: string | null;
  deleted_at: Date | null;
  /** The version of its type the state was last computed with (null: not known). */
  type_version: number | null;
}

/** An event's state as a bulk ingest writes it (event-state.ts computes it). */
export interface EventStateRow extends EventState {
  id: string;
  eventTypeId: string;
  isNew: boolean;
  sourceSeqs: number[];
  /** The type's version the state was computed with (events.type_version). */
  typeVersion: number;
}

const EVENT_COLUMNS =
  'id, event_type_id, happened_at, first_report_date, last_report_date, sentence, involved_entity_ids, merged_into_event_id, deleted_at, type_version';

/**
 * What an event's state update in place for one report needs (joinReport). The caller has
 * checked that the event's type is unchanged since its state was computed and that the report
 * sorts after every other report of the event; the statement checks, reading the event's
 * reports, that every value of the report is one an earlier report carries already (the same
 * role; for an entity, the same survivor; for other values, any value that counts), so no
 * role's value, participant or participant order changes; and that every entity the event
 * involves is still a live survivor (no entity merge or deletion waiting for its refresh). Then
 * the report changes only the last report date, a happened_at the event lacked, the mentions
 * it lacked (appended, in id order), when it comes from a new source the event's sources (the
 * report's seq appended), and the participants' window anchor when happened_at moves it.
 */
export interface InPlaceChange {
  /** The report's values that count: role, and the live survivor for an entity. */
  values: readonly { roleId: string; entityId: string | null }[];
  happenedOn: string | null;
  /** Survivors the report mentions that the event does not involve yet, in id order. */
  newMentions: readonly string[];
  /** The event's row as locked: the entities it involves and its first report date. */
  involved: readonly string[];
  firstReportDate: Date;
  at: Date;
}

/**
 * The sub-statements of joinReport that update the event (`$2`) in place, after `report`:
 * `exact` (go: whether it did) and the writes it gates.
 */
function inPlaceSql(params: SqlParams, report: NewReportRows, change: InPlaceChange): string {
  const { row } = report;
  const happenedOn = params.add(change.happenedOn, '::date');
  const first = params.add(change.firstReportDate, '::timestamptz');
  const newMentions = params.add(change.newMentions, '::uuid[]');
  const sourceColumn = row.outlet_id ? 'outlet_id' : 'account_id';
  // Each look-up is driven from the event's own rows (the LATERAL, the id list): planned on
  // the statistics of a nearly empty table, joins here scanned whole tables.
  return `checked AS (
         SELECT NOT EXISTS (
                  SELECT 1 FROM unnest(${params.add(change.values.map((v) => v.roleId))}::uuid[], ${params.add(change.values.map((v) => v.entityId))}::uuid[])
                                AS mine (role_id, entity_id)
                   WHERE NOT EXISTS (
                     SELECT 1 FROM reports r
                      CROSS JOIN LATERAL (SELECT rr.entity_id FROM ${reportRolesOf('r')} WHERE rr.role_id = mine.role_id) AS rr
                       LEFT JOIN entities ent ON ent.id = rr.entity_id
                       LEFT JOIN entities c ON c.id = ent.canonical_id
                      WHERE r.event_id = $2
                        AND CASE WHEN mine.entity_id IS NULL THEN rr.entity_id IS NULL OR c.deleted_at IS NULL ELSE c.id = mine.entity_id END))
            AND NOT EXISTS (
                  SELECT 1 FROM entities c WHERE c.id = ANY(${params.add(change.involved)}::uuid[]) AND (c.canonical_id <> c.id OR c.deleted_at IS NOT NULL)) AS ok
       ), exact AS (
         SELECT (SELECT ok FROM checked) AND EXISTS (SELECT 1 FROM report) AS go
       ), summary AS (
         -- The statement's snapshot does not hold the new report: the event's other reports say
         -- whether its source is new.
         UPDATE events e SET last_report_date = $10, happened_at = COALESCE(e.happened_at, $11),
                happened_on = CASE WHEN e.happened_at IS NULL THEN ${happenedOn} ELSE e.happened_on END,
                involved_entity_ids = e.involved_entity_ids || ${newMentions}, updated_at = ${params.add(change.at, '::timestamptz')},
                source_seqs = CASE WHEN EXISTS (SELECT 1 FROM reports r WHERE r.${sourceColumn} = $${sourceColumn === 'outlet_id' ? 4 : 5} AND r.event_id = $2)
                                   THEN e.source_seqs
                                   ELSE (SELECT array_agg(s ORDER BY s) FROM unnest(array_append(e.source_seqs, (SELECT received_seq FROM report))) AS s)
                              END
          WHERE e.id = $2 AND (SELECT go FROM exact)
       ), anchored AS (
         -- The event's window anchor once updated, read from its row as it was before (as summary reads it).
         SELECT ${windowAnchorSql(`CASE WHEN e.happened_at IS NULL THEN ${happenedOn} ELSE e.happened_on END`, first)} AS anchor FROM events e WHERE e.id = $2
       ), moved AS (
         -- A happened_at the event lacked moves its window anchor. (Mentions are no
         -- participants: the event row lists them, and no participant changes here.)
         UPDATE event_participants SET anchor = (SELECT anchor FROM anchored)
          WHERE event_id = $2 AND ${happenedOn} IS NOT NULL AND (SELECT go FROM exact) AND anchor IS DISTINCT FROM (SELECT anchor FROM anchored)
       )`;
}

/** The columns of a new event's row as writeStates copies them. */
const EVENT_STATE_COLUMNS = [
  'id',
  'event_type_id',
  'happened_at',
  'happened_on',
  'first_report_date',
  'last_report_date',
  'sentence',
  'involved_entity_ids',
  'source_seqs',
  'type_version',
  'created_at',
  'updated_at',
];

/**
 * SQL that makes the participant rows of these events (an array expression) those of
 * \`wanted\` (a query of event_participants' columns, one row per event and participant): rows
 * no longer wanted are deleted, rows whose anchor moved updated, missing ones added, and rows
 * as wanted left alone (each write of a row is one in both indexes, and a dead row to vacuum).
 * Disjoint rows, so the sub-statements of one statement never touch the same one. No key stops
 * a second row for an event and entity (migration 035): the caller holds the events' rows
 * locked, as every writer of their participant rows does, so no other writer adds one meanwhile.
 */
const participantRowsWritten = (eventIds: string) => `gone AS (
         DELETE FROM event_participants p WHERE p.event_id = ANY(${eventIds})
            AND NOT EXISTS (SELECT 1 FROM wanted w WHERE w.event_id = p.event_id AND w.entity_id = p.entity_id)
       ), changed AS (
         UPDATE event_participants p SET anchor = w.anchor
           FROM wanted w
          WHERE p.event_id = w.event_id AND p.entity_id = w.entity_id AND p.anchor <> w.anchor
       )
       INSERT INTO event_participants (event_id, entity_id, anchor)
       SELECT w.event_id, w.entity_id, w.anchor FROM wanted w
        WHERE NOT EXISTS (SELECT 1 FROM event_participants p WHERE p.event_id = w.event_id AND p.entity_id = w.entity_id)`;

/** The columns of event_participants, in the order participantRows makes its rows. */
const PARTICIPANT_COLUMNS = ['event_id', 'entity_id', 'anchor'];

/** The participant rows of events in this state, in PARTICIPANT_COLUMNS order. */
function participantRows(states: readonly EventStateRow[]): [string, string, Date][] {
  return states.flatMap((state) => {
    const anchor = new Date(windowAnchor(state.happenedOn, state.first));
    return [...state.participants].map((entityId): [string, string, Date] => [state.id, entityId, anchor]);
  });
}

/** An event's state as its row holds it, in EVENT_STATE_COLUMNS order up to type_version (the times follow). */
function stateRow(r: EventStateRow): CopyValue[] {
  return [r.id, r.eventTypeId, r.happenedAt, r.happenedOn, r.first, r.last, r.sentence, pgArray(r.involved), pgArray(r.sourceSeqs), r.typeVersion];
}
const STATE_ROW_WIDTH = EVENT_STATE_COLUMNS.length - 2; // created_at and updated_at are the writer's

/** Rows as the column arrays an `unnest($1, $2, …)` takes. */
function columnsOf(rows: readonly (readonly unknown[])[], width: number): unknown[][] {
  return Array.from({ length: width }, (_, i) => rows.map((row) => row[i]));
}

/** A list as an array literal of PostgreSQL's (elements that need no quoting: ids, integers). */
const pgArray = (items: readonly (string | number)[]) => `{${items.join(',')}}`;

export const eventsStore = {
  getEvent(db: Queryable, id: string, forUpdate = false) {
    return queryOne<EventRow>(db, `SELECT ${EVENT_COLUMNS} FROM events WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`, [id], { prepared: true });
  },

  /**
   * Locks these events for update in id order. Every writer of several events' rows (bulk
   * ingest, the refresh job, entity merges and deletions) takes them so, first: two such
   * writers wait for each other instead of deadlocking over event_participants rows.
   */
  async lockEvents(db: Queryable, ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await db.query('SELECT id FROM events WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE', [ids]);
  },

  /** The event row chosen by `query` (a statement answering one id, or none), locked for update. */
  lockedEventOf(db: Queryable, query: { sql: string; params: readonly unknown[] }) {
    return queryOne<EventRow>(db, `SELECT ${EVENT_COLUMNS} FROM events WHERE id = (${query.sql}) FOR UPDATE`, query.params, { prepared: true });
  },

  /**
   * A report with its role values (in their order) and mentions, into an existing event whose
   * row the caller holds locked, in one statement. With `unlessNamingOthers` (the report's
   * NAMED_ENTITY roles and the survivor in each), only if the event still takes it
   * (clustering.ts), as this statement reads the event. With `inPlace`, the event's state is
   * updated for the report and its index rows written, in the same statement, when that gives
   * what recomputing them from all its reports would (InPlaceChange says when). Answers whether
   * the report was written and whether its event was updated in place (if not, the caller
   * recomputes it).
   */
  async joinReport(
    db: Queryable,
    report: NewReportRows,
    join: { unlessNamingOthers?: readonly { roleId: string; entityId: string }[]; inPlace?: InPlaceChange },
  ): Promise<{ written: boolean; inPlace: boolean }> {
    const params = new SqlParams(reportParams(report));
    const takes = join.unlessNamingOthers
      ? ` AND NOT ${namesOthers(params.add(join.unlessNamingOthers.map((role) => role.roleId)), params.add(join.unlessNamingOthers.map((role) => role.entityId)))}`
      : '';
    // Of the report's type ($7): a report's type is its event's, which the report's row does not keep.
    const writes = reportRows(`FROM events e WHERE e.id = $2 AND e.event_type_id = $7::uuid${takes}`);
    const [row] = await db.query<{ written: boolean; in_place: boolean }>(
      join.inPlace
        ? `WITH ${writes}, ${inPlaceSql(params, report, join.inPlace)} SELECT EXISTS (SELECT 1 FROM report) AS written, (SELECT go FROM exact) AS in_place`
        : `WITH ${writes} SELECT EXISTS (SELECT 1 FROM report) AS written, false AS in_place`,
      params.values,
      { prepared: true },
    );
    return { written: row!.written, inPlace: row!.in_place };
  },

  /**
   * A new event (`report.row.event_id`) with its first report, the state of that report and
   * the event's participant rows, in one statement (the foreign keys are checked at its end).
   */
  async insertEventWithReport(db: Queryable, report: NewReportRows, event: { at: Date; state: EventState; typeVersion: number }) {
    const { state } = event;
    const params = new SqlParams([
      ...reportParams(report),
      state.happenedAt,
      state.happenedOn,
      state.first,
      state.last,
      state.sentence,
      state.involved,
      event.typeVersion,
      event.at,
      [...state.participants],
    ]);
    await db.query(
      `WITH ${reportRows('')},
       event AS (
         INSERT INTO events (id, event_type_id, happened_at, happened_on, first_report_date, last_report_date, sentence, involved_entity_ids,
                             source_seqs, type_version, created_at, updated_at)
         SELECT $2, $7, $23, $24::date, $25, $26, $27, $28::uuid[], ARRAY[report.received_seq], $29, $30, $30 FROM report
       ), participant_rows AS (
         INSERT INTO event_participants (event_id, entity_id, anchor)
         SELECT $2, id, ${windowAnchorSql('$24::date', '$25::timestamptz')} FROM unnest($31::uuid[]) AS t(id)
       )
       SELECT 1`,
      params.values,
      { prepared: true },
    );
  },

  /** The event's summary and its participant rows, in one statement. */
  async writeSummary(
    db: Queryable,
    eventId: string,
    summary: {
      first: Date;
      last: Date;
      sourceSeqs: number[];
      happenedAt: string | null;
      happenedOn: string | null;
      sentence: string | null;
      involved: string[];
      participants: Set<string>;
      typeVersion: number;
      at: Date;
    },
  ) {
    await db.query(
      `WITH summary AS (
         UPDATE events SET first_report_date = $2, last_report_date = $3, happened_at = $4, happened_on = $5::date, sentence = $6,
                involved_entity_ids = $7::uuid[], updated_at = $8, source_seqs = $9::bigint[], type_version = $11 WHERE id = $1
       ), wanted AS (
         SELECT $1::uuid AS event_id, id AS entity_id, ${windowAnchorSql('$5::date', '$2::timestamptz')} AS anchor FROM unnest($10::uuid[]) AS t(id)
       ), ${participantRowsWritten('ARRAY[$1::uuid]')}`,
      [
        eventId,
        summary.first,
        summary.last,
        summary.happenedAt,
        summary.happenedOn,
        summary.sentence,
        summary.involved,
        summary.at,
        summary.sourceSeqs,
        [...summary.participants],
        summary.typeVersion,
      ],
    );
  },

  /**
   * The states of many events at once: new ones inserted, stored ones updated (their rows
   * locked by the caller), and the participant rows of all of them replaced.
   */
  async writeStates(db: Queryable, states: readonly EventStateRow[], at: Date) {
    if (states.length === 0) return;
    const created = states.filter((state) => state.isNew);
    const updated = states.filter((state) => !state.isNew);
    await db.copyRows(
      'events',
      EVENT_STATE_COLUMNS,
      created.map((r) => [...stateRow(r), at, at]),
    );
    if (updated.length > 0) {
      const values = `unnest($1::uuid[], $2::uuid[], $3::text[], $4::date[], $5::timestamptz[], $6::timestamptz[], $7::text[], $8::text[], $9::text[], $10::bigint[])
                      AS t(id, type, happened, happened_on, first, last, sentence, involved, seqs, type_version)`;
      await db.query(
        `UPDATE events e SET happened_at = t.happened, happened_on = t.happened_on, first_report_date = t.first, last_report_date = t.last,
                sentence = t.sentence, involved_entity_ids = t.involved::uuid[], source_seqs = t.seqs::bigint[], type_version = t.type_version, updated_at = $11
           FROM ${values} WHERE e.id = t.id`,
        [...columnsOf(updated.map(stateRow), STATE_ROW_WIDTH), at],
      );
      // Most of an updated event's participant rows stand as they were (a new report rarely
      // adds a participant): participantRowsWritten writes only the rows that differ.
      const rows = participantRows(updated);
      await db.query(
        `WITH wanted AS (
           SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::timestamptz[]) AS t(event_id, entity_id, anchor)
         ), ${participantRowsWritten('$4::uuid[]')}`,
        [...columnsOf(rows, PARTICIPANT_COLUMNS.length), updated.map((state) => state.id)],
      );
    }
    await db.copyRows('event_participants', PARTICIPANT_COLUMNS, participantRows(created));
  },

  /** The live events that involve an entity (a live survivor), in id order. */
  async eventsNaming(db: Queryable, entityId: string): Promise<string[]> {
    const rows = await db.query<{ id: string }>(
      `SELECT e.id FROM events e
        WHERE e.id IN (${eventsInvolving('ARRAY[$1::uuid]')}) AND e.merged_into_event_id IS NULL AND e.deleted_at IS NULL ORDER BY e.id`,
      [entityId],
    );
    return rows.map((row) => row.id);
  },

  /**
   * Tells the search index's change log that these events changed (its triggers log every write
   * of an event's row): an entity's merge or deletion changes what their rows' entity ids mean
   * without writing the rows, until the refresh job recomputes them.
   */
  async logChanged(db: Queryable, eventIds: readonly string[]): Promise<void> {
    if (eventIds.length > 0) await db.query('INSERT INTO event_search_log (event_id) SELECT unnest($1::uuid[])', [eventIds]);
  },

  /** The entities (as indexed: live survivors, participants and mentioned) these events involve. */
  async entitiesOf(db: Queryable, eventIds: readonly string[]): Promise<string[]> {
    const rows = await db.query<{ entity_id: string }>(
      `SELECT DISTINCT i.entity_id FROM events e CROSS JOIN LATERAL (${indexedEntityIds('e')}) AS i WHERE e.id = ANY($1::uuid[])`,
      [eventIds],
    );
    return rows.map((row) => row.entity_id);
  },

  async mergeEvent(db: Queryable, from: string, into: string, at: Date) {
    await db.query('UPDATE reports SET event_id = $2 WHERE event_id = $1', [from, into]);
    // Two statements, each on an index: the merged event, then events merged into it earlier.
    // Its reports are the survivor's now: it reached no source (migration 022).
    await db.query(`UPDATE events SET merged_into_event_id = $2, source_seqs = '{}', updated_at = $3 WHERE id = $1`, [from, into, at]);
    await db.query('UPDATE events SET merged_into_event_id = $2, updated_at = $3 WHERE merged_into_event_id = $1', [from, into, at]);
    await db.query('DELETE FROM event_participants WHERE event_id = $1', [from]);
  },

  async deleteEvent(db: Queryable, id: string, at: Date) {
    await db.query('UPDATE events SET deleted_at = $2, updated_at = $2 WHERE id = $1', [id, at]);
    await db.query('DELETE FROM event_participants WHERE event_id = $1', [id]);
  },
};
