import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { testCorpus, unique } from '../helpers/corpus.js';
import { bearer } from '../helpers/http.js';
import { PG_URL, spawnServer, spawnServers, timeLimit, tempDir } from '../helpers/server.js';

describe('billed search across a crash', () => {
  for (const point of ['before-charge', 'after-charge'] as const) {
    it(`when the process is killed ${point.replace('-', ' ')}, then the balance is charged at most once and the same key gets 409`, {
      timeout: timeLimit({ starts: 2 }),
    }, async (t) => {
      // On disk (or PostgreSQL), so the restarted process sees what the killed one wrote.
      const env = { EVMON_DATABASE_URL: PG_URL ?? '', EVMON_DATA_DIR: tempDir() };
      const first = await spawnServer(t, { ...env, EVMON_TEST_SEARCH_PAUSE: point });
      const corpus = testCorpus(first);
      const account = await corpus.account(5);
      const body = { lookback_days: 7 };
      const idem = unique();
      const inFlight = first.http
        .request('POST', '/v1/events/search', { headers: { ...bearer(account.key), 'idempotency-key': idem }, body })
        .catch((error: Error) => error);
      await first.waitForOutput(new RegExp(`"point":"${point}"`), 30_000);
      await first.stop('SIGKILL');
      assert.ok((await inFlight) instanceof Error, 'the client never got an answer');

      const second = await spawnServer(t, env);
      try {
        const retry = await second.http.request('POST', '/v1/events/search', { headers: { ...bearer(account.key), 'idempotency-key': idem }, body });
        assert.equal(retry.status, 409, retry.text);
        assert.match(retry.json.type, /\/problems\/idempotency-in-flight$/);
        const balance = await testCorpus(second).balance(account.id);
        assert.equal(balance, point === 'before-charge' ? 5 : 4);
        const fresh = await second.http.request('POST', '/v1/events/search', { headers: { ...bearer(account.key), 'idempotency-key': unique() }, body });
        assert.equal(fresh.status, 200, 'a new key runs the search');
        assert.equal(await testCorpus(second).balance(account.id), balance - 1);
      } finally {
        await second.stop();
      }
    });
  }
});

describe('billed search on two processes', { skip: PG_URL === null ? 'needs PostgreSQL (EVMON_TEST_DATABASE_URL)' : false }, () => {
  it('when one key is sent to two processes at once, then the search runs and charges once', { timeout: timeLimit({ starts: 2 }) }, async (t) => {
    const servers = await spawnServers(t, 2, { EVMON_DATABASE_URL: PG_URL ?? '' });
    try {
      const account = await testCorpus(servers[0]!).account(50);
      const idem = unique();
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          servers[i % 2]!.http.request('POST', '/v1/events/search', {
            headers: { ...bearer(account.key), 'idempotency-key': idem },
            body: { lookback_days: 30 },
          }),
        ),
      );
      assert.ok(
        responses.every((r) => r.status === 200 || r.status === 409),
        responses.map((r) => r.status).join(','),
      );
      assert.equal(new Set(responses.filter((r) => r.status === 200).map((r) => r.json.execution_id)).size, 1);
      assert.equal(await testCorpus(servers[1]!).balance(account.id), 49);
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
    }
  });
});
