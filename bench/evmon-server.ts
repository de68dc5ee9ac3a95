// The server as src/main.ts runs it (same config, logger, app and background work), with the
// request metrics on or off (BENCH_REQUEST_METRICS=0), for bench/metrics-overhead.ts; without
// background work (BENCH_BACKGROUND=0) for bench/request-instructions.ts, where a process runs
// fifty times slower under valgrind and its timers would weigh fifty times as much per request.
import '../src/platform/gc-tuning.js'; // first, as in src/main.ts
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/platform/logger.js';
import { loadTls } from '../src/platform/tls.js';
import { createRuntime } from '../src/runtime.js';

const config = loadConfig();
const runtime = await createRuntime(config, createLogger(config.logLevel));
const app = await buildApp(runtime, await loadTls(config), { requestMetrics: process.env.BENCH_REQUEST_METRICS !== '0' });
await app.listen({ port: config.port, host: config.host });
if (process.env.BENCH_BACKGROUND !== '0') runtime.startBackground();
process.on('SIGTERM', () => void app.close().then(() => runtime.close().then(() => process.exit(0))));
