// SQL of copy detection (copy-detection.ts): the fingerprints it reads into memory and the
// reports it finds copied (its lock is ingest-locks.store.ts's lockCopies). Returns plain rows.
import type { Queryable } from '../../platform/db/database.js';

/** A fingerprinted report as copy detection keeps it in memory. */
export interface FingerprintRow {
  id: string;
  received_seq: number;
  received_ms: number;
  fingerprint: string; // hex
}

/** A report found copied: where it is and the group it is in. */
export interface CopiedReport {
  id: string;
  event_id: string;
  /** COALESCE(copy_group, received_seq). */
  copy_group: number;
  received_seq: number;
  /** The live survivors of the entities it names (roles and mentions): copy detection joins only a report that shares one (copy-detection.ts). */
  entity_ids: string[];
}

const FINGERPRINT_COLUMNS = `id, received_seq, (extract(epoch FROM received_at) * 1000)::float8 AS received_ms, encode(fingerprint, 'hex') AS fingerprint`;

export const copiesStore = {
  /**
   * Summarizes the pages added to `reports` since its BRIN indexes last did (report-ranges.ts),
   * waiting at most `lockTimeout` for the table's lock (a VACUUM holds it while it runs).
   */
  async summarizeNewPages(tx: Queryable, lockTimeout: string): Promise<void> {
    await tx.query(`SET LOCAL lock_timeout = '${lockTimeout}'`);
    await tx.query(`SELECT brin_summarize_new_values('reports_received_seq_brin'::regclass), brin_summarize_new_values('reports_received_at_brin'::regclass)`);
  },

  /**
   * The fingerprinted reports with receive sequence values in (after, upTo]. Bounded on both
   * sides, so a planner without statistics (the embedded database is never analyzed) still
   * reads a range from the BRIN index rather than the whole table.
   */
  writtenBetween(tx: Queryable, after: number, upTo: number): Promise<FingerprintRow[]> {
    return tx.query<FingerprintRow>(
      `SELECT ${FINGERPRINT_COLUMNS} FROM reports WHERE received_seq > $1::bigint AND received_seq <= $2::bigint AND fingerprint IS NOT NULL`,
      [after, upTo],
    );
  },

  /** The fingerprinted reports received in [fromMs, toMs). */
  receivedBetween(tx: Queryable, fromMs: number, toMs: number): Promise<FingerprintRow[]> {
    return tx.query<FingerprintRow>(
      `SELECT ${FINGERPRINT_COLUMNS} FROM reports
        WHERE received_at >= to_timestamp($1::float8 / 1000) AND received_at < to_timestamp($2::float8 / 1000) AND fingerprint IS NOT NULL`,
      [fromMs, toMs],
    );
  },

  /** These reports, with their event, copy group and the survivors of the entities they name. */
  copied(tx: Queryable, ids: readonly string[]): Promise<CopiedReport[]> {
    return tx.query<CopiedReport>(
      `SELECT r.id, r.event_id, COALESCE(r.copy_group, r.received_seq) AS copy_group, r.received_seq,
              ARRAY(SELECT DISTINCT survivor.id
                      FROM (SELECT unnest(r.role_entity_ids) UNION SELECT unnest(r.mention_ids)) AS named(entity_id)
                      JOIN entities named_entity ON named_entity.id = named.entity_id
                      JOIN entities survivor ON survivor.id = named_entity.canonical_id AND survivor.deleted_at IS NULL) AS entity_ids
         FROM reports r WHERE r.id = ANY($1::uuid[])`,
      [ids],
    );
  },

  /**
   * The origin of each (event, group) pair among the group's reports in that event: the one with
   * the earliest report date, ties by receive order (decisions.md: a group's origin).
   */
  async origins(tx: Queryable, pairs: readonly { eventId: string; group: number }[]): Promise<Map<string, { id: string; reportDate: Date; seq: number }>> {
    if (pairs.length === 0) return new Map();
    const rows = await tx.query<{ event_id: string; copy_group: number; id: string; report_date: Date; received_seq: number }>(
      `SELECT DISTINCT ON (r.event_id, p.copy_group) r.event_id, p.copy_group, r.id, r.report_date, r.received_seq
         FROM unnest($1::uuid[], $2::bigint[]) AS p(event_id, copy_group)
         JOIN reports r ON r.event_id = p.event_id AND COALESCE(r.copy_group, r.received_seq) = p.copy_group
        ORDER BY r.event_id, p.copy_group, r.report_date, r.received_seq`,
      [pairs.map((p) => p.eventId), pairs.map((p) => p.group)],
    );
    return new Map(rows.map((r) => [originKey(r.event_id, r.copy_group), { id: r.id, reportDate: r.report_date, seq: r.received_seq }]));
  },
};

/** The key of an (event, group) pair in `origins`' answer. */
export const originKey = (eventId: string, group: number) => `${eventId} ${group}`;
