// Runs the delivery outbox: claims due targets, attempts them concurrently with a bound per
// target host, and writes outcomes in batches.
//
// - A claim is a lease under FOR UPDATE SKIP LOCKED, so with several processes each attempt
//   is made once; outcomes are written only while the lease is this worker's.
// - A slow or dead receiver holds at most PER_HOST_RUNNING attempts and as many waiting (claims
//   take per host only the room it has left), so other receivers and ingestion go on.
// - Due times follow the injected clock; leases the database's (see jobs.ts for why).
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/database.js';
import { AddressRefusedError } from './address-policy.js';
import { poller } from '../../platform/poller.js';
import { UnreadableSecretError } from '../../platform/secret-box.js';
import { outboxStore as store, type AttemptOutcome, type ClaimedTarget } from './outbox.store.js';
import { retryDelayMs } from './retry-schedule.js';
import { signedHeaders } from './webhook-signer.js';
import type { WebhookTransport } from './webhook-transport.js';

export const PER_HOST_RUNNING = 32;
const PER_HOST_HELD = PER_HOST_RUNNING * 2;
const MAX_HELD = 512;
/** Longer than an attempt can wait for its host plus the attempt itself. */
const LEASE_SECONDS = 120;
const POLL_INTERVAL_MS = 250;
const FLUSH_DELAY_MS = 5;
/** Room made by finished attempts is refilled at most this often (one claim for many). */
const REFILL_DELAY_MS = 5;
const DRAIN_WAIT_MS = 30_000;
const STOP_WAIT_MS = 20_000;
const USER_AGENT = 'evmon-webhooks/1';

interface HostQueue {
  running: number;
  waiting: ClaimedTarget[];
}

export interface DispatcherDeps {
  db: Database;
  clock: Clock;
  logger: Logger;
  transport: WebhookTransport;
  /** A sensor's signing secret in clear from its stored (sealed) form; throws UnreadableSecretError. */
  openSecret: (sensorId: string, stored: string) => string;
  /** Told the outcome of every attempt this process makes (the metrics). */
  onAttempt: (status: AttemptOutcome['status']) => void;
}

