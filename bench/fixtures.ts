// Reference data and set-ups the benchmarks share.
import os from 'node:os';
import { pino } from 'pino';
import { Agent } from 'undici';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { generateDemoCorpus } from '../src/modules/demo/demo-corpus.js';
import { loadTls } from '../src/platform/tls.js';
import { createRuntime, type Runtime } from '../src/runtime.js';
import { benchKeyEnv } from './encryption-key.js';

/** An event type with two entity roles and a price: "{buyer} bought {seller} for {price}". */
export function dealEventType(runtime: Runtime) {
  return runtime.reference.createEventType({
    code_name: `bench_${Date.now()}`,
    name: 'Deal',
    description: '',
    roles: [
      { code_name: 'buyer', name: 'Buyer', expected_type: 'NAMED_ENTITY' },
      { code_name: 'seller', name: 'Seller', expected_type: 'NAMED_ENTITY' },
      { code_name: 'price', name: 'Price', expected_type: 'CURRENCY' },
    ],
    sentence_template: '{buyer} bought {seller} for {price}',
  });
}

/**
 * The service over HTTPS on a random port, on BENCH_DATABASE_URL (default: the embedded
 * database in memory), with a demo corpus of `events` events (seed 42) made first when the
 * database has none, and a one-connection client agent that trusts its certificate.
 */
export async function demoCorpusServer(name: string, events: number) {
  const config = loadConfig({
    EVMON_DATABASE_URL: process.env.BENCH_DATABASE_URL ?? 'memory://',
    ...benchKeyEnv(process.env.BENCH_DATABASE_URL ?? ''),
    EVMON_DATA_DIR: `${os.tmpdir()}/evmon-bench-${name}`,
    EVMON_SEED: 'none',
    EVMON_EDGE_MAX_PER_MINUTE: '0',
  });
  const runtime = await createRuntime(config, pino({ level: 'warn' }));
  const countEvents = async () => (await runtime.db.query<{ n: number }>('SELECT count(*)::int AS n FROM events'))[0]!.n;
  if ((await countEvents()) === 0) {
    process.stderr.write(`generating a demo corpus of ${events} events…\n`);
    await generateDemoCorpus(runtime, { events, seed: 42, batchSize: 2_000 });
  }
  const tls = await loadTls(config);
  const app = await buildApp(runtime, tls);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const agent = new Agent({ connect: { ca: tls.cert, servername: 'localhost' }, connections: 1 });
  return {
    config,
    runtime,
    eventCount: await countEvents(),
    base: `https://127.0.0.1:${(app.server.address() as { port: number }).port}`,
    agent,
    async close() {
      await app.close();
      await runtime.close();
      await agent.close();
    },
  };
}
