// SQL of event revisions (migration 024): the latest of each event, the ones written by a
// change (superseding the one before), an event's list newest first, and the retention sweep.
import type { Queryable } from '../../platform/db/database.js';
import { deleteInBatches } from '../../platform/retention.js';
import type { RevisionChanges, RevisionState } from './revision-changes.js';

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

export const eventRevisionsStore = {
  /** Per event, its latest revision and its state (null: stored before states were kept); events without one left out. */
  async latest(db: Queryable, eventIds: readonly string[]): Promise<Map<string, { revision: number; state: RevisionState | null }>> {
    const rows = await db.query<{ id: string; revision: number; state: RevisionState | null }>(
      `SELECT x.id, h.revision, h.state
         FROM unnest($1::uuid[]) AS x(id)
         CROSS JOIN LATERAL (SELECT revision, state FROM event_revisions WHERE event_id = x.id ORDER BY revision DESC LIMIT 1) h`,
      [eventIds],
    );
    return new Map(rows.map((row) => [row.id, { revision: row.revision, state: row.state }]));
  },

  /** Per event, its latest revision number; events without one left out. */
  async heads(db: Queryable, eventIds: readonly string[]): Promise<Map<string, number>> {
    const rows = await db.query<{ id: string; revision: number | null }>(
      'SELECT x.id, (SELECT max(revision) FROM event_revisions WHERE event_id = x.id) AS revision FROM unnest($1::uuid[]) AS x(id)',
      [eventIds],
    );
    return new Map(rows.flatMap((row) => (row.revision === null ? [] : [[row.id, row.revision] as const])));
  },

  /** The events merged into an event by its revisions after `after`. */
  async mergedSince(db: Queryable, eventId: string, after: number): Promise<string[]> {
    const rows = await db.query<{ id: string }>(
      `SELECT unnest(merged_event_ids)::text AS id FROM event_revisions WHERE event_id = $1 AND revision > $2 ORDER BY revision`,
      [eventId, after],
    );
    return rows.map((row) => row.id);
  },

  /** Writes new revisions; each one's predecessor (`revision - 1`) is superseded: its state goes, and the sweep may take it once old. */
  async insert(tx: Queryable, revisions: readonly NewRevision[], at: Date): Promise<void> {
    if (revisions.length === 0) return;
    const superseded = revisions.filter((r) => r.revision > 1);
    if (superseded.length > 0) {
      await tx.query(
        `UPDATE event_revisions r SET superseded_at = $3, state = NULL
           FROM unnest($1::uuid[], $2::int[]) AS p(event_id, revision)
          WHERE r.event_id = p.event_id AND r.revision = p.revision`,
        [superseded.map((r) => r.eventId), superseded.map((r) => r.revision - 1), at],
      );
    }
    await tx.copyRows(
      'event_revisions',
      ['event_id', 'revision', 'created_at', 'changes', 'merged_event_ids', 'state'],
      revisions.map((r) => [r.eventId, r.revision, at, JSON.stringify(r.changes), `{${r.mergedEventIds.join(',')}}`, JSON.stringify(r.state)]),
    );
  },

  /** An event's revisions, newest first, below `before` (a revision number) when given; `limit` of them. */
  list(db: Queryable, eventId: string, limit: number, before: number | null): Promise<RevisionRow[]> {
    return db.query<RevisionRow>(
      `SELECT event_id, revision, created_at, changes, merged_event_ids FROM event_revisions
        WHERE event_id = $1 AND ($2::int IS NULL OR revision < $2) ORDER BY revision DESC LIMIT $3`,
      [eventId, before, limit],
    );
  },

  /** Deletes superseded revisions made before `before` (never an event's latest); answers how many. Rows another sweep holds are skipped. */
  sweep(db: Queryable, before: Date): Promise<number> {
    return deleteInBatches(
      db,
      `DELETE FROM event_revisions WHERE (event_id, revision) IN (
         SELECT event_id, revision FROM event_revisions
          WHERE superseded_at IS NOT NULL AND created_at < $2
          LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING 1`,
      [before],
    );
  },
};