export function webhookDispatcher({ db, clock, logger, transport, openSecret, onAttempt }: DispatcherDeps) {
  const worker = `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
  const hosts = new Map<string, HostQueue>();
  let held = 0;
  /** Set by stop(): nothing more is claimed, not even by a drain. */
  let closing = false;
  let settled: AttemptOutcome[] = [];
  let flushing: Promise<void> | null = null;
  let flushTimer: NodeJS.Timeout | null = null;
  const idleWaiters: (() => void)[] = [];

  /** How many more targets each host this process holds may take (0: left out of claims). */
  function hostRooms(): Map<string, number> {
    return new Map([...hosts].map(([host, queue]) => [host, Math.max(0, PER_HOST_HELD - queue.running - queue.waiting.length)]));
  }

  /** Claims what there is room for and starts it; answers how many it claimed. */
  async function fill(): Promise<number> {
    const room = MAX_HELD - held;
    if (closing || room <= 0) return 0;
    const targets = await store.claim(db, { now: clock.now(), limit: room, rooms: hostRooms(), perHost: PER_HOST_HELD, worker, leaseSeconds: LEASE_SECONDS });
    held += targets.length;
    for (const target of targets) {
      const queue = hosts.get(target.host) ?? { running: 0, waiting: [] };
      hosts.set(target.host, queue);
      queue.waiting.push(target);
    }
    for (const host of new Set(targets.map((t) => t.host))) pump(host);
    return targets.length;
  }

  const loop = poller({ claim: fill, pollMs: POLL_INTERVAL_MS, onError: (error) => logger.error({ err: error }, 'claiming webhook deliveries failed') });

  function pump(host: string): void {
    const queue = hosts.get(host)!;
    while (queue.running < PER_HOST_RUNNING && queue.waiting.length > 0) {
      const target = queue.waiting.shift()!;
      queue.running += 1;
      void attempt(target).then((outcome) => {
        onAttempt(outcome.status);
        settled.push(outcome);
        scheduleFlush();
        queue.running -= 1;
        held -= 1;
        if (queue.running === 0 && queue.waiting.length === 0) hosts.delete(host);
        else pump(host);
        loop.schedule(REFILL_DELAY_MS);
      });
    }
  }

  async function attempt(target: ClaimedTarget): Promise<AttemptOutcome> {
    const at = clock.now();
    const base = { deliveryId: target.delivery_id, actionId: target.action_id, attempts: target.attempts, at };
    let statusCode: number | null = null;
    let retryAfter: string | null = null;
    let error: string | null = null;
    let refusedAddress: string | undefined;
    let cause: string | undefined;
    try {
      const headers = {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        ...signedHeaders(target.delivery_id, at, target.body, {
          current: openSecret(target.sensor_id, target.signing_secret),
          previous: target.previous_signing_secret === null ? null : openSecret(target.sensor_id, target.previous_signing_secret),
          previousExpiresAt: target.previous_secret_expires_at,
        }),
      };
      const response = await transport.post(target.url, headers, target.body);
      statusCode = response.status;
      if (statusCode >= 200 && statusCode < 300) return { ...base, status: 'SUCCEEDED', statusCode, error: null, nextAttemptAt: null };
      retryAfter = response.retryAfter;
      error = `the webhook answered ${statusCode}`;
    } catch (caught) {
      if (caught instanceof UnreadableSecretError) {
        // Nothing is sent unsigned or signed with the wrong secret; the attempt counts and is retried.
        logger.error({ delivery_id: target.delivery_id, sensor_id: target.sensor_id, err: caught }, 'the signing secret of a webhook did not open');
      }
      ({ shown: error, cause } = describe(caught));
      refusedAddress = refusalOf(caught)?.address;
    }
    const delay = retryDelayMs(target.attempts, retryAfter, at.getTime());
    logger.info(
      {
        delivery_id: target.delivery_id,
        host: target.host,
        attempt: target.attempts,
        status_code: statusCode,
        error,
        cause,
        refused_address: refusedAddress,
        retry_in_ms: delay,
      },
      'webhook attempt failed',
    );
    return delay === null
      ? { ...base, status: 'FAILED', statusCode, error, nextAttemptAt: null }
      : { ...base, status: 'PENDING', statusCode, error, nextAttemptAt: new Date(at.getTime() + delay) };
  }

  function scheduleFlush(): void {
    if (flushTimer || flushing) return;
    flushTimer = setTimeout(() => {
      flushTimer = null;
      void flush();
    }, FLUSH_DELAY_MS);
  }

  /** Writes the outcomes gathered so far; a failed write keeps them for the next one. */
  function flush(): Promise<void> {
    if (flushing) return flushing;
    const batch = settled;
    settled = [];
    flushing = store
      .settle(db, worker, batch)
      .catch((error) => {
        logger.warn({ err: error, outcomes: batch.length }, 'writing webhook outcomes failed; retrying');
        settled = [...batch, ...settled];
      })
      .finally(() => {
        flushing = null;
        if (settled.length > 0) scheduleFlush();
        else if (held === 0) for (const resolve of idleWaiters.splice(0)) resolve();
      });
    return flushing;
  }

  /** Resolves once nothing is held and every outcome is written, or at `deadline` (performance.now()). */
  async function idle(deadline = Infinity): Promise<void> {
    while ((held > 0 || settled.length > 0 || flushing) && performance.now() < deadline) {
      await new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        setTimeout(resolve, 50); // re-checks even if a wake-up was missed
      });
      if (held === 0 && settled.length > 0 && !flushing) await flush();
    }
  }

  return {
    /** New deliveries were stored: look now rather than at the next poll. */
    wake(): void {
      loop.schedule(0);
    },

    /**
     * Makes every attempt due now, waiting up to 30 s for those other processes hold. With
     * `runHere: false` (a process that serves requests only) it makes none itself and waits
     * for other processes to.
     */
    async drain(options: { runHere?: boolean } = {}): Promise<void> {
      const deadline = performance.now() + DRAIN_WAIT_MS;
      for (;;) {
        const claimed = options.runHere === false ? 0 : await loop.claimNow();
        await idle(deadline);
        if (performance.now() > deadline) return;
        if (claimed > 0) continue;
        if ((await store.outstanding(db, clock.now(), worker)) === 0) return;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },

    /** Targets waiting for an attempt, from the database (every process's). */
    backlog: () => store.backlog(db, clock.now()),

    async start(): Promise<void> {
      if (db.kind === 'pglite') {
        const released = await store.releaseLeases(db);
        if (released > 0) logger.warn({ targets: released }, 'released webhook attempts left leased by a previous process');
      }
      loop.start();
    },

    /** Stops claiming, hands back what waits for its host, and waits for attempts in progress. */
    async stop(): Promise<void> {
      closing = true;
      await loop.stop();
      const waiting = [...hosts.values()].flatMap((queue) => queue.waiting.splice(0));
      held -= waiting.length;
      await store.release(db, worker, waiting).catch((error) => logger.warn({ err: error }, 'handing back webhook attempts failed; their leases will lapse'));
      // Attempts end within their 15-second timeout; outcomes that cannot be written by then
      // (the database is gone) are left to their leases.
      await idle(performance.now() + STOP_WAIT_MS);
      if (held > 0 || settled.length > 0) logger.warn({ unsettled: held + settled.length }, 'stopped with webhook outcomes unwritten; their leases will lapse');
      await transport.close();
    },
  };
}

export type WebhookDispatcher = ReturnType<typeof webhookDispatcher>;

export const UNREACHABLE_HOST = 'the host did not resolve to a public address';
/** An attempt's last_error when the sensor's signing secret would not open (the log tells the operator why). */
export const SECRET_UNREADABLE = 'not sent: the signing secret could not be read';

/** The refusal behind an attempt's error (undici may wrap it as the cause), if any. */
function refusalOf(error: unknown): AddressRefusedError | undefined {
  return [error, (error as { cause?: unknown })?.cause].find((e): e is AddressRefusedError => e instanceof AddressRefusedError);
}

/**
 * What last_error says of an attempt that got no answer, in these words only (the API
 * reference lists them): a transport's own message names internals (addresses, host names,
 * library codes) and is kept for the server log.
 */
const ATTEMPT_ERRORS = {
  timeout: 'no answer within 15 seconds',
  refused: 'the connection was refused',
  certificate: "the webhook's TLS certificate was not accepted",
  failed: 'the connection failed before an answer',
} as const;

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT', 'ESOCKETTIMEDOUT']);
const CERTIFICATE_CODE = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_TLS_CERT_ALTNAME_INVALID/;

/** Names that do not resolve, told apart from refusals only in the server log. */
const NAME_NOT_RESOLVED = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'ENODATA', 'ESERVFAIL', 'ENONAME']);

/**
 * An attempt's failure: `shown` as the customer reads it (last_error), `cause` for the server
 * log. A host that does not resolve and one that resolves only to non-public addresses read
 * alike, or last_error would tell which internal names exist.
 */
function describe(error: unknown): { shown: string; cause: string } {
  const err = error as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = err?.code ?? err?.cause?.code ?? 'error';
  const cause = `${code}: ${err?.message ?? String(error)}${err?.cause?.message ? ` (${err.cause.message})` : ''}`.slice(0, 500);
  if (error instanceof UnreadableSecretError) return { shown: SECRET_UNREADABLE, cause };
  if (TIMEOUT_CODES.has(code) || err?.name === 'TimeoutError' || err?.name === 'AbortError') return { shown: ATTEMPT_ERRORS.timeout, cause };
  if (refusalOf(error) || NAME_NOT_RESOLVED.has(code)) return { shown: UNREACHABLE_HOST, cause };
  if (code === 'ECONNREFUSED') return { shown: ATTEMPT_ERRORS.refused, cause };
  if (CERTIFICATE_CODE.test(code)) return { shown: ATTEMPT_ERRORS.certificate, cause };
  return { shown: ATTEMPT_ERRORS.failed, cause };
}
