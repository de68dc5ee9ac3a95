// Beat benchmarks, in one process on the runtime (no HTTP: the figures are the recording and
// read paths themselves).
//
//   1. Recording: BENCH_EVENTS (default 2,000) events ingested, then every background job
//      they caused (sensor matching and beat recording) run by the job queue, 64 at a time
//      as in production; events per second from the first job to the last. With 10,000
//      beats x 5 clauses on one account, then with 100,000. Each clause names one entity of
//      its own (4 in 5 clauses) or an event type and an entity (1 in 5), over 50 event
//      types; events name two random entities of that pool, so an event matches about 1.6
//      clauses at either size and the comparison measures matching, not more entries.
//      Goals: >= 500 events/s on PostgreSQL; 100,000 beats cost <= 1.5x the time per event.
//   2. Poll read: one beat holding 1,000,000 entries; BENCH_READS (default 2,000) poll pages
//      of 50 at random positions through the entries service, alternating with the bare SQL
//      of the same page. Goals: p99 <= 10 ms on PostgreSQL, <= 20 ms on PGlite, and within
//      1.5x of the bare SQL.
//
//   npx tsx bench/beats.ts                                          embedded database (memory)
//   BENCH_BEATS=none npx tsx bench/beats.ts                         the poll read alone
//   BENCH_DATABASE_URL=postgres://… npx tsx bench/beats.ts         PostgreSQL (an empty schema)
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { bumpFilterVersion } from '../src/modules/corpus/filter-versions.store.js';
import { cursorSigner } from '../src/platform/cursors.js';
import { createRuntime } from '../src/runtime.js';
import { benchKeyEnv } from './encryption-key.js';
import { beatClause, benchAccount, insertBeats, insertEntities } from './subscribers.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 2_000);
const READS = Number(process.env.BENCH_READS ?? 2_000);
const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 1_000_000);
const SIZES = (process.env.BENCH_BEATS ?? '10000,100000')
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
const TYPES = 50;
const CLAUSES = 5;

const config = loadConfig({
  EVMON_DATABASE_URL: process.env.BENCH_DATABASE_URL ?? 'memory://',
  ...benchKeyEnv(process.env.BENCH_DATABASE_URL ?? ''),
  EVMON_DATA_DIR: `${os.tmpdir()}/evmon-bench-beats`,
  EVMON_SEED: 'none',
});
const runtime = await createRuntime(config, pino({ level: 'warn' }));
const { db } = runtime;
const now = runtime.clock.now();
const rnd = (n: number) => Math.floor(Math.random() * n);
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;
const ms = (value: number) => `${value.toFixed(2)} ms`;

const account = await benchAccount(runtime, 'bench');
const outlet = await runtime.reference.createOutlet({ name: 'Bench Wire' });
const types: string[] = [];
for (let i = 0; i < TYPES; i++) {
  const type = await runtime.reference.createEventType({
    code_name: `bench_type_${i}_${Date.now()}`,
    name: `Type ${i}`,
    description: '',
    roles: [
      { code_name: 'party', name: 'Party', expected_type: 'NAMED_ENTITY' },
      { code_name: 'other', name: 'Other', expected_type: 'NAMED_ENTITY' },
    ],
    sentence_template: '{party} and {other}',
  });
  types.push(type.id);
}

/** `count` new entities, inserted in bulk; answers their ids. */
const entities = async (count: number) => (await insertEntities(db, count, now)).map((e) => e.id);

/** `count` beats of 5 clauses on the bench account, each clause naming its own entity of `pool`. */
async function seedBeats(count: number, pool: string[]): Promise<void> {
  await db.query('DELETE FROM beats WHERE account_id = $1', [account.id]);
  const clauses = Array.from({ length: count }, (_, b) =>
    Array.from({ length: CLAUSES }, (_, c) => beatClause({ event_type_id: c === 0 ? types[rnd(TYPES)] : null, involved_entity_ids: [pool[b * CLAUSES + c]!] })),
  );
  await insertBeats(db, account.id, clauses, now);
  await db.transaction((tx) => bumpFilterVersion(tx, 'beats'));
}

async function ingest(count: number, pool: string[]): Promise<void> {
  for (let i = 0; i < count; i++) {
    await runtime.events.ingestArticle({
      outlet_id: outlet.id,
      event_type_id: types[rnd(TYPES)]!,
      roles: [
        { role: 'party', entity_id: pool[rnd(pool.length)]! },
        { role: 'other', entity_id: pool[rnd(pool.length)]! },
      ],
    });
  }
}

