import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { BEAT_SCOPES } from '../helpers/beats.js';
import { testCorpus } from '../helpers/corpus.js';
import { bearer } from '../helpers/http.js';
import { isolatedDatabase, PG_URL, spawnServers, timeLimit, type SpawnedServer } from '../helpers/server.js';

const NOW = '2026-11-20T12:00:00.000Z';

describe('beats across processes', { skip: PG_URL === null ? 'PostgreSQL only (EVMON_TEST_DATABASE_URL)' : false }, () => {
  let database: Awaited<ReturnType<typeof isolatedDatabase>>;
  let servers: SpawnedServer[] = [];

  before(
    // The suite's context: the servers serve every test of the suite; \`after\` stops them.
    async (suite) => {
      database = await isolatedDatabase();
      servers = await spawnServers(suite, 2, database.env);
    },
    { timeout: timeLimit({ starts: 2 }) },
  );
  after(async () => {
    await Promise.all(servers.map((server) => server.stop('SIGKILL')));
    await database.drop();
  });

  it('when two processes record for the same beats at once, then no entry is recorded or charged twice and no month passes its cap', async () => {
    const [a, b] = servers as [SpawnedServer, SpawnedServer];
    const setClocks = (now: string) => Promise.all(servers.map((server) => server.ops.post('/clock', { now })));
    await setClocks('2026-11-19T00:00:00.000Z');
    const corpus = testCorpus(a);
    const type = await corpus.eventType();
    const outlet = await corpus.outlet();
    const ingest = async (on: SpawnedServer) =>
      testCorpus(on).article({ outlet_id: outlet, event_type_id: type.id, roles: [{ role: 'party', entity_id: await corpus.entity() }] });
    // Events a new beat's backfill will find, recorded while live matching runs too.
    const earlier = [];
    for (let i = 0; i < 40; i++) earlier.push(await ingest(i % 2 === 0 ? a : b));
    await Promise.all(servers.map((server) => server.ops.post('/drain')));
    await setClocks(NOW);

    const account = await corpus.account(10_000, BEAT_SCOPES, 'standard', { beats: true });
    const create = async (on: SpawnedServer, spendCap: number) => {
      const created = await on.http.post('/v1/beats', { name: 'w', clauses: [{ event_type_id: type.id }], spend_cap_credits: spendCap }, bearer(account.key));
      assert.equal(created.status, 201, created.text);
      return created.json.id as string;
    };
    const open = await create(a, 1000);
    const capped = await create(b, 55);
    const live = [];
    for (let i = 0; i < 40; i++) live.push(await ingest(i % 2 === 0 ? a : b));
    await Promise.all(servers.map((server) => server.ops.post('/drain')));
    await Promise.all(servers.map((server) => server.ops.post('/drain')));

    const client = new pg.Client({ connectionString: database.env.EVMON_DATABASE_URL ?? PG_URL! });
    await client.connect();
    try {
      const entries = async (beatId: string) =>
        (await client.query<{ event_id: string }>('SELECT event_id FROM beat_entries WHERE beat_id = $1', [beatId])).rows.map((r) => r.event_id);
      const openEntries = await entries(open);
      assert.equal(openEntries.length, 80, 'every backfilled and live match, once');
      assert.deepEqual(new Set(openEntries), new Set([...earlier, ...live]));
      const cappedEntries = await entries(capped);
      assert.equal(cappedEntries.length, 55, 'exactly up to the cap');
      assert.equal(new Set(cappedEntries).size, 55);

      const beat = async (id: string) => (await b.http.get(`/v1/beats/${id}`, bearer(account.key))).json;
      assert.equal((await beat(open)).spent_this_month, 80);
      const cappedBeat = await beat(capped);
      assert.equal(cappedBeat.spent_this_month, 55);
      assert.equal(cappedBeat.status, 'PAUSED_SPEND_CAP');
      assert.equal(cappedBeat.gaps.length, 1);

      const ledger = await client.query<{ n: number; total: number }>(
        'SELECT count(*)::int AS n, COALESCE(sum(amount), 0)::int AS total FROM credit_ledger WHERE account_id = $1 AND amount < 0',
        [account.id],
      );
      assert.deepEqual(ledger.rows[0], { n: 135, total: -135 }, 'one charge per entry');
      assert.equal(await corpus.balance(account.id), 10_000 - 135);
      const workers = await client.query<{ n: number }>(`SELECT count(DISTINCT locked_by)::int AS n FROM jobs WHERE kind = 'corpus.event-changed:beats'`);
      assert.equal(workers.rows[0]!.n, 2, 'both processes recorded');
    } finally {
      await client.end();
    }
  });
});
