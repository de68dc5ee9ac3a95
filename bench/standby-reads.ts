// Reads on a hot standby (operations.md, "Read replicas"), side by side in one run, on a
// primary and a standby of the bench's own (initdb, then pg_basebackup -R; the tests' helper
// test/helpers/own-postgres.ts), and two api servers on them: one reading from the primary
// only, one with EVMON_DATABASE_REPLICA_URLS.
//   1. The consistency check's cost: GET /v1/events/{id}, one request at a time, through each
//      server in alternating rounds; p50 and p99 of each (goal: at most 1 ms added at p50).
//   2. A mixed load from BENCH_CLIENTS clients for BENCH_SECONDS against each server in turn:
//      events by id, searches (charged), sensor lists, and articles ingested (writes, through
//      the server reading from the primary). The standby's share of the reads (goal: at least
//      0.9 with replay running), and the primary's CPU per request with and without the standby
//      (all of the primary cluster's processes, from /proc).
//
// With BENCH_DEMO_EVENTS, the primary first gets a demo corpus of that many events (`evmon demo`,
// before the standby is made from it): the reads and searches then run over it, and each server
// builds its search index once, alone, first (from the primary, and from the standby), timed
// from its log; both then start again, loading the index they saved.
//
//   npx tsx bench/standby-reads.ts        (as root or as the postgres user; needs PostgreSQL's server binaries)
//   BENCH_EVENTS=500 BENCH_ROUNDS=4 BENCH_READS=1000 BENCH_CLIENTS=8 BENCH_SECONDS=15 BENCH_DEMO_EVENTS=0
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { spawnSync } from 'node:child_process';
import { Agent, request } from 'undici';
import { freePort } from '../test/helpers/ports.js';
import { ownPostgres, postgresBinDir } from '../test/helpers/own-postgres.js';
import { OPS_TOKEN, ops, ROOT, serverEnv, startServer, stopServer } from './servers.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const READS = Number(process.env.BENCH_READS ?? 1_000);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 8);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const DEMO_EVENTS = Number(process.env.BENCH_DEMO_EVENTS ?? 0);
const TICKS_PER_SECOND = 100; // USER_HZ on Linux

const insecure = new Agent({ connect: { rejectUnauthorized: false }, connections: CLIENTS + 2 });

/** One request; answers its status (the body read and dropped). */
async function send(port: number, method: 'GET' | 'POST', url: string, token: string, body?: unknown): Promise<number> {
  const response = await request(`https://127.0.0.1:${port}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json', 'idempotency-key': randomUUID() }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    dispatcher: insecure,
  });
  await response.body.dump();
  return response.statusCode;
}

/** CPU seconds of a PostgreSQL cluster so far (`processes`: its postmaster first): the postmaster, the children it waited for, and those alive. */
function clusterCpuSeconds(processes: readonly number[]): number {
  const stat = (pid: number) => fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const [postmaster, ...children] = processes;
  const own = stat(postmaster!);
  // utime, stime, cutime, cstime: fields 14 to 17 (index 11 to 14 after the name).
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const pid of children) {
    try {
      const fields = stat(pid);
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // It ended meanwhile: its time is in the postmaster's cutime now.
    }
  }
  return ticks / TICKS_PER_SECOND;
}

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

async function metricValue(port: number, name: string, labels: string): Promise<number> {
  const response = await request(`https://127.0.0.1:${port}/ops/v1/metrics`, {
    headers: { authorization: `Bearer ${OPS_TOKEN}` },
    dispatcher: insecure,
  });
  const text = await response.body.text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

