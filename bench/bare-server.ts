// The baseline: a bare Fastify HTTPS route (HTTP/2 with HTTP/1.1, same certificate) for
// GET /v1/sensors, or with BENCH_ROUTE=event GET /v1/events/{id} over the corpus of
// BENCH_DATABASE_URL (an embedded one in BENCH_BARE_DATA_DIR, a copy of the service's), with
// no auth, budgets, hooks or logging.
//
// With BENCH_DATABASE_URL it runs the same query as the service's route: it opens the
// database as the service does (its own folder for the embedded database, the same schema
// on PostgreSQL), makes an account with BENCH_SENSORS sensors, and answers the service's
// list of them (the same store call and view) as plain JSON. Without it, it answers a
// constant empty list (the guard over a stub).
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Fastify from 'fastify';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { createRuntime } from '../src/runtime.js';
import { benchKeyEnv } from './encryption-key.js';

const dataDir = process.env.BENCH_DATA_DIR!;
const databaseUrl = process.env.BENCH_DATABASE_URL;
const app = Fastify({
  http2: true,
  https: {
    allowHTTP1: true,
    cert: fs.readFileSync(path.join(dataDir, 'tls', 'cert.pem')),
    key: fs.readFileSync(path.join(dataDir, 'tls', 'key.pem')),
  },
});
// The event route always reads a corpus: on BENCH_DATABASE_URL, or (empty) the embedded one of BENCH_BARE_DATA_DIR.
if (databaseUrl || process.env.BENCH_ROUTE === 'event') {
  const config = loadConfig({
    ...(databaseUrl ? { EVMON_DATABASE_URL: databaseUrl } : {}),
    ...benchKeyEnv(databaseUrl ?? ''),
    EVMON_DATA_DIR: process.env.BENCH_BARE_DATA_DIR ?? path.join(dataDir, 'bare'),
    EVMON_SEED: 'none',
    EVMON_LOG_LEVEL: 'warn',
  });
  const runtime = await createRuntime(config, pino({ level: 'warn' }));
  if (process.env.BENCH_ROUTE === 'event') {
    // GET /v1/events/{id} over a corpus already loaded: the service's read of one event.
    app.get('/v1/events/:id', (request) => runtime.eventReads.get((request.params as { id: string }).id));
  } else {
    const account = await runtime.accounts.createAccount({ plan: 'standard' });
    for (let i = 0; i < Number(process.env.BENCH_SENSORS ?? 5); i++) {
      await runtime.sensors.create(account.id, {
        name: `sensor ${i}`,
        filter: { required_source_news_outlet_ids: [randomUUID()] },
        actions: [{ type: 'webhook', url: `https://example.com/hooks/${i}` }],
      } as never);
    }
    app.get('/v1/sensors', () => runtime.sensors.list(account.id, { limit: 20 }));
  }
  app.addHook('onClose', () => runtime.close());
} else {
  app.get('/v1/sensors', async () => ({ object: 'list', data: [], has_more: false, next_cursor: null }));
}
await app.listen({ port: Number(process.env.BENCH_PORT), host: '127.0.0.1' });
process.stdout.write('ready\n');
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
