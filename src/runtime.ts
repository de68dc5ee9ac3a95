// The composition root: every outside capability (database, clock, background work, rate
// counters) is made here once and passed by hand to the services, the HTTP app and the CLI.
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { accountsService, type AccountsService } from './modules/accounts/accounts.service.js';
import { eventChanges, REFRESH_EVENTS_JOB, type EventChanges } from './modules/corpus/event-changes.js';
import { type EventReads, eventReads as eventReadsOf } from './modules/corpus/event-reads.js';
import { revisionsKeptSince } from './modules/corpus/event-revisions.js';
import { eventRevisionsStore } from './modules/corpus/event-revisions.store.js';
import { beatEntriesService, type BeatEntriesService } from './modules/beats/beat-entries.service.js';
import { BEAT_BACKFILL_JOB, beatRecording } from './modules/beats/beat-recording.js';
import { beatsService, type BeatsService } from './modules/beats/beats.service.js';
import { eventsService, type EventsService } from './modules/corpus/events.service.js';
import { referenceService, type ReferenceService } from './modules/corpus/reference.service.js';
import { consoleSessions, type ConsoleSessions } from './console/console-sessions.js';
import { consoleUsers, type ConsoleUsers } from './console/console-users.js';
import { keyAuthenticator, type KeyAuthenticator } from './modules/accounts/key-authenticator.js';
import { selfService, type SelfService } from './modules/accounts/self-service.js';
import { manualClock, systemClock, type Clock } from './platform/clock.js';
import type { Database } from './platform/db/database.js';
import { migrate } from './platform/db/migrate.js';
import { openDatabase } from './platform/db/open.js';
import { openPostgres } from './platform/db/postgres.js';
import { standbyReads } from './platform/db/standby-reads.js';
import { idGenerator, type IdGenerator } from './platform/ids.js';
import { jobQueue, type JobQueue } from './platform/jobs.js';
import { memoryCounterStore } from './platform/rate-limits/counter-store.js';
import { postgresCounterStore } from './platform/rate-limits/postgres-counter-store.js';
import { rateLimiter, type RateLimiter } from './platform/rate-limits/rate-limiter.js';
import { loadSecretBox } from './platform/encryption-key.js';
import { retentionSweeper, type RetentionSweeper } from './platform/retention.js';
import { loadSecret } from './platform/secret.js';
import { testHold } from './platform/test-hold.js';
import { serviceMetrics, type ServiceMetrics } from './platform/metrics.js';
import { cursorSigner } from './platform/cursors.js';
import { idempotencyClaims, type IdempotencyClaims } from './platform/idempotency-claims.js';
import { requestsInFlight, type RequestsInFlight } from './platform/requests-in-flight.js';
import { foldDayCounts } from './modules/search/index/day-counts.js';
import { memoryIndexSync, type MemoryIndexSync } from './modules/search/index/memory-index-sync.js';
import { purgeSearchLog } from './modules/search/index/memory-index.store.js';
import { searchService, type SearchPausePoint, type SearchService } from './modules/search/search.service.js';
import { grantsService, type GrantsService } from './modules/reporting/grants.service.js';
import { PROCESS_REPORT_JOB, reportsService, type ReportsService } from './modules/reporting/reports.service.js';
import { sensorMatching } from './modules/sensors/sensor-matching.js';
import { sensorSecrets, type SensorSecrets } from './modules/sensors/sensor-secrets.js';
import { sensorsService, type SensorsService } from './modules/sensors/sensors.service.js';
import { PER_HOST_RUNNING, webhookDispatcher, type WebhookDispatcher } from './modules/webhooks/dispatcher.js';
import { deliveryOutbox } from './modules/webhooks/outbox.js';
import { webhookTransport } from './modules/webhooks/webhook-transport.js';