const bin = postgresBinDir();
if (!bin) throw new Error('PostgreSQL server binaries are needed (/usr/lib/postgresql/*/bin)');
const stopAll = new AbortController();
const owner = { signal: stopAll.signal };
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'evmon-bench-standby-'));
const servers: Awaited<ReturnType<typeof startServer>>[] = [];
try {
  const primary = await ownPostgres(owner, bin);
  let demoSeconds = 0;
  if (DEMO_EVENTS > 0) {
    const started = performance.now();
    const demo = spawnSync(process.execPath, ['bin/evmon.js', 'demo', '--events', String(DEMO_EVENTS), '--seed', '42'], {
      cwd: ROOT,
      env: { ...process.env, ...serverEnv(0, path.join(root, 'demo'), primary.url) },
      stdio: 'inherit',
    });
    if (demo.status !== 0) throw new Error(`evmon demo exited with ${demo.status}`);
    demoSeconds = (performance.now() - started) / 1000;
  }
  const standby = await ownPostgres(owner, bin, { standbyOf: primary });
  const standbyName = `127.0.0.1:${new URL(standby.url).port}/postgres`;

  const plainPort = await freePort();
  const replicaPort = await freePort();
  const plainEnv = { ...serverEnv(plainPort, path.join(root, 'plain'), primary.url), EVMON_ROLE: 'api' };
  const replicaEnv = { ...serverEnv(replicaPort, path.join(root, 'replica'), primary.url), EVMON_ROLE: 'api', EVMON_DATABASE_REPLICA_URLS: standby.url };
  // Over a corpus, each server builds its index alone, logging at info to time it, and saves it at its stop.
  const buildMs: Record<string, number> = {};
  if (DEMO_EVENTS > 0) {
    for (const [which, env, port] of [
      ['primary', plainEnv, plainPort],
      ['standby', replicaEnv, replicaPort],
    ] as const) {
      const out = path.join(root, `build-${which}`);
      process.env.BENCH_SERVER_STDOUT = out;
      const server = await startServer('src/main.ts', { ...env, EVMON_LOG_LEVEL: 'info' }, port, '/readyz');
      delete process.env.BENCH_SERVER_STDOUT;
      for (;;) {
        const built = fs
          .readFileSync(`${out}-${port}`, 'utf8')
          .split('\n')
          .find((line) => line.includes('"msg":"search index built"'));
        if (built) {
          buildMs[which] = JSON.parse(built).ms;
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      await stopServer(server);
    }
  }
  servers.push(await startServer('src/main.ts', plainEnv, plainPort, '/readyz'));
  servers.push(await startServer('src/main.ts', replicaEnv, replicaPort, '/readyz'));

  // The corpus and the readers, through the server on the primary.
  const type = await ops(plainPort, 'POST', '/ops/v1/event-types', {
    code_name: `bench_${Date.now()}`,
    name: 'Bench',
    description: '',
    roles: [{ code_name: 'party', name: 'Party', expected_type: 'NAMED_ENTITY' }],
    sentence_template: '{party} did something',
  });
  const outlet = (await ops(plainPort, 'POST', '/ops/v1/outlets', { name: 'Bench outlet' })).id as string;
  const entities: string[] = [];
  for (let i = 0; i < 50; i++) entities.push((await ops(plainPort, 'POST', '/ops/v1/entities', { name: `Bench entity ${i}`, type: 'ORGANIZATION' })).id);
  const article = (n: number) => ({
    outlet_id: outlet,
    event_type_id: type.id,
    url: `https://bench.example/${n}`,
    roles: [{ role: 'party', entity_id: entities[n % entities.length] }],
  });
  const ids: string[] = [];
  for (let n = 0; n < EVENTS; n++) ids.push((await ops(plainPort, 'POST', '/ops/v1/articles', article(n))).incident_id);
  // Over a corpus, the reads take its events and the searches its types.
  const searchTypes = [type.id as string];
  if (DEMO_EVENTS > 0) {
    ids.splice(
      0,
      ids.length,
      ...(
        await primary.admin<{ id: string }>(
          'SELECT id::text AS id FROM events WHERE merged_into_event_id IS NULL AND deleted_at IS NULL ORDER BY random() LIMIT 20000',
        )
      ).map((row) => row.id),
    );
    searchTypes.splice(0, 1, ...(await primary.admin<{ id: string }>('SELECT id::text AS id FROM event_types')).map((row) => row.id));
  }
  // An account on a plan whose request budget the run never spends, with credits for its searches.
  const standard = (await ops(plainPort, 'GET', '/ops/v1/plans', undefined)).data.find((plan: { name: string }) => plan.name === 'standard');
  const { object: _object, name: _name, ...fields } = standard;
  await ops(plainPort, 'PUT', '/ops/v1/plans/bench', { ...fields, rest_requests_per_minute: 2_000_000_000 });
  const account = await ops(plainPort, 'POST', '/ops/v1/accounts', { plan: 'bench', credit_balance: 100_000_000 });
  const key = (
    await ops(plainPort, 'POST', `/ops/v1/accounts/${account.id}/api-keys`, { name: 'bench', scopes: ['EVENTS_READ', 'SENSORS_READ', 'SENSORS_WRITE'] })
  ).key as string;
  for (let i = 0; i < 5; i++) {
    await send(plainPort, 'POST', '/v1/sensors', key, {
      name: `s${i}`,
      filter: { event_type_id: type.id },
      actions: [{ type: 'webhook', url: 'https://example.com/h' }],
    });
  }
  for (;;) {
    if ((await metricValue(replicaPort, 'evmon_db_standby_in_use', `standby="${standbyName}"`)) === 1) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  // 1. One read at a time: the consistency check's cost.
  const latencies = { primary: [] as number[], standby: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? (['primary', 'standby'] as const) : (['standby', 'primary'] as const);
    for (const which of order) {
      const port = which === 'primary' ? plainPort : replicaPort;
      for (let i = 0; i < READS; i++) {
        const started = performance.now();
        const status = await send(port, 'GET', `/v1/events/${ids[i % ids.length]}`, key);
        latencies[which].push(performance.now() - started);
        if (status !== 200) throw new Error(`GET /v1/events answered ${status}`);
      }
    }
  }
  const summary = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
  };
  const one = { primary: summary(latencies.primary), standby: summary(latencies.standby) };

  // 2. The mixed load against each server in turn; writes always through the server on the primary.
  let written = EVENTS;
  async function mixed(port: number) {
    const cpuBefore = clusterCpuSeconds(primary.processes());
    const readsBefore = {
      standby: await metricValue(port, 'evmon_db_reads_total', `target="${standbyName}"`),
      primary: await metricValue(port, 'evmon_db_reads_total', 'target="primary"'),
    };
    const until = performance.now() + SECONDS * 1000;
    let requests = 0;
    let failed = 0;
    const client = async () => {
      while (performance.now() < until) {
        const roll = Math.random();
        const status =
          roll < 0.5
            ? await send(port, 'GET', `/v1/events/${ids[Math.floor(Math.random() * ids.length)]}`, key)
            : roll < 0.7
              ? await send(port, 'POST', '/v1/events/search', key, {
                  event_type_id: searchTypes[Math.floor(Math.random() * searchTypes.length)],
                  lookback_days: 30,
                  limit: 10,
                })
              : roll < 0.85
                ? await send(port, 'GET', '/v1/sensors?limit=10', key)
                : await send(plainPort, 'POST', '/ops/v1/articles', OPS_TOKEN, article(written++));
        requests++;
        if (status >= 300) failed++;
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));
    const cpu = clusterCpuSeconds(primary.processes()) - cpuBefore;
    const standbyReads = (await metricValue(port, 'evmon_db_reads_total', `target="${standbyName}"`)) - readsBefore.standby;
    const primaryReads = (await metricValue(port, 'evmon_db_reads_total', 'target="primary"')) - readsBefore.primary;
    return {
      requestsPerSecond: requests / SECONDS,
      failed,
      primaryCpuMsPerRequest: (cpu * 1000) / requests,
      standbyShare: standbyReads + primaryReads === 0 ? null : standbyReads / (standbyReads + primaryReads),
    };
  }
  const withoutStandby = await mixed(plainPort);
  const withStandby = await mixed(replicaPort);

  const cpus = os.cpus();
  const fmt = (ms: number) => ms.toFixed(2);
  console.log(`\nmachine: ${cpus.length} cores (${cpus[0]?.model.trim()}), Node ${process.version}; a primary and a standby of the bench's own (fsync off)`);
  if (DEMO_EVENTS > 0) {
    const [{ live }] = (await primary.admin<{ live: number }>(
      'SELECT count(*)::int AS live FROM events WHERE merged_into_event_id IS NULL AND deleted_at IS NULL',
    )) as [{ live: number }];
    console.log(`demo corpus: ${DEMO_EVENTS} asked, ${live} live events, loaded in ${Math.round(demoSeconds)} s`);
    console.log(`search index built alone: from the primary in ${buildMs.primary} ms, from the standby in ${buildMs.standby} ms`);
  }
  console.log(`${EVENTS} events; ${ROUNDS} rounds of ${READS} reads one at a time per server; mixed load ${CLIENTS} clients × ${SECONDS} s per server`);
  console.log('| GET /v1/events/{id}, one at a time | p50 ms | p99 ms |');
  console.log('| --- | --- | --- |');
  console.log(`| from the primary | ${fmt(one.primary.p50)} | ${fmt(one.primary.p99)} |`);
  console.log(`| from the standby (consistency checked) | ${fmt(one.standby.p50)} | ${fmt(one.standby.p99)} |`);
  console.log(`| added | ${fmt(one.standby.p50 - one.primary.p50)} | ${fmt(one.standby.p99 - one.primary.p99)} |`);
  console.log('');
  console.log("| mixed load | requests/s | failed | primary's CPU ms a request | standby's share of reads |");
  console.log('| --- | --- | --- | --- | --- |');
  for (const [name, result] of [
    ['reads on the primary', withoutStandby],
    ['reads on the standby', withStandby],
  ] as const) {
    console.log(
      `| ${name} | ${Math.round(result.requestsPerSecond)} | ${result.failed} | ${result.primaryCpuMsPerRequest.toFixed(3)} | ${result.standbyShare?.toFixed(3) ?? '–'} |`,
    );
  }
} finally {
  for (const server of servers) await stopServer(server);
  stopAll.abort();
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  fs.rmSync(root, { recursive: true, force: true });
  await insecure.close();
}
