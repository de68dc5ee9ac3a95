// PGlite does not lock its data folder, and two processes writing one folder corrupt it.
// The server holds a pid file there, the way PostgreSQL holds postmaster.pid: a live pid in
// it refuses a second process; a dead one (after kill -9) is taken over at once, so a crashed
// server restarts without waiting for a lock to age.
import fs from 'node:fs';
import path from 'node:path';

export class DataDirLockedError extends Error {
  constructor(readonly dataDir: string, readonly pid: number) {
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

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function lockDataDir(dataDir: string): DataDirLock {
  fs.mkdirSync(dataDir, { recursive: true });
  const lockPath = path.join(dataDir, 'evmon.pid');
  const tmpPath = `${lockPath}.${process.pid}`;
  fs.writeFileSync(tmpPath, String(process.pid));
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        fs.linkSync(tmpPath, lockPath); // atomic: fails when the file exists
        return {
          release() {
            try {
              if (fs.readFileSync(lockPath, 'utf8').trim() === String(process.pid)) fs.unlinkSync(lockPath);
            } catch {
              /* already gone */
            }
          },
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const holder = Number.parseInt(fs.readFileSync(lockPath, 'utf8').trim(), 10);
        if (Number.isInteger(holder) && holder !== process.pid && isAlive(holder)) {
          throw new DataDirLockedError(dataDir, holder);
        }
        fs.rmSync(lockPath, { force: true }); // left by a dead process
      }
    }
    throw new Error(`could not take the lock file ${lockPath}`);
  } finally {
    fs.rmSync(tmpPath, { force: true });
  }
}