export interface Runtime {
  config: Config;
  logger: Logger;
  db: Database;
  clock: Clock;
  newId: IdGenerator;
  secret: string;
  jobs: JobQueue;
  limiter: RateLimiter;
  keys: KeyAuthenticator;
  accounts: AccountsService;
  self: SelfService;
  consoleUsers: ConsoleUsers;
  sessions: ConsoleSessions;
  reference: ReferenceService;
  changes: EventChanges;
  events: EventsService;
  eventReads: EventReads;
  claims: IdempotencyClaims;
  search: SearchService;
  /** This process's search index in memory (built and caught up by startBackground). */
  searchIndex: MemoryIndexSync;
  /** The requests this process serves now: counted by the web layer, read by the index's build. */
  requestsInFlight: RequestsInFlight;
  sensors: SensorsService;
  /** Webhook signing secrets at rest: sealing, and re-encryption after a key rotation. */
  sensorSecrets: SensorSecrets;
  webhooks: WebhookDispatcher;
  beats: BeatsService;
  beatEntries: BeatEntriesService;
  grants: GrantsService;
  reports: ReportsService;
  retention: RetentionSweeper;
  metrics: ServiceMetrics;
  /**
   * Runs every piece of background work due now: jobs (matching among them), webhook
   * attempts, then the retention sweeps. In the api role it runs none and waits for the
   * workers to.
   */
  drain(): Promise<void>;
  /**
   * Before a server listens: its search index loaded from the file it saved (a build, when
   * there is none to load, runs on in the background) and the widest search read once, so the
   * first searches after a restart find everything warm. Never fails: what it could not do
   * (logged) happens with the first searches instead.
   */
  warmUp(): Promise<void>;
  /** Starts background work (job polling, retention sweeps); in the api role only its own counter pruning. The CLI never calls it. */
  startBackground(): void;
  close(): Promise<void>;
}

const SWEEP_INTERVAL_MS = 60_000;

