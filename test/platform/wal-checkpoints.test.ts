// The embedded database has no checkpointer (src/platform/db/wal-checkpoints.ts): its writers
// checkpoint it once the write-ahead log since the last checkpoint reaches a size, so the log's
// segments are deleted instead of piling up. On a real PGlite on disk: the log written by a
// load stops growing once checkpoints run, and is much larger without them; what stays is the
// log since the last checkpoint, not segments kept for later use.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { openPglite } from '../../src/platform/db/pglite.js';
import { checkpointWhenDue } from '../../src/platform/db/wal-checkpoints.js';
import { PG_URL, tempDir } from '../helpers/server.js';

const MB = 2 ** 20;
const logger = pino({ level: 'silent' });

/** The bytes of the write-ahead log's files in `dir`. */
const walBytes = (dir: string) => fs.readdirSync(path.join(dir, 'pg_wal')).reduce((sum, name) => sum + fs.statSync(path.join(dir, 'pg_wal', name)).size, 0);

/** Loads about 60 MB of log into a fresh database in `dir`, asking for a checkpoint after each step when `checkpoints`; answers the log's size and how many ran. */
async function load(dir: string, checkpoints: boolean) {
  const db = await openPglite(dir);
  try {
    await db.exec('CREATE TABLE filler (id int, pad text)');
    let ran = 0;
    for (let step = 0; step < 12; step++) {
      await db.exec(`INSERT INTO filler SELECT g, repeat('x', 200) FROM generate_series(1, 20000) g`);
      if (checkpoints && (await checkpointWhenDue(db, logger, 8 * MB))) ran++;
    }
    assert.equal(checkpoints ? false : await checkpointWhenDue(db, logger, Number.MAX_SAFE_INTEGER), false, 'not due: nothing done');
    if (!checkpoints) return { wal: walBytes(dir), ran, ahead: 0 };
    // A checkpoint at the start of a fresh segment: it prepares none ahead for its own use (it
    // does when the one being written is three quarters full), so the segments named after the
    // one being written are those kept for later use instead of deleted.
    await db.query('SELECT pg_switch_wal()');
    await db.exec('CHECKPOINT');
    const [{ current }] = (await db.query<{ current: string }>('SELECT pg_walfile_name(pg_current_wal_insert_lsn()) AS current')) as [{ current: string }];
    const ahead = fs.readdirSync(path.join(dir, 'pg_wal')).filter((name) => /^[0-9A-F]{24}$/.test(name) && name > current).length;
    return { wal: walBytes(dir), ran, ahead };
  } finally {
    await db.close();
  }
}

describe('checkpoints of the embedded database', { skip: PG_URL ? 'embedded database only' : false }, () => {
  it('when its writers ask after each step, then it checkpoints every few steps and its log stays a fraction of the size it reaches without', async (t) => {
    const without = await load(tempDir('wal-none'), false);
    const withCheckpoints = await load(tempDir('wal-checkpointed'), true);
    t.diagnostic(`log without checkpoints ${(without.wal / MB).toFixed(0)} MB; with ${withCheckpoints.ran}: ${(withCheckpoints.wal / MB).toFixed(0)} MB`);
    assert.ok(withCheckpoints.ran >= 3, `checkpoints ran: ${withCheckpoints.ran}`);
    assert.ok(without.wal > 50 * MB, `the log without checkpoints: ${without.wal} bytes`);
    assert.ok(withCheckpoints.wal < without.wal / 2, `the log with checkpoints: ${withCheckpoints.wal} bytes, without: ${without.wal}`);
    assert.equal(withCheckpoints.ahead, 0, 'no segment is kept for later use: the folder holds only the log since the last checkpoint');
  });
});
