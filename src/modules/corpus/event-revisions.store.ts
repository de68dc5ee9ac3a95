// SQL of event revisions (migrations 024, 028, 034, 036, 038, 041, 042): each event's head (its latest
// revision's number and state: the counts on the head, the rest on the event's row or, once
// the row changed, kept aside on the head), the ones written by a change (which move the head),
// an event's list newest first, and the retention sweep.
import type { Queryable } from '../../platform/db/database.js';
import { deleteInBatches } from '../../platform/retention.js';
import type { InvolvedEntity } from './event-view.js';
import type { RevisionChanges, RevisionState } from './revision-changes.js';
import { changesOfStored, entityIdsOf, type StoredChanges, storedChanges } from './stored-revision-changes.js';

export interface RevisionRow {
  event_id: string;
  revision: number;
  created_at: Date;
  changes: RevisionChanges;
  merged_event_ids: string[];
}

export interface NewRevision {
  eventId: string;
  revision: number;
  changes: RevisionChanges;
  mergedEventIds: readonly string[];
  state: RevisionState;
}

/** A head's state, as read back (`matched_report_count` null: stored before states were kept). */
interface HeadRow {
  id: string;
  revision: number;
  sentence: string | null;
  happened_at: string | null;
  first_report_date: Date;
  last_report_date: Date;
  matched_report_count: number | null;
  distinct_outlet_count: number | null;
  independent_source_count: number | null;
  entities: InvolvedEntity[];
}

function stateOf(row: HeadRow): RevisionState | null {
  if (row.matched_report_count === null) return null;
  return {
    sentence: row.sentence,
    happened_at: row.happened_at,
    first_report_date: row.first_report_date.toISOString(),
    last_report_date: row.last_report_date.toISOString(),
    matched_report_count: row.matched_report_count,
    distinct_outlet_count: row.distinct_outlet_count!,
    independent_source_count: row.independent_source_count!,
    involved_entities: row.entities,
  };
}

/**
 * Whether a revision goes without a row (migration 034): an event's first with no events
 * merged in, which says only that the event was made (changes {}), and when: the event's own
 * created_at. Its head row still says the event is at revision 1, with its state.
 */
const impliedFirst = (r: NewRevision) => r.revision === 1 && r.mergedEventIds.length === 0;

