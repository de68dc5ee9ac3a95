// A corpus of BENCH_TIMES times a loaded one, on PostgreSQL, for the benchmarks that read a
// corpus (search.ts, search-restart.ts, storage.ts) at a size the demo cannot load in one
// session here (ten million events take 5 to 6.5 hours on two cores; see RESULTS.md).
//
// Every event, with its reports and every row that names it, is copied BENCH_TIMES - 1 times
// in SQL: the same type, days, sentence, entities, outlets and role values, under new ids. An
// id keeps its first 24 hex digits (a UUIDv7's time and version) and takes the rest from a hash
// of the id and the copy's number, so ids sort by time as the service's own do. Receive
// sequence values (received_seq, copy groups, source_seqs) move up by the copy's number times a step above the corpus's largest, and the
// sequence continues above them; a copy's urls end in `#copy-N`. The day counts are multiplied,
// and the database gets a search-index epoch of its own.
// What it is not: news. Every copy of an event carries its original's text fingerprints,
// days and entities, so an entity's or a day's events are ten times as many, as at ten million
// events of one world; searches read the same shape of index, lists and tables as a corpus
// ten times as large would give them.
//
// The copies are written with foreign-key triggers off and the secondary indexes dropped,
// then the indexes are built again and the tables vacuumed and analyzed (a load of that size
// through the service's own writes would take hours: that is what it stands in for).
//
//   BENCH_DATABASE_URL=postgres://… BENCH_TIMES=10 npx tsx bench/multiply-corpus.ts
import { performance } from 'node:perf_hooks';
import pg from 'pg';

const DATABASE_URL = process.env.BENCH_DATABASE_URL;
if (!DATABASE_URL?.startsWith('postgres')) throw new Error('BENCH_DATABASE_URL: the PostgreSQL database of a loaded corpus');
const TIMES = Number(process.env.BENCH_TIMES ?? 10);
if (!Number.isInteger(TIMES) || TIMES < 2) throw new Error('BENCH_TIMES: an integer of 2 or more');

const client = new pg.Client({ connectionString: DATABASE_URL });
await client.connect();
const q = async (sql: string, params: unknown[] = []) => (await client.query(sql, params)).rows;

const started = performance.now();
const step = async (what: string, run: () => Promise<unknown>) => {
  const at = performance.now();
  await run();
  process.stderr.write(`${what}: ${((performance.now() - at) / 1000).toFixed(1)} s\n`);
};

const [before] = await q(`SELECT count(*)::bigint AS events, (SELECT count(*) FROM reports)::bigint AS reports,
                                 (SELECT coalesce(max(received_seq), 0) FROM reports)::bigint AS max_seq FROM events`);
// A step of a power of ten above every receive sequence value, so a copy's values read plainly.
const seqStep = 10n ** BigInt(String(BigInt(before.max_seq) + 1n).length);
process.stderr.write(`${before.events} events, ${before.reports} reports, sequence step ${seqStep}\n`);

// The new id of `col` in copy `k`: the time prefix kept, the random tail hashed.
const id = (col: string) => `overlay(${col}::text placing substr(md5(${col}::text || ':' || k), 1, 12) from 25)::uuid`;
const seq = (col: string) => `${col} + k * ${seqStep}`;
const copies = `generate_series(1, ${TIMES - 1}) AS k`;

// The secondary indexes of the copied tables: dropped while the copies are written, built after.
const copied = ['events', 'reports', 'event_participants', 'event_revisions', 'event_revision_heads', 'event_revision_states_kept'];
const indexes = await q(
  `SELECT i.indexname, i.indexdef FROM pg_indexes i
     JOIN pg_class c ON c.relname = i.indexname AND c.relnamespace = to_regnamespace(i.schemaname)
     JOIN pg_index x ON x.indexrelid = c.oid
    WHERE i.schemaname = current_schema() AND i.tablename = ANY($1) AND NOT x.indisprimary AND NOT x.indisunique`,
  [copied],
);

