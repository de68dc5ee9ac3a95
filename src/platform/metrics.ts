// The service's metrics, answered by GET /ops/v1/metrics in the Prometheus text format for the
// process that serves it (operations.md). One registry per runtime, never prom-client's global
// one, so that several servers in one process (the tests) keep theirs apart.
//
// Every metric is declared here with its meaning (README.md, "Metrics", lists the same).
// Counters and histograms move where the thing happens, through the narrow callbacks the
// composition root hands the modules; the gauges of backlogs and pools are read when scraped.
// Durations are measured with the monotonic clock (Fastify's reply.elapsedTime) or the
// database's; ages of backlogs follow the service's clock, like the due times they start from.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PoolUse } from './db/database.js';
import type { StandbyReads } from './db/standby-reads.js';
import type { JobBacklog } from './jobs.js';

/** What the gauges read at each scrape. */
export interface ScrapeSources {
  jobs(): Promise<JobBacklog[]>;
  deliveries(): Promise<{ due: number; scheduled: number; oldestDueSeconds: number }>;
  /** The database pools by name (`main`, and `counters` on PostgreSQL). */
  pools: Record<string, { poolUse(): PoolUse }>;
  /** The standbys reads go to (EVMON_DATABASE_REPLICA_URLS), if any. */
  standbys?: Pick<StandbyReads, 'standbys' | 'primaryReads'> | null;
}

/** A committed ledger row as the credit counters read it: charges are negative. */
interface LedgerEntry {
  amount: number;
  kind: string;
}

/** Requests that matched no route are labelled with this instead of their URL. */
export const UNMATCHED_ROUTE = 'unmatched';

const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const LAG_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];
const ATTEMPT_OUTCOMES = { SUCCEEDED: 'succeeded', PENDING: 'retry_scheduled', FAILED: 'failed' } as const;

