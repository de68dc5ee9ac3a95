// The instructions per request of GET /v1/sensors in the service and in the bare route running
// the same query (bench/bare-server.ts), counted by valgrind's callgrind over exactly
// BENCH_REQUESTS requests after BENCH_WARM ones. Unlike CPU seconds, a count does not move with
// other load on the machine, so it says whether the service does more work per request or does
// the same work slower (caches: more cycles per instruction), which sensors-throughput cannot.
// Both servers run at once (8 connections each), under valgrind about 50 times slower; the
// service without background work, which would otherwise weigh 50 times as much per request.
// Also prints the functions whose instructions differ most (JIT code named through V8's perf
// map; what is left unnamed is mostly the embedded database's WebAssembly).
//
//   npx tsx bench/request-instructions.ts                               embedded database
//   BENCH_DATABASE_URL=postgres://… npx tsx bench/request-instructions.ts
//   BENCH_WARM=12000 BENCH_REQUESTS=4000 (the defaults: a shorter warm-up still counts compilation)
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { benchKey, post, ROOT, serverEnv, waitReady } from './servers.js';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'memory://';
const WARM = Number(process.env.BENCH_WARM ?? 12_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4_000);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'evmon-instr-'));

/** `node --import tsx script` under callgrind, counting nothing until told to. */
function underCallgrind(script: string, env: Record<string, string>, name: string): ChildProcess {
  const args = ['--tool=callgrind', '--instr-atstart=no', '--smc-check=all-non-file', `--callgrind-out-file=${path.join(dataDir, `${name}.callgrind`)}`];
  return spawn('valgrind', [...args, process.execPath, '--perf-basic-prof', '--import', 'tsx', script], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', fs.openSync(path.join(dataDir, `${name}.valgrind.log`), 'w')],
  });
}

const fire = (port: number, headers: Record<string, string>, amount: number) =>
  autocannon({ url: `https://127.0.0.1:${port}/v1/sensors`, connections: 8, amount, headers, timeout: 120 });

/** Self instructions per function over the counted requests (valgrind keeps the pid: it execs node). */
async function count(name: string, port: number, server: ChildProcess, headers: Record<string, string>) {
  const warm = await fire(port, headers, WARM);
  const control = (option: string) => execFileSync('callgrind_control', [option, String(server.pid)], { stdio: 'ignore' });
  control('-z');
  control('--instr=on');
  const counted = await fire(port, headers, REQUESTS);
  control('--instr=off');
  control('-d');
  if (warm.non2xx + counted.non2xx + counted.errors > 0) throw new Error(`${name}: non-2xx answers`);
  const dump = fs
    .readdirSync(dataDir)
    .filter((file) => file.startsWith(`${name}.callgrind.`))
    .sort()
    .at(-1)!;
  return selfCosts(fs.readFileSync(path.join(dataDir, dump), 'utf8'), server.pid!, counted.requests.total);
}

/** Parses a callgrind dump: instructions per request by function, JIT addresses named from /tmp/perf-<pid>.map. */
function selfCosts(text: string, pid: number, requests: number): Map<string, number> {
  const jit = fs
    .readFileSync(`/tmp/perf-${pid}.map`, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [start, size, ...name] = line.split(' ');
      return { start: Number.parseInt(start!, 16), end: Number.parseInt(start!, 16) + Number.parseInt(size!, 16), name: name.join(' ') };
    })
    .sort((a, b) => a.start - b.start);
  const nameOf = (fn: string) => {
    const address = /^0x([0-9a-f]+)/.exec(fn);
    if (!address) return fn;
    const at = Number.parseInt(address[1]!, 16);
    let [low, high] = [0, jit.length - 1];
    while (low <= high) {
      const mid = (low + high) >> 1;
      if (jit[mid]!.start <= at) low = mid + 1;
      else high = mid - 1;
    }
    return high >= 0 && at < jit[high]!.end ? jit[high]!.name : '(unnamed JIT code: WebAssembly)';
  };
  const names = new Map<string, string>();
  const costs = new Map<string, number>();
  let current = '';
  let callCost = false; // the line after `calls=` is a call's inclusive cost, not the caller's own
  for (const line of text.split('\n')) {
    const named = /^c?fn=\((\d+)\)(?: (.*))?$/.exec(line);
    if (named) {
      if (named[2] !== undefined) names.set(named[1]!, named[2]);
      if (line.startsWith('fn=')) current = nameOf(names.get(named[1]!)!);
    } else if (line.startsWith('calls=')) callCost = true;
    else if (/^[0-9+\-*]/.test(line)) {
      if (callCost) callCost = false;
      else costs.set(current, (costs.get(current) ?? 0) + Number(line.split(' ')[1] ?? 0) / requests);
    }
  }
  return costs;
}

const servicePort = 19643;
const service = underCallgrind(
  'bench/evmon-server.ts',
  {
    ...serverEnv(servicePort, dataDir, DATABASE_URL),
    BENCH_BACKGROUND: '0',
  },
  'service',
);
const barePort = 19644;
let bare: ChildProcess | null = null;
try {
  await waitReady(service, servicePort, '/readyz', 6000);
  const key = await benchKey(servicePort, ['SENSORS_READ', 'SENSORS_WRITE']);
  for (let i = 0; i < 5; i++) {
    await post(servicePort, '/v1/sensors', key, {
      name: `sensor ${i}`,
      filter: { required_source_news_outlet_ids: [randomUUID()] },
      actions: [{ type: 'webhook', url: `https://example.com/hooks/${i}` }],
    });
  }
  bare = underCallgrind(
    'bench/bare-server.ts',
    { BENCH_DATA_DIR: dataDir, BENCH_PORT: String(barePort), BENCH_DATABASE_URL: DATABASE_URL, BENCH_SENSORS: '5' },
    'bare',
  );
  await waitReady(bare, barePort, '/v1/sensors', 6000);
  const [ours, baseline] = await Promise.all([count('service', servicePort, service, { authorization: `Bearer ${key}` }), count('bare', barePort, bare, {})]);
  const total = (costs: Map<string, number>) => [...costs.values()].reduce((a, b) => a + b, 0);
  const storage = DATABASE_URL.startsWith('postgres') ? 'PostgreSQL' : 'PGlite';
  console.log(`storage: ${storage}; ${WARM} requests of warm-up, ${REQUESTS} counted, 8 connections each, ${process.version}`);
  console.log(
    `instructions per request: service ${total(ours).toFixed(0)}, bare route ${total(baseline).toFixed(0)}, ratio ${(total(baseline) / total(ours)).toFixed(3)}`,
  );
  console.log('the largest differences per request (service minus bare, service, bare, function):');
  const functions = [...new Set([...ours.keys(), ...baseline.keys()])].map((fn) => ({ fn, a: ours.get(fn) ?? 0, b: baseline.get(fn) ?? 0 }));
  for (const { fn, a, b } of functions.sort((x, y) => Math.abs(y.a - y.b) - Math.abs(x.a - x.b)).slice(0, 25)) {
    console.log(`${(a - b).toFixed(0).padStart(9)} ${a.toFixed(0).padStart(9)} ${b.toFixed(0).padStart(9)}  ${fn.slice(0, 140)}`);
  }
} finally {
  service.kill('SIGKILL');
  bare?.kill('SIGKILL');
  for (const child of [service, bare]) if (child?.pid) fs.rmSync(`/tmp/perf-${child.pid}.map`, { force: true });
  fs.rmSync(dataDir, { recursive: true, force: true });
}