await q('BEGIN');
await q('SET LOCAL session_replication_role = replica'); // foreign-key triggers off: every row copied names copied rows
await q('SET LOCAL statement_timeout = 0');
await step(`dropped ${indexes.length} secondary indexes`, async () => {
  for (const { indexname } of indexes) await q(`DROP INDEX ${pg.escapeIdentifier(indexname)}`);
});
await step('events', () =>
  q(`INSERT INTO events (id, event_type_id, happened_at, happened_on, first_report_date, last_report_date, sentence, involved_entity_ids,
                         merged_into_event_id, deleted_at, created_at, updated_at, source_seqs, type_version)
     SELECT ${id('id')}, event_type_id, happened_at, happened_on, first_report_date, last_report_date, sentence, involved_entity_ids,
            CASE WHEN merged_into_event_id IS NULL THEN NULL ELSE ${id('merged_into_event_id')} END, deleted_at, created_at, updated_at,
            ARRAY(SELECT ${seq('s')} FROM unnest(source_seqs) AS s), type_version
       FROM events, ${copies}`),
);
await step('reports', () =>
  q(`INSERT INTO reports (id, event_id, outlet_id, account_id, grant_id, published_at, received_at, happened_at, headline, url, received_seq,
                          copy_group, fingerprint, role_numbers, role_entity_ids, role_dates, role_amounts, role_units, role_texts, mention_ids)
     OVERRIDING SYSTEM VALUE
     SELECT ${id('id')}, ${id('event_id')}, outlet_id, account_id, grant_id, published_at, received_at, happened_at, headline,
            url || '#copy-' || k, ${seq('received_seq')}, ${seq('copy_group')}, fingerprint,
            role_numbers, role_entity_ids, role_dates, role_amounts, role_units, role_texts, mention_ids
       FROM reports, ${copies}`),
);
await step('event_participants', () =>
  q(`INSERT INTO event_participants (event_id, entity_id, anchor) SELECT ${id('event_id')}, entity_id, anchor FROM event_participants, ${copies}`),
);
await step('event revisions', async () => {
  await q(`INSERT INTO event_revisions (event_id, revision, created_at, changes, merged_event_ids)
           SELECT ${id('event_id')}, revision, created_at, changes,
                  CASE WHEN merged_event_ids IS NULL THEN NULL ELSE ARRAY(SELECT ${id('m')} FROM unnest(merged_event_ids) AS m) END
             FROM event_revisions, ${copies}`);
  await q(`INSERT INTO event_revision_heads (event_id, revision, matched_report_count, distinct_outlet_count, independent_source_count)
           SELECT ${id('event_id')}, revision, matched_report_count, distinct_outlet_count, independent_source_count FROM event_revision_heads, ${copies}`);
  await q(`INSERT INTO event_revision_states_kept (event_id, sentence, happened_at, first_report_date, last_report_date, entity_ids)
           SELECT ${id('event_id')}, sentence, happened_at, first_report_date, last_report_date, entity_ids FROM event_revision_states_kept, ${copies}`);
});
await step('day counts', () => q(`UPDATE event_day_counts SET n = n * ${TIMES}`));
// A search index saved from the corpus before (memory-index-file.ts) names its database by this
// value: the copies are not in its change log, so such an index must never load here.
await step('index epoch made anew', () => q('UPDATE event_search_log_horizon SET index_epoch = gen_random_uuid()'));
await step('receive sequence continued', () => q(`SELECT setval(pg_get_serial_sequence('reports', 'received_seq'), ${seqStep * BigInt(TIMES)})`));
await step(`built ${indexes.length} secondary indexes`, async () => {
  await q(`SET LOCAL maintenance_work_mem = '1GB'`);
  for (const { indexdef } of indexes) await q(indexdef);
});
await q('COMMIT');
await step('VACUUM ANALYZE', () => q('VACUUM ANALYZE'));

const [after] = await q('SELECT count(*)::bigint AS events, (SELECT count(*) FROM reports)::bigint AS reports FROM events');
process.stderr.write(`${after.events} events, ${after.reports} reports, in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
await client.end();