export function serviceMetrics(sources: ScrapeSources) {
  const registry = new Registry();
  // Process memory, CPU, event-loop delay, garbage collection, handles.
  collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const requests = new Histogram({
    name: 'evmon_http_request_duration_seconds',
    help: 'HTTP requests answered, by method, route pattern and status code: seconds from arrival to the answer sent',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: REQUEST_BUCKETS,
    registers,
  });
  const charged = new Counter({
    name: 'evmon_credits_charged_total',
    help: 'Credits taken from account balances, by ledger kind (SEARCH, BEAT_ENTRY, operator ADJUSTMENT)',
    labelNames: ['kind'] as const,
    registers,
  });
  const granted = new Counter({ name: 'evmon_credits_granted_total', help: 'Credits added to account balances by the operator', registers });
  const jobsBacklog = new Gauge({
    name: 'evmon_jobs_backlog',
    help: 'Background jobs due now and not yet started, by kind (every process sharing the database)',
    labelNames: ['kind'] as const,
    registers,
  });
  const jobsAge = new Gauge({
    name: 'evmon_jobs_backlog_age_seconds',
    help: 'How long the oldest job due and not yet started has been due, by kind; 0 when none is',
    labelNames: ['kind'] as const,
    registers,
  });
  const jobsRunning = new Gauge({
    name: 'evmon_jobs_running',
    help: 'Background jobs running now, by kind (every process sharing the database)',
    labelNames: ['kind'] as const,
    registers,
  });
  const attempts = new Counter({
    name: 'evmon_webhook_attempts_total',
    help: 'Webhook delivery attempts this process made, by outcome: succeeded, retry_scheduled (failed, to be retried), failed (no retry left)',
    labelNames: ['outcome'] as const,
    registers,
  });
  const deliveryBacklog = new Gauge({
    name: 'evmon_webhook_backlog',
    help: 'Webhook targets not yet settled, by state: due (waiting for or in an attempt), scheduled (a retry later)',
    labelNames: ['state'] as const,
    registers,
  });
  const deliveryAge = new Gauge({
    name: 'evmon_webhook_backlog_age_seconds',
    help: 'How long the oldest due webhook target has been due (state due); 0 when none is',
    labelNames: ['state'] as const,
    registers,
  });
  const poolTotal = new Gauge({ name: 'evmon_db_pool_connections', help: 'Database connections open, by pool', labelNames: ['pool'] as const, registers });
  const poolIdle = new Gauge({
    name: 'evmon_db_pool_idle_connections',
    help: 'Open database connections doing nothing, by pool',
    labelNames: ['pool'] as const,
    registers,
  });
  const poolWaiting = new Gauge({
    name: 'evmon_db_pool_waiting_clients',
    help: 'Queries and transactions waiting for a database connection, by pool',
    labelNames: ['pool'] as const,
    registers,
  });
  const standbyLag = new Gauge({
    name: 'evmon_db_standby_lag_bytes',
    help: 'Bytes of WAL a standby had not replayed at its last check, by standby (absent while it cannot be reached)',
    labelNames: ['standby'] as const,
    registers,
  });
  const standbyInUse = new Gauge({
    name: 'evmon_db_standby_in_use',
    help: 'Whether a standby serves reads now (1) or is left out until it catches up (0), by standby',
    labelNames: ['standby'] as const,
    registers,
  });
  const reads = new Counter({
    name: 'evmon_db_reads_total',
    help: 'Reads that take no lock, by where they ran: a standby, or the primary (with standbys configured)',
    labelNames: ['target'] as const,
    registers,
  });
  const readsCounted = new Map<string, number>();
  const lag = new Histogram({
    name: 'evmon_event_change_lag_seconds',
    help: 'Seconds from an event change being stored to a subscriber (sensors, beats) being done with it, by subscriber; observed by the process that ran it',
    labelNames: ['subscriber'] as const,
    buckets: LAG_BUCKETS,
    registers,
  });

  // Series that exist before their first event, so rates start from zero rather than from nothing.
  for (const kind of ['SEARCH', 'BEAT_ENTRY', 'ADJUSTMENT']) charged.inc({ kind }, 0);
  for (const outcome of Object.values(ATTEMPT_OUTCOMES)) attempts.inc({ outcome }, 0);

  /**
   * A backlog the database cannot tell now (it is unreachable, say) is left out of the scrape
   * rather than shown at its last value; the rest, process metrics included, is still answered.
   */
  async function readGauges(): Promise<void> {
    const [jobs, deliveries] = await Promise.allSettled([sources.jobs(), sources.deliveries()]);
    for (const gauge of [jobsBacklog, jobsRunning, jobsAge, deliveryBacklog, deliveryAge]) gauge.reset();
    if (jobs.status === 'fulfilled') {
      for (const { kind, due, running, oldestDueSeconds } of jobs.value) {
        jobsBacklog.set({ kind }, due);
        jobsRunning.set({ kind }, running);
        jobsAge.set({ kind }, oldestDueSeconds);
      }
    }
    if (deliveries.status === 'fulfilled') {
      deliveryBacklog.set({ state: 'due' }, deliveries.value.due);
      deliveryBacklog.set({ state: 'scheduled' }, deliveries.value.scheduled);
      deliveryAge.set({ state: 'due' }, deliveries.value.oldestDueSeconds);
    }
    if (sources.standbys) {
      standbyLag.reset();
      const standbys = sources.standbys.standbys();
      const targets = [...standbys.map((standby) => [standby.name, standby.reads] as const), ['primary', sources.standbys.primaryReads()] as const];
      for (const standby of standbys) {
        if (standby.lagBytes !== null) standbyLag.set({ standby: standby.name }, standby.lagBytes);
        standbyInUse.set({ standby: standby.name }, standby.inUse ? 1 : 0);
      }
      // The counts are kept where the reads run; the counter takes what came since the last scrape.
      for (const [target, count] of targets) {
        reads.inc({ target }, count - (readsCounted.get(target) ?? 0));
        readsCounted.set(target, count);
      }
    }
    for (const [pool, database] of Object.entries(sources.pools)) {
      const use = database.poolUse();
      poolTotal.set({ pool }, use.total);
      poolIdle.set({ pool }, use.idle);
      poolWaiting.set({ pool }, use.waiting);
    }
  }

  return {
    /** `text/plain; version=0.0.4; charset=utf-8` */
    contentType: registry.contentType,

    /** The text exposition of every metric, the gauges read now. */
    async scrape(): Promise<string> {
      await readGauges();
      return registry.metrics();
    },

    /** One answered request; `route` is the route's pattern, never the URL. */
    request(method: string, route: string, statusCode: number, seconds: number): void {
      // About a microsecond; a cache of labelled children measured slower (prom-client
      // validates and hashes the labels on every observation either way).
      requests.observe({ method, route, status_code: String(statusCode) }, seconds);
    },

    /** Ledger rows that have committed. */
    ledger(rows: readonly LedgerEntry[]): void {
      for (const { amount, kind } of rows) {
        if (amount < 0) charged.inc({ kind }, -amount);
        else if (amount > 0) granted.inc(amount);
      }
    },

    /** One webhook attempt's outcome. */
    webhookAttempt(status: keyof typeof ATTEMPT_OUTCOMES): void {
      attempts.inc({ outcome: ATTEMPT_OUTCOMES[status] });
    },

    /** A subscriber done with an event change, `seconds` after it was stored. */
    eventChangeDone(subscriber: string, seconds: number): void {
      lag.observe({ subscriber }, seconds);
    },
  };
}

export type ServiceMetrics = ReturnType<typeof serviceMetrics>;
