// What a test starts ends with it, and what it makes is removed. Every process a test spawns
// goes through `spawnOwned`: it runs in a process group of its own (so its own children go
// with it) and is killed, group and all, when its owner ends: the test passed, failed, timed
// out or was cancelled. Whatever is still running when this file's process exits (normally,
// on an uncaught error, or on SIGTERM from the test runner when the file passes its time limit)
// is killed then, and every temporary folder is removed.
import { type ChildProcess, spawn, type SpawnOptions } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { finished } from 'node:stream/promises';

/**
 * Whose lifetime a process shares: a test's context (`it('…', async (t) => …)`), or a suite
 * hook's for a process its tests share. Node aborts a test's signal when the test ends, however
 * it ends; a suite's process is stopped by the suite's `after` hook, or at the latest on exit.
 */
export interface Owner {
  readonly signal: AbortSignal;
}

/**
 * How long a process may take to exit after SIGTERM before it is killed: a server finishes its
 * in-flight requests and background jobs, at most 1.5 s on the busy machine of SPAWN_BUDGET_MS
 * (test/helpers/server.ts). A test that checks the exit code sees a process killed after this
 * as a failure (code null).
 */
export const STOP_GRACE_MS = 15_000;

const groups = new Set<number>();
const folders = new Set<string>();

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}

process.on('exit', () => {
  for (const pid of groups) killGroup(pid, 'SIGKILL');
  // Retries: a process killed just now may still be finishing a write into its folder.
  for (const dir of folders) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
});
// Node's default for these signals is to die without running exit hooks, leaving the groups
// running (they are not in this process's group, so a signal to it does not reach them).
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => process.exit(128 + os.constants.signals[signal]));
}

/**
 * A fresh folder, removed when this process exits. Under the test run's own folder when there
 * is one (scripts/run-tests.mjs removes it at the end, whatever became of this process).
 */
export function tempDir(prefix = 'evmon-test-'): string {
  const dir = fs.mkdtempSync(path.join(process.env.EVMON_TEST_TMP ?? os.tmpdir(), prefix));
  folders.add(dir);
  return dir;
}

export interface OwnedProcess {
  child: ChildProcess;
  /** The exit code once the process has exited; null when a signal ended it. */
  exited: Promise<number | null>;
  /** Sends `signal` to the group, then SIGKILL if it has not exited after STOP_GRACE_MS. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Spawns `command` in a process group of its own, which ends when `owner` ends. */
export function spawnOwned(owner: Owner, command: string, args: string[], options: SpawnOptions = {}): OwnedProcess {
  const child = spawn(command, args, { ...options, detached: true });
  const pid = child.pid;
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.once('error', () => resolve(null)); // could not be spawned: there is no process
  });
  if (pid !== undefined) {
    groups.add(pid);
    const end = () => killGroup(pid, 'SIGKILL');
    owner.signal.addEventListener('abort', end, { once: true });
    if (owner.signal.aborted) end();
    void exited.then(() => {
      // Anything it started and left behind goes with it.
      killGroup(pid, 'SIGKILL');
      groups.delete(pid);
      owner.signal.removeEventListener('abort', end);
    });
  }
  let done = false;
  void exited.then(() => (done = true));
  return {
    child,
    exited,
    async stop(signal = 'SIGTERM') {
      if (done || pid === undefined) return exited;
      killGroup(pid, signal);
      const timer = setTimeout(() => killGroup(pid, 'SIGKILL'), STOP_GRACE_MS);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

export interface ProcessResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command` to its end (see spawnOwned) and gives its exit code and output; `input` is its standard input. */
export async function runOwned(owner: Owner, command: string, args: string[], options: SpawnOptions & { input?: string } = {}): Promise<ProcessResult> {
  const { input, ...spawnOptions } = options;
  const run = spawnOwned(owner, command, args, { ...spawnOptions, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  if (input !== undefined) run.child.stdin!.end(input);
  let stdout = '';
  let stderr = '';
  run.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  run.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const status = await run.exited;
  // 'exit' can come before the last output is read.
  await Promise.all([finished(run.child.stdout!), finished(run.child.stderr!)].map((end) => end.catch(() => undefined)));
  return { status, stdout, stderr };
}