const entryCount = async () =>
  (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM beat_entries be JOIN beats b ON b.id = be.beat_id WHERE b.account_id = $1', [account.id]))[0]!
    .n;

console.log(`storage: ${db.kind}; ${EVENTS} events per size; ${os.cpus().length} cores`);
console.log('\n1. Recording');
console.log('| beats | clauses | index build | heap used | events/s | per event | entries |');
console.log('|---|---|---|---|---|---|---|');
const perEvent: number[] = [];
let pool: string[] = [];
for (const size of SIZES) {
  pool = [...pool, ...(await entities(size * CLAUSES - pool.length))];
  await seedBeats(size, pool);
  // The first event builds the matching index.
  await ingest(1, pool);
  const built = performance.now();
  await runtime.jobs.drain();
  const buildMs = performance.now() - built;
  const heap = process.memoryUsage().heapUsed / 2 ** 20;
  const before = await entryCount();
  await ingest(EVENTS, pool);
  // Autovacuum would have analyzed the job table after such a burst; the claim's plan depends on it.
  if (db.kind === 'postgres') await db.query('ANALYZE jobs');
  const start = performance.now();
  await runtime.jobs.drain();
  const seconds = (performance.now() - start) / 1000;
  perEvent.push((seconds * 1000) / EVENTS);
  console.log(
    `| ${size.toLocaleString('en')} | ${(size * CLAUSES).toLocaleString('en')} | ${(buildMs / 1000).toFixed(1)} s | ${Math.round(heap)} MiB | ${Math.round(EVENTS / seconds)} | ${ms(perEvent.at(-1)!)} | ${(await entryCount()) - before} |`,
  );
}
if (perEvent.length === 2) console.log(`ratio of time per event: ${(perEvent[1]! / perEvent[0]!).toFixed(2)} (goal <= 1.5)`);
if (SIZES.length > 0) {
  // Without beats, the next event change builds an empty index: the big one's memory is freed
  // before the read is measured.
  await seedBeats(0, pool);
  await ingest(1, pool);
  await runtime.jobs.drain();
}

console.log(`\n2. Poll read: one beat, ${ENTRIES.toLocaleString('en')} entries`);
const beat = await runtime.beats.create(account.id, { name: 'big', clauses: [{ event_type_id: types[0] }] });
for (let done = 0; done < ENTRIES; done += 100_000) {
  const n = Math.min(100_000, ENTRIES - done);
  await db.query(
    `WITH ev AS (
       INSERT INTO events (id, event_type_id, happened_at, first_report_date, last_report_date, sentence, created_at, updated_at)
       SELECT gen_random_uuid(), $1, NULL, $2::timestamptz - make_interval(secs => g), $2::timestamptz - make_interval(secs => g), 'A bench event', $2, $2
         FROM generate_series(1, $3) g
       RETURNING id, first_report_date)
     INSERT INTO beat_entries (id, beat_id, event_id, matched_clause_id, occurred_at, added_at, backfilled)
     SELECT gen_random_uuid(), $4, id, $5, first_report_date, first_report_date, false FROM ev ORDER BY first_report_date`,
    [types[0], now, n, beat.id, beat.clauses[0]!.id],
  );
}
// As autovacuum would have left them: the measurement is of a settled table, not of one
// being vacuumed meanwhile.
for (const table of ['beat_entries', 'events', 'beats', 'jobs']) await db.query(`VACUUM ANALYZE ${table}`);
const seqs = await db.query<{ min: number; max: number }>('SELECT min(seq)::bigint AS min, max(seq)::bigint AS max FROM beat_entries WHERE beat_id = $1', [
  beat.id,
]);
const { min, max } = seqs[0]!;
const signer = cursorSigner(runtime.secret);
const bare = (after: number) =>
  db.query(
    `SELECT be.seq, be.id, be.matched_clause_id, be.occurred_at, be.added_at, be.backfilled, be.carried_from_event_id, be.superseded_by_event_id,
            be.event_id, t.code_name, e.sentence, e.happened_at, e.deleted_at IS NOT NULL AS event_deleted
       FROM beat_entries be JOIN events e ON e.id = be.event_id JOIN event_types t ON t.id = e.event_type_id
      WHERE be.beat_id = $1 AND be.seq > $2 AND be.added_at >= $3 ORDER BY be.seq LIMIT $4`,
    [beat.id, after, new Date(now.getTime() - 3650 * 86_400_000), 51],
  );
const service: number[] = [];
const sql: number[] = [];
for (let i = 0; i < READS + 100; i++) {
  const after = min + rnd(max - min - 60);
  const since = signer.sign('beat-poll', { b: beat.id, s: after });
  let t = performance.now();
  const page = await runtime.beatEntries.read(account.id, beat.id, { since, limit: 50 });
  const serviceMs = performance.now() - t;
  t = performance.now();
  await bare(after);
  const sqlMs = performance.now() - t;
  if (page.data.length !== 50) throw new Error(`a page of ${page.data.length}`);
  if (i >= 100) {
    service.push(serviceMs);
    sql.push(sqlMs);
  }
}
console.log('| read | p50 | p99 |');
console.log('|---|---|---|');
console.log(`| entries service, poll page of 50 | ${ms(percentile(service, 50))} | ${ms(percentile(service, 99))} |`);
console.log(`| bare SQL of the same page | ${ms(percentile(sql, 50))} | ${ms(percentile(sql, 99))} |`);
console.log(`p99 ratio service / bare SQL: ${(percentile(service, 99) / percentile(sql, 99)).toFixed(2)} (goal <= 1.5)`);
await runtime.close();
