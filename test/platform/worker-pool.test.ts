// Worker threads (platform/workers/worker-pool.ts): a task runs in a thread and answers; a
// module that cannot load breaks the pool for good without taking the process down or leaving
// a task waiting, so the caller can do the work itself (line-checker.ts does).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import { workerPool } from '../../src/platform/workers/worker-pool.js';

describe('worker pool', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'evmon-worker-pool-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const module = (name: string, source: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, source);
    return pathToFileURL(file);
  };

  it('when a task runs, then a worker thread answers it', async () => {
    const url = module('doubles.mjs', "import { isMainThread } from 'node:worker_threads';\nexport default (n) => ({ doubled: n * 2, isMainThread });\n");
    const broken: unknown[] = [];
    const pool = workerPool<number, { doubled: number; isMainThread: boolean }>(url, (error) => broken.push(error));
    try {
      assert.deepEqual(await pool.run(21), { doubled: 42, isMainThread: false });
      assert.equal(isMainThread, true);
      assert.deepEqual(broken, []);
    } finally {
      await pool.close();
    }
  });

  it('when the module cannot load, then the tasks are refused, the pool says so once, and the process lives on', async () => {
    const url = module('broken.mjs', "throw new Error('this module cannot load');\n");
    const broken: unknown[] = [];
    const pool = workerPool<number, number>(url, (error) => broken.push(error));
    try {
      const outcomes = await Promise.allSettled([pool.run(1), pool.run(2)]);
      assert.deepEqual(
        outcomes.map((o) => o.status),
        ['rejected', 'rejected'],
      );
      await assert.rejects(pool.run(3));
      assert.equal(broken.length, 1);
      assert.match(String((broken[0] as Error).message), /cannot load/);
    } finally {
      await pool.close();
    }
  });
});
