// PGlite does not lock its data folder, and two processes writing one folder corrupt it.
// The server holds a pid file there, the way PostgreSQL holds postmaster.pid: a live pid in
// it refuses a second process; a dead one (after kill -9) is taken over at once, so a crashed
// server restarts without waiting for a lock to age.
//
// Taking over a dead process's file is itself guarded by an exclusive `takeover` file, so two
// processes starting together after a crash cannot both remove the stale file and each take
// the lock: the loser finds the winner's live pid on its next look.
import fs from 'node:fs';
import path from 'node:path';

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `The data folder ${dataDir} is in use by another evmon process (pid ${pid}). ` +
        'The embedded database allows one process; stop the other one, or use PostgreSQL ' +
        '(EVMON_DATABASE_URL) to run several.',
    );
  }
}

export interface DataDirLock {
  release(): void;
}

const ATTEMPTS = 50;
const RETRY_MS = 20;
/** A takeover file older than this was left by a process that died while taking over. */
const STALE_TAKEOVER_MS = 10_000;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readPid(file: string): number | null {
  try {
    const pid = Number.parseInt(fs.readFileSync(file, 'utf8').trim(), 10);
    return Number.isInteger(pid) ? pid : null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

export function lockDataDir(dataDir: string): DataDirLock {
  fs.mkdirSync(dataDir, { recursive: true });
  const lockPath = path.join(dataDir, 'evmon.pid');
  const takeoverPath = `${lockPath}.takeover`;
  const tmpPath = `${lockPath}.${process.pid}`;
  fs.writeFileSync(tmpPath, String(process.pid));
  try {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      try {
        fs.linkSync(tmpPath, lockPath); // atomic: fails when the file exists
        if (readPid(lockPath) === process.pid) return { release: () => releaseLock(lockPath) };
        continue;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = readPid(lockPath);
      if (holder === null) continue; // released meanwhile: try again
      if (holder !== process.pid && isAlive(holder)) throw new DataDirLockedError(dataDir, holder);
      takeOver(lockPath, takeoverPath, holder);
      sleep(RETRY_MS);
    }
    throw new Error(`could not take the lock file ${lockPath}`);
  } finally {
    fs.rmSync(tmpPath, { force: true });
  }
}

/** Removes a dead process's pid file, if this process wins the right to. */
function takeOver(lockPath: string, takeoverPath: string, deadPid: number): void {
  try {
    fs.writeFileSync(takeoverPath, String(process.pid), { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const stat = fs.statSync(takeoverPath, { throwIfNoEntry: false });
    // File times are wall-clock times, so this compares against the wall clock, not the injected one.
    if (stat && Date.now() - stat.mtimeMs > STALE_TAKEOVER_MS) fs.rmSync(takeoverPath, { force: true });
    return; // another process is taking over; look again shortly
  }
  try {
    // Still the dead process's file? (The winner of an earlier takeover may have replaced it.)
    if (readPid(lockPath) === deadPid) fs.rmSync(lockPath, { force: true });
  } finally {
    fs.rmSync(takeoverPath, { force: true });
  }
}

function releaseLock(lockPath: string): void {
  try {
    if (readPid(lockPath) === process.pid) fs.unlinkSync(lockPath);
  } catch {
    /* already gone */
  }
}