export async function createRuntime(config: Config, logger: Logger): Promise<Runtime> {
  const opened = await openDatabase(config.database);
  // Processes that serve requests read from the standbys, when there are any (operations.md,
  // "Read replicas"); a worker's reads are its claims', on the primary.
  const replicaUrls = config.database.kind === 'postgres' ? (config.database.replicaUrls ?? []) : [];
  const standbys = replicaUrls.length > 0 && config.role !== 'worker' ? standbyReads(opened.db, replicaUrls, logger) : null;
  const db: Database = standbys ? { ...opened.db, reads: standbys.reads } : opened.db;
  let secrets: SensorSecrets;
  let secret: Awaited<ReturnType<typeof loadSecret>>;
  // Alone on the embedded database, this process owns every counter: memory is exact and
  // free. Processes sharing PostgreSQL share counters there, on connections of their own that
  // do not wait for the WAL flush: a counter lost in a database crash costs nothing.
  let counterDb: Database | null = null;
  // Whatever fails while starting closes what was opened: main.ts starts again while the
  // database is unavailable, and each failed attempt would otherwise leave its pools open.
  try {
    const applied = await migrate(db);
    if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');
    // After the data folder's lock is held: the key file is made by one process at a time.
    secrets = sensorSecrets({ db, box: loadSecretBox(config, logger), logger });
    await secrets.prepare();
    if (config.database.kind === 'postgres') counterDb = await openPostgres(config.database.url, { poolSize: 2, settings: { synchronous_commit: 'off' } });
    secret = await loadSecret(db, config.secret);
  } catch (error) {
    await counterDb?.close();
    await opened.close();
    throw error;
  }
  standbys?.start();

  const clock = config.testClock ? manualClock(systemClock().now()) : systemClock();
  const newId = idGenerator(clock);
  const jobs = jobQueue(db, clock, logger);
  const counters = counterDb ? postgresCounterStore(counterDb) : memoryCounterStore();
  const limiter = rateLimiter(counters, clock, { maxPerMinute: config.edgeMaxPerMinute, banSeconds: config.edgeBanSeconds });
  // The gauges read the job queue and the outbox (made below) when scraped.
  const metrics = serviceMetrics({
    jobs: () => jobs.backlog(),
    deliveries: () => webhooks.backlog(),
    pools: counterDb ? { main: db, counters: counterDb } : { main: db },
    standbys,
  });
  const onLedger = metrics.ledger;
  const cursors = cursorSigner(secret);
  const claims = idempotencyClaims(db, clock);

  // Each module after the modules it is handed.
  const keys = keyAuthenticator(db, clock);
  const accounts = accountsService({ db, clock, newId, keyCache: keys, onLedger });
  const self = selfService({ db, clock });
  const users = consoleUsers({ db, clock, newId });
  const sessions = consoleSessions({ db, clock, newId });

  if (config.webhookAllowPrivate) {
    // The address rule is what keeps customers' webhooks off the operator's own network.
    logger.warn(
      'EVMON_WEBHOOK_ALLOW_PRIVATE=1 lifts the webhook address rule: deliveries may reach private, loopback and link-local addresses; never set it on a server customers reach',
    );
  }
  const transport = webhookTransport({ allowPrivate: config.webhookAllowPrivate, connectionsPerHost: PER_HOST_RUNNING });
  const webhooks = webhookDispatcher({ db, clock, logger, transport, openSecret: secrets.open, onAttempt: metrics.webhookAttempt });
  const outbox = deliveryOutbox({ db, clock, wake: () => webhooks.wake() });
  const sensors = sensorsService({ db, clock, newId, outbox, allowPrivateWebhooks: config.webhookAllowPrivate, secrets });

  // Saved in the data folder at each stop, to load at the next start (not for a database in memory).
  const searchIndexFile = config.database.kind === 'pglite-memory' ? null : path.join(config.dataDir, 'search-index', 'index.v8');
  // The index's build gives way to the requests it shares the thread with (app.ts counts them).
  const inFlight = requestsInFlight();
  const searchIndex = memoryIndexSync(db, logger, { file: searchIndexFile, requestsWaiting: inFlight.any });
  const search = searchService({ db, clock, newId, cursors, onLedger, index: searchIndex, ...testPause(config, logger) });
  const beats = beatsService({ db, clock, newId, jobs });
  const beatEntries = beatEntriesService({ db, clock, cursors });
  const recording = beatRecording({ db, clock, newId, onLedger });

  // The corpus hands every event change to these subscribers, each with a durable job of its own.
  const changes = eventChanges(
    jobs,
    {
      sensors: sensorMatching({ db, clock, newId, outbox, jobs }),
      beats: recording.onEventChange,
    },
    metrics.eventChangeDone,
    clock,
  );
  const events = eventsService({ db, clock, newId, changes, logger });
  const eventReads = eventReadsOf({ db, clock });
  const reference = referenceService({ db, clock, newId, jobs });
  const grants = grantsService({ db, clock, newId });
  const reports = reportsService({ db, clock, newId, jobs, grants, events });
  // Background work that one module enqueues and another does.
  jobs.register(REFRESH_EVENTS_JOB, events.refreshEvents); // enqueued by entity merges and deletions (reference)
  jobs.register(BEAT_BACKFILL_JOB, recording.backfill); // enqueued by beat creation
  jobs.register(PROCESS_REPORT_JOB, reports.process); // enqueued by report filing

  // What each table keeps, and for how long, is its owning module's (docs/api-reference.md, "Retention").
  const retention = retentionSweeper({ logger, clock, embedded: db.kind === 'pglite' ? db : null }, [
    { name: 'rate counters', tables: [], run: () => limiter.sweep().then(() => 0) }, // in memory on the embedded database
    { name: 'idempotency claims', tables: ['idempotency_claims'], run: claims.sweep },
    { name: 'search executions', tables: ['search_executions'], run: search.sweep },
    { name: 'event revisions', tables: ['event_revisions'], run: () => eventRevisionsStore.sweep(db, revisionsKeptSince(clock.nowMs())) },
    { name: 'finished jobs', tables: ['jobs'], run: jobs.sweep },
    { name: 'webhook deliveries', tables: ['sensor_deliveries', 'sensor_delivery_targets'], run: outbox.sweep },
    { name: 'console sessions', tables: ['console_sessions'], run: sessions.sweepSessions },
    { name: 'console sign-in failures', tables: ['console_sign_in_failures'], run: sessions.sweepSignInFailures },
    { name: 'event day count deltas', tables: ['event_day_counts'], run: () => foldDayCounts(db) }, // folded, not expired
    { name: 'search index log', tables: ['event_search_log'], run: () => purgeSearchLog(db) }, // on the database's clock: a margin in real time
  ]);

  let sweepTimer: NodeJS.Timeout | null = null;

  return {
    config,
    logger,
    db,
    clock,
    newId,
    secret,
    jobs,
    limiter,
    keys,
    accounts,
    self,
    consoleUsers: users,
    sessions,
    reference,
    changes,
    events,
    eventReads,
    claims,
    search,
    searchIndex,
    requestsInFlight: inFlight,
    sensors,
    sensorSecrets: secrets,
    webhooks,
    beats,
    beatEntries,
    grants,
    reports,
    retention,
    metrics,
    async drain() {
      const runHere = config.role !== 'api';
      await jobs.drain({ runHere });
      await webhooks.drain({ runHere });
      if (runHere) await retention.sweep();
    },
    async warmUp() {
      const started = performance.now();
      await searchIndex.start();
      if (config.role === 'worker') return; // it answers no search
      try {
        await keys.warmUp();
        await search.warmUp();
        logger.info({ ms: Math.round(performance.now() - started) }, 'search warmed up');
      } catch (error) {
        logger.warn({ err: error }, 'warming up the search failed; the first searches read cold');
      }
    },
    startBackground() {
      void searchIndex.start(); // every role answers searches (warmUp waits for the same start)
      if (config.role === 'api') {
        // An api process only stores jobs and deliveries; workers find them by polling (its
        // wake-ups reach pollers that never start) and run the retention sweeps. It keeps the
        // rate-counter sweep: its own memory would otherwise grow without end (on PostgreSQL
        // the sweep deletes expired shared counters, which any process may do).
        sweepTimer = setInterval(() => limiter.sweep().catch((error) => logger.warn({ err: error }, 'rate counter sweep failed')), SWEEP_INTERVAL_MS);
        sweepTimer.unref();
        return;
      }
      if (db.kind === 'pglite') {
        void jobs
          .releaseOrphans()
          .then((n) => n > 0 && logger.warn({ jobs: n }, 'released jobs left running by a previous process'))
          .catch((error) => logger.warn({ err: error }, 'releasing jobs left running by a previous process failed; their leases will lapse'));
      }
      jobs.start();
      void webhooks.start().catch((error) => logger.error({ err: error }, 'starting webhook deliveries failed'));
      sweepTimer = setInterval(retention.tick, SWEEP_INTERVAL_MS);
      sweepTimer.unref();
    },
    async close() {
      if (sweepTimer) clearInterval(sweepTimer);
      await retention.idle();
      await searchIndex.close();
      await jobs.stop();
      await webhooks.stop();
      await limiter.close();
      await events.close();
      await counterDb?.close();
      await standbys?.close();
      await opened.close();
    },
  };
}

/** EVMON_TEST_SEARCH_PAUSE: a search waits at one point long enough for a test to kill the process. */
function testPause(config: Config, logger: Logger): { pause?: (point: SearchPausePoint) => Promise<void> } {
  const at = config.testSearchPause;
  if (at === null) return {};
  return { pause: async (point) => (point === at ? testHold(logger, point) : undefined) };
}
