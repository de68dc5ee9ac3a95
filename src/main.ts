// Process entry: load config, open the database, build the app, listen, drain on SIGTERM.
import './platform/gc-tuning.js'; // first: it must run before start-up allocates
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { seedDemoAccount, seedDemoCorpusInBackground, type DemoCorpusSeeding } from './modules/demo/demo-seed.js';
import { DataDirLockedError } from './platform/db/data-dir-lock.js';
import { databaseFailure } from './platform/db/failures.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { createLogger } from './platform/logger.js';
import { EncryptionKeyError } from './platform/secret-box.js';
import { loadTls } from './platform/tls.js';
import { createRuntime, type Runtime } from './runtime.js';

/**
 * Waits between start-up attempts while PostgreSQL is unavailable (restarting, or a connection
 * terminated mid-start): about 30 s in all, then start-up stops with the reason.
 */
const START_RETRY_DELAYS_MS = [500, 1_000, 2_000, 4_000, 8_000, 15_000];

/** The runtime, started again while the database is unavailable (nothing was written: a retry is safe). */
async function startRuntime(config: Config, logger: Logger): Promise<Runtime> {
  for (const delay of START_RETRY_DELAYS_MS) {
    try {
      return await createRuntime(config, logger);
    } catch (error) {
      if (config.database.kind !== 'postgres' || databaseFailure(error) !== 'unavailable') throw error;
      logger.warn({ err: error, retryInMs: delay }, 'database unavailable at start-up; trying again');
      await sleep(delay);
    }
  }
  return createRuntime(config, logger);
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel, config.opsToken === null ? [] : [config.opsToken]);

  let runtime: Runtime;
  try {
    runtime = await startRuntime(config, logger);
  } catch (error) {
    if (error instanceof DataDirLockedError || error instanceof EncryptionKeyError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }

  const tls = await loadTls(config);
  logger.info(
    { certificate: tls.certPath, sha256: tls.fingerprint256, generated: tls.generated },
    tls.generated ? 'generated a self-signed TLS certificate' : 'TLS certificate loaded',
  );

  // The demo account first (quick), so its key works as soon as the server is ready; the
  // corpus after listening, in the background.
  const demo = config.seed === 'demo' ? await seedDemoAccount(runtime) : null;

  const app = await buildApp(runtime, tls);
  let demoCorpus: DemoCorpusSeeding | null = null;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'draining');
    try {
      await app.close(); // stops accepting, lets in-flight requests finish (before listening: closes the app)
      await demoCorpus?.stop(); // between two batches; what is loaded stays
      await runtime.close(); // waits for running jobs, closes the database
      logger.info('stopped');
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'unclean shutdown');
      process.exit(1);
    }
  };
  // Before any background work starts, so a signal during the warm-up drains it too.
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  // The background work first: its first rounds (job and delivery claims, on tables nothing
  // has read yet) then run beside the warm-up, not beside the first requests. On the embedded
  // database they would hold its one connection while those requests wait.
  runtime.startBackground();
  await runtime.warmUp();
  if (stopping) return; // a signal came during the warm-up: stop() drains and ends the process
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    // Nothing will serve (the port is taken, say): the background work stops cleanly before the process ends.
    await runtime.close().catch((closing) => logger.error({ err: closing }, 'unclean shutdown'));
    throw error;
  }
  const { port } = app.server.address() as { port: number };
  logger.info({ port, storage: runtime.db.kind, role: config.role, testClock: config.testClock, opsApi: config.opsToken !== null }, 'ready');
  if (demo) {
    // Printed to the terminal once, on purpose: this is the only time the raw key exists.
    process.stdout.write(demo.banner);
    demoCorpus = seedDemoCorpusInBackground(runtime);
  }
}

main().catch((error) => {
  process.stderr.write(`evmon failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