export const eventRevisionsStore = {
  /** Per event, its latest revision and its state (null: stored before states were kept); events without one left out. */
  async latest(db: Queryable, eventIds: readonly string[]): Promise<Map<string, { revision: number; state: RevisionState | null }>> {
    // The row's columns as the latest revision left them: kept aside once the row changed
    // (migration 041's trigger), else the row's. The involved entities by id, read back with
    // their names and types (which never change).
    const rows = await db.query<HeadRow>(
      `SELECT h.event_id AS id, h.revision, h.matched_report_count, h.distinct_outlet_count, h.independent_source_count, s.*,
              (SELECT COALESCE(json_agg(json_build_object('id', en.id, 'name', en.name, 'type', en.type) ORDER BY x.n), '[]')
                 FROM unnest(s.entity_ids) WITH ORDINALITY AS x(id, n) JOIN entities en ON en.id = x.id) AS entities
         FROM event_revision_heads h
         JOIN events e ON e.id = h.event_id
        CROSS JOIN LATERAL (
          SELECT k.sentence, k.happened_at, k.first_report_date, k.last_report_date, k.entity_ids FROM event_revision_states_kept k WHERE k.event_id = h.event_id
          UNION ALL
          SELECT e.sentence, e.happened_at, e.first_report_date, e.last_report_date, e.involved_entity_ids
           WHERE NOT EXISTS (SELECT 1 FROM event_revision_states_kept k WHERE k.event_id = h.event_id)) AS s
        WHERE h.event_id = ANY($1::uuid[])`,
      [eventIds],
    );
    return new Map(rows.map((row) => [row.id, { revision: row.revision, state: stateOf(row) }]));
  },

  /** Per event, its latest revision number; events without one left out. */
  async heads(db: Queryable, eventIds: readonly string[]): Promise<Map<string, number>> {
    const rows = await db.query<{ event_id: string; revision: number }>(
      'SELECT event_id, revision FROM event_revision_heads WHERE event_id = ANY($1::uuid[])',
      [eventIds],
    );
    return new Map(rows.map((row) => [row.event_id, row.revision]));
  },

  /** The events merged into an event by its revisions after `after`. */
  async mergedSince(db: Queryable, eventId: string, after: number): Promise<string[]> {
    const rows = await db.query<{ id: string }>(
      `SELECT unnest(merged_event_ids)::text AS id FROM event_revisions WHERE event_id = $1 AND revision > $2 ORDER BY revision`,
      [eventId, after],
    );
    return rows.map((row) => row.id);
  },

  /**
   * Writes new revisions (but an implied first: impliedFirst), and makes each its event's head,
   * with its state. Nothing stays kept aside for the events of `settled` (those revised, and
   * those whose row changed back to their latest revision's state, or went: merged or deleted).
   */
  async insert(tx: Queryable, revisions: readonly NewRevision[], at: Date, settled: readonly string[]): Promise<void> {
    if (settled.length > 0) await tx.query('DELETE FROM event_revision_states_kept WHERE event_id = ANY($1::uuid[])', [settled]);
    if (revisions.length === 0) return;
    const stored = revisions.filter((r) => !impliedFirst(r));
    if (stored.length > 0) {
      await tx.copyRows(
        'event_revisions',
        ['event_id', 'revision', 'created_at', 'changes', 'merged_event_ids'],
        // No merged events: NULL, not an empty array's 16 bytes (migration 042).
        stored.map((r) => [
          r.eventId,
          r.revision,
          at,
          JSON.stringify(storedChanges(r.changes)),
          r.mergedEventIds.length > 0 ? `{${r.mergedEventIds.join(',')}}` : null,
        ]),
      );
    }
    // The rest of the state is the event's row as the caller's transaction leaves it: a
    // revision is recorded after the changes of its event (recordRevisions' caller).
    const column = <T>(value: (state: RevisionState) => T) => revisions.map((r) => value(r.state));
    await tx.query(
      `INSERT INTO event_revision_heads (event_id, revision, matched_report_count, distinct_outlet_count, independent_source_count)
       SELECT * FROM unnest($1::uuid[], $2::int[], $3::int[], $4::int[], $5::int[])
       ON CONFLICT (event_id) DO UPDATE SET revision = EXCLUDED.revision, matched_report_count = EXCLUDED.matched_report_count,
         distinct_outlet_count = EXCLUDED.distinct_outlet_count, independent_source_count = EXCLUDED.independent_source_count`,
      [
        revisions.map((r) => r.eventId),
        revisions.map((r) => r.revision),
        column((s) => s.matched_report_count),
        column((s) => s.distinct_outlet_count),
        column((s) => s.independent_source_count),
      ],
    );
  },

  /**
   * An event's revisions, newest first, below `before` (a revision number) when given; `limit`
   * of them. An implied first (no row) is listed as made with the event, while it is kept:
   * made since `keptSince`, or the event's latest.
   */
  async list(db: Queryable, eventId: string, limit: number, before: number | null, keptSince: Date): Promise<RevisionRow[]> {
    const rows = await db.query<Omit<RevisionRow, 'changes'> & { changes: StoredChanges }>(
      `WITH stored AS MATERIALIZED (
         SELECT event_id, revision, created_at, changes, COALESCE(merged_event_ids, '{}') AS merged_event_ids FROM event_revisions WHERE event_id = $1)
       SELECT * FROM stored WHERE $2::int IS NULL OR revision < $2
       UNION ALL
       SELECT e.id, 1, e.created_at, '{}'::json, '{}'::uuid[] FROM events e
        WHERE e.id = $1 AND ($2::int IS NULL OR 1 < $2)
          AND NOT EXISTS (SELECT 1 FROM stored WHERE revision = 1)
          AND (e.created_at >= $4 OR NOT EXISTS (SELECT 1 FROM stored))
       ORDER BY revision DESC LIMIT $3`,
      [eventId, before, limit, keptSince],
    );
    const ids = [...new Set(rows.flatMap((row) => entityIdsOf(row.changes)))];
    const entities = ids.length === 0 ? [] : await db.query<InvolvedEntity>('SELECT id, name, type FROM entities WHERE id = ANY($1::uuid[])', [ids]);
    const byId = new Map(entities.map((entity) => [entity.id, entity]));
    return rows.map((row) => ({ ...row, changes: changesOfStored(row.changes, byId) }));
  },

  /** Deletes revisions made before `before` that are not their event's latest; answers how many. Rows another sweep holds are skipped. */
  sweep(db: Queryable, before: Date): Promise<number> {
    return deleteInBatches(
      db,
      `DELETE FROM event_revisions WHERE (event_id, revision) IN (
         SELECT r.event_id, r.revision FROM event_revisions r JOIN event_revision_heads h ON h.event_id = r.event_id
          WHERE r.created_at < $2 AND r.revision < h.revision
          LIMIT $1 FOR UPDATE OF r SKIP LOCKED)
       RETURNING 1`,
      [before],
    );
  },
};
