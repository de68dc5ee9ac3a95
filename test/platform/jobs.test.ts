// The durable job queue against a real database (the embedded one on disk, or PostgreSQL).
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { manualClock } from '../../src/platform/clock.js';
import type { Database } from '../../src/platform/db/database.js';
import { migrate } from '../../src/platform/db/migrate.js';
import { openDatabase } from '../../src/platform/db/open.js';
import { jobQueue, RetryLaterError } from '../../src/platform/jobs.js';
import { PG_URL, tempDir } from '../helpers/server.js';

const silent = pino({ level: 'silent' });
const unique = () => `test-${Math.random().toString(36).slice(2)}`;

async function open(dataDir = tempDir()) {
  const opened = await openDatabase(PG_URL ? { kind: 'postgres', url: PG_URL } : { kind: 'pglite', dataDir: path.join(dataDir, 'pglite') });
  await migrate(opened.db);
  return { ...opened, dataDir };
}

interface Fixture {
  db: Database;
  clock: ReturnType<typeof manualClock>;
  queue: ReturnType<typeof jobQueue>;
  kind: string;
}

/** A queue on a fresh database (or PostgreSQL), its clock at 10:00 and a job kind of its own. */
async function withQueue(work: (fixture: Fixture) => Promise<void>): Promise<void> {
  const { db, close } = await open();
  try {
    const clock = manualClock(new Date('2026-11-22T10:00:00Z'));
    await work({ db, clock, queue: jobQueue(db, clock, silent), kind: unique() });
  } finally {
    await close();
  }
}

async function statusOf(db: Database, kind: string) {
  return db.query<{ status: string; attempts: number; run_at: Date; last_error: string | null }>(
    'SELECT status, attempts, run_at, last_error FROM jobs WHERE kind = $1 ORDER BY id',
    [kind],
  );
}

describe('durable jobs', () => {
  it('when a job is enqueued and the process restarts before it runs, then it runs after the restart', async () => {
    const kind = unique();
    const clock = manualClock(new Date('2026-11-22T10:00:00Z'));
    const first = await open();
    const queueA = jobQueue(first.db, clock, silent);
    queueA.register(kind, async () => undefined);
    await queueA.enqueue(first.db, kind, { n: 1 });
    await first.close();

    const second = await open(first.dataDir);
    try {
      const ran: unknown[] = [];
      const queueB = jobQueue(second.db, clock, silent);
      queueB.register(kind, async (payload) => void ran.push(payload));
      await queueB.drain();
      assert.deepEqual(ran, [{ n: 1 }]);
      assert.equal((await statusOf(second.db, kind))[0]!.status, 'done');
    } finally {
      await second.close();
    }
  });

  it('when a job is enqueued inside a transaction that rolls back, then no job exists', () =>
    withQueue(async ({ db, queue, kind }) => {
      queue.register(kind, async () => undefined);
      await assert.rejects(
        db.transaction(async (tx) => {
          await queue.enqueue(tx, kind, {});
          throw new Error('abandon');
        }),
      );
      assert.equal((await statusOf(db, kind)).length, 0);
    }));

  it('when a handler fails, then it retries with backoff on the injected clock, and fails for good after the last attempt', () =>
    withQueue(async ({ db, clock, queue, kind }) => {
      let calls = 0;
      queue.register(
        kind,
        async () => {
          calls++;
          throw new Error(`boom ${calls}`);
        },
        { maxAttempts: 3, backoffMs: (attempt) => attempt * 10_000 },
      );
      await queue.enqueue(db, kind, {});
      await queue.drain();
      assert.equal(calls, 1);
      let [row] = await statusOf(db, kind);
      assert.equal(row!.status, 'pending');
      const delay = row!.run_at.getTime() - clock.nowMs();
      assert.ok(delay >= 8_000 && delay <= 12_000, `first retry in ${delay} ms (10 s ± 20%)`);

      await queue.drain(); // not due yet
      assert.equal(calls, 1);
      clock.advance(12);
      await queue.drain();
      assert.equal(calls, 2);
      clock.advance(60);
      await queue.drain();
      assert.equal(calls, 3);
      [row] = await statusOf(db, kind);
      assert.equal(row!.status, 'failed');
      assert.equal(row!.attempts, 3);
      assert.equal(row!.last_error, 'boom 3');
      clock.advance(3600);
      await queue.drain();
      assert.equal(calls, 3);
    }));

  it('when a handler asks to retry later, then the job waits exactly that long', () =>
    withQueue(async ({ db, clock, queue, kind }) => {
      let calls = 0;
      queue.register(kind, async () => {
        if (++calls === 1) throw new RetryLaterError(30_000);
      });
      await queue.enqueue(db, kind, {});
      await queue.drain();
      assert.equal((await statusOf(db, kind))[0]!.run_at.toISOString(), '2026-11-22T10:00:30.000Z');
      clock.advance(30);
      await queue.drain();
      assert.equal((await statusOf(db, kind))[0]!.status, 'done');
    }));

  it('when the same dedupe key is enqueued twice, then one job exists', () =>
    withQueue(async ({ db, queue, kind }) => {
      queue.register(kind, async () => undefined);
      await queue.enqueue(db, kind, { a: 1 }, { dedupeKey: `${kind}:x` });
      await queue.enqueue(db, kind, { a: 2 }, { dedupeKey: `${kind}:x` });
      assert.equal((await statusOf(db, kind)).length, 1);
    }));

  it('when two queues on one PostgreSQL drain the same jobs at once, then each job runs exactly once', {
    skip: PG_URL === null ? 'PostgreSQL only' : false,
  }, async () => {
    const kind = unique();
    const clock = manualClock(new Date('2026-11-22T10:00:00Z'));
    const a = await open();
    const b = await open();
    try {
      const runs = new Map<number, number>();
      const handler = async (payload: unknown) => {
        const n = (payload as { n: number }).n;
        runs.set(n, (runs.get(n) ?? 0) + 1);
        await new Promise((r) => setTimeout(r, 2));
      };
      const queueA = jobQueue(a.db, clock, silent);
      const queueB = jobQueue(b.db, clock, silent);
      queueA.register(kind, handler);
      queueB.register(kind, handler);
      for (let n = 0; n < 200; n++) await queueA.enqueue(a.db, kind, { n });
      await Promise.all([queueA.drain(), queueB.drain()]);
      assert.equal(runs.size, 200);
      assert.ok([...runs.values()].every((count) => count === 1));
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('when a process dies holding a job, then another takes it over once the lease has passed, and never before', () =>
    withQueue(async ({ db, clock, queue, kind }) => {
      let calls = 0;
      queue.register(kind, async () => void calls++);
      await queue.enqueue(db, kind, {});
      // A claim as another process holds it: leases run on the database's clock, so moving the
      // injected clock does not make it look abandoned.
      await db.query(`UPDATE jobs SET status = 'running', attempts = 1, locked_by = 'elsewhere', locked_until = now() + interval '1 minute' WHERE kind = $1`, [
        kind,
      ]);
      clock.advance(3600);
      await queue.drain({ waitForOthersMs: 100 });
      assert.equal(calls, 0);
      // The same claim after its process died and the lease ran out.
      await db.query(`UPDATE jobs SET locked_until = now() - interval '1 second' WHERE kind = $1`, [kind]);
      await queue.drain();
      assert.equal(calls, 1);
      assert.equal((await statusOf(db, kind))[0]!.status, 'done');
    }));

  it('when an abandoned claim has used its last attempt, then it fails for good instead of running again', () =>
    withQueue(async ({ db, queue, kind }) => {
      let calls = 0;
      queue.register(kind, async () => void calls++, { maxAttempts: 2 });
      await queue.enqueue(db, kind, {});
      await db.query(`UPDATE jobs SET status = 'running', attempts = 2, locked_by = 'crashed', locked_until = now() - interval '1 second' WHERE kind = $1`, [
        kind,
      ]);
      await queue.drain();
      assert.equal(calls, 0);
      const [row] = await statusOf(db, kind);
      assert.equal(row!.status, 'failed');
      assert.equal(row!.last_error, 'abandoned by its worker');
    }));

  it('when another worker has taken over a claim, then the first worker cannot overwrite its outcome', () =>
    withQueue(async ({ db, queue, kind }) => {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      queue.register(kind, async () => {
        await gate;
        throw new Error('late failure');
      });
      await queue.enqueue(db, kind, {});
      const draining = queue.drain();
      while ((await statusOf(db, kind))[0]!.status !== 'running') await new Promise((r) => setTimeout(r, 5));
      // Another worker retakes the claim and finishes the job meanwhile.
      await db.query(`UPDATE jobs SET status = 'done', locked_by = 'other', attempts = attempts + 1 WHERE kind = $1`, [kind]);
      release();
      await draining;
      assert.equal((await statusOf(db, kind))[0]!.status, 'done');
    }));

  it('when the embedded server restarts after dying mid-job, then the job is released at start-up and runs', {
    skip: PG_URL !== null ? 'embedded only' : false,
  }, async () => {
    const kind = unique();
    const clock = manualClock(new Date('2026-11-22T10:00:00Z'));
    const first = await open();
    const queueA = jobQueue(first.db, clock, silent);
    queueA.register(kind, async () => undefined);
    await queueA.enqueue(first.db, kind, {});
    await first.db.query(`UPDATE jobs SET status = 'running', attempts = 1, locked_until = $2 WHERE kind = $1`, [kind, new Date(clock.nowMs() + 300_000)]);
    await first.close();

    const second = await open(first.dataDir);
    try {
      let calls = 0;
      const queueB = jobQueue(second.db, clock, silent);
      queueB.register(kind, async () => void calls++);
      assert.equal(await queueB.releaseOrphans(), 1);
      await queueB.drain();
      assert.equal(calls, 1);
    } finally {
      await second.close();
    }
  });
});
