// The search index saved in the data folder when a process stops, so the next start loads it
// and catches up from where it stood instead of reading every event again.
//
// The file holds the index with its log position (memory-index.store.ts) and the database it
// was read from (its index epoch, migration 020). Loading it is catching up from that position
// as a running process would: the file is used only if the database is the same, its clock
// (xmin) has not gone back, and the log was not purged past the position; else the index is
// built from the tables.
//
// Layout: the header's length (4 bytes), the header (v8.serialize: the position, the index's
// parts with each typed array replaced by its number, and each array's kind and length), then each typed
// array's bytes in order. The arrays are written and read one at a time, so no buffer holds
// the whole index (ten million events make several gigabytes, past what one buffer or one
// read may be). Written to a temporary file of its own and renamed, so a crash or another
// process stopping at the same moment leaves the last whole file (or none).
//
// A process loads the file as it starts (loadOnStart) and saves it as it stops (saveOnStop);
// memory-index-sync.ts catches the loaded index up and keeps it.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import v8 from 'node:v8';
import type { Logger } from 'pino';
import type { Queryable } from '../../../platform/db/database.js';
import { MemoryIndex, type MemoryIndexParts } from './memory-index.js';
import { memoryIndexStore as store, type LogPosition } from './memory-index.store.js';
import type { Typed } from './typed-arrays.js';

/**
 * Bumped whenever what the index holds, or how, changes, so an older file is not loaded: its
 * parts, and what they bake in (id-table.ts's hash, posting-lists.ts's chunk size).
 */
const FORMAT = 6;

export interface SavedIndex {
  epoch: string;
  position: LogPosition;
  index: MemoryIndexParts;
}

const KINDS = { Uint8Array, Uint32Array, Int32Array, Float64Array } as const;
type Kind = keyof typeof KINDS;

/** A typed array's place in the header's parts: its number in the file's order. */
interface Placeholder {
  $array: number;
}

interface Header {
  format: number;
  epoch: string;
  xmin: string;
  seen: string[];
  /** The arrays after the header, in order. */
  arrays: { kind: Kind; length: number }[];
  /** Their bytes, to tell a whole file from a cut one. */
  arrayBytes: number;
  index: unknown;
}

/** `value` with its typed arrays replaced by placeholders, the arrays pushed on `arrays` in order. */
function detach(value: unknown, arrays: Typed[]): unknown {
  if (ArrayBuffer.isView(value)) {
    const kind = value.constructor.name as Kind;
    if (!(kind in KINDS)) throw new Error(`no place in the saved index for a ${kind}`);
    arrays.push(value as Typed);
    return { $array: arrays.length - 1 } satisfies Placeholder;
  }
  if (Array.isArray(value)) return value.map((item) => detach(item, arrays));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, detach(item, arrays)]));
  return value;
}

/** `value` with its placeholders replaced by the arrays read. */
function attach(value: unknown, arrays: readonly Typed[]): unknown {
  if (Array.isArray(value)) return value.map((item) => attach(item, arrays));
  if (value !== null && typeof value === 'object') {
    if ('$array' in value) return arrays[(value as Placeholder).$array];
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, attach(item, arrays)]));
  }
  return value;
}

const bytesOf = (array: Typed) => new Uint8Array(array.buffer, array.byteOffset, array.byteLength);

/** Saves the index; answers the file's size. */
export async function saveIndex(file: string, saved: SavedIndex): Promise<number> {
  const arrays: Typed[] = [];
  const index = detach(saved.index, arrays);
  const header: Header = {
    format: FORMAT,
    epoch: saved.epoch,
    xmin: String(saved.position.xmin),
    seen: saved.position.seen.map(String),
    arrays: arrays.map((array) => ({ kind: array.constructor.name as Kind, length: array.length })),
    arrayBytes: arrays.reduce((sum, array) => sum + array.byteLength, 0),
    index,
  };
  const head = v8.serialize(header);
  const length = Buffer.alloc(4);
  length.writeUInt32LE(head.length);

  await fs.mkdir(path.dirname(file), { recursive: true });
  // Its own name, made only by this call ('wx'): two processes sharing a folder never write into one file.
  const temporary = `${file}.${randomUUID()}.tmp`;
  const handle = await fs.open(temporary, 'wx');
  let renamed = false;
  try {
    await handle.write(length);
    await handle.write(head);
    for (const array of arrays) await writeAll(handle, bytesOf(array));
    await handle.sync();
    await handle.close();
    await fs.rename(temporary, file);
    renamed = true;
    await syncFolder(path.dirname(file));
  } finally {
    if (!renamed) {
      await handle.close().catch(() => undefined);
      await fs.rm(temporary, { force: true });
    }
  }
  return 4 + head.length + header.arrayBytes;
}

/** The saved index, or null when there is none, or it is cut short or of another format. */
export async function loadIndex(file: string): Promise<SavedIndex | null> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const { size } = await handle.stat();
    if (size < 4) return null;
    const length = Buffer.alloc(4);
    await readAll(handle, length, 0);
    const headLength = length.readUInt32LE();
    if (4 + headLength > size) return null;
    const head = Buffer.alloc(headLength);
    await readAll(handle, head, 4);
    const header = v8.deserialize(head) as Header;
    if (header?.format !== FORMAT || size !== 4 + headLength + header.arrayBytes) return null;
    const arrays: Typed[] = [];
    let at = 4 + headLength;
    for (const { kind, length: items } of header.arrays) {
      const array = new KINDS[kind](items);
      await readAll(handle, bytesOf(array), at);
      at += array.byteLength;
      arrays.push(array);
    }
    return {
      epoch: header.epoch,
      position: { xmin: BigInt(header.xmin), seen: header.seen.map(BigInt) },
      index: attach(header.index, arrays) as MemoryIndexParts,
    };
  } finally {
    await handle.close();
  }
}

/** An index, the database it was read from (its index epoch), and where it stands in that database's change log. */
export interface PlacedIndex {
  index: MemoryIndex;
  epoch: string;
  position: LogPosition;
}

/**
 * Loads the index saved at the last stop when it is this database's (the same index epoch,
 * and a clock that has not gone back past its position), and hands it to `install`, which
 * catches it up and puts it in place (false: the log was purged past it). Answers whether it
 * is in place; false when there is no such file or it could not be used (logged): the index is
 * then built from the tables. `stopping()` is asked once the file is read: a process stopping
 * already leaves the file as it is and asks the database nothing (true: nothing to build).
 */
export async function loadOnStart(
  db: Queryable,
  file: string,
  logger: Logger,
  { stopping, install }: { stopping: () => boolean; install: (saved: PlacedIndex) => Promise<boolean> },
): Promise<boolean> {
  const started = performance.now();
  try {
    const saved = await loadIndex(file);
    // Stopping already: the file stays as it is, and nothing is caught up or saved again.
    if (stopping()) return true;
    if (saved !== null) {
      const now = await store.identity(db);
      const index = saved.epoch === now.epoch && saved.position.xmin <= now.xmin ? MemoryIndex.fromParts(saved.index) : null;
      if (index !== null && (await install({ index, epoch: saved.epoch, position: saved.position }))) {
        logger.info({ events: index.size, ms: Math.round(performance.now() - started) }, 'search index loaded');
        return true;
      }
      logger.info('the saved search index is of another database, or the change log was purged past it: building it from the tables');
    }
  } catch (error) {
    logger.warn({ err: error }, 'loading the saved search index failed; building it from the tables');
  }
  return false;
}

/** Saves the index of a process that is stopping; a failure is logged (the next start builds it from the tables). */
export async function saveOnStop(file: string, { index, epoch, position }: PlacedIndex, logger: Logger): Promise<void> {
  const started = performance.now();
  try {
    index.compact(); // the process is stopping: nothing will grow it again
    const bytes = await saveIndex(file, { epoch, position, index: index.parts() });
    logger.info({ events: index.size, bytes, ms: Math.round(performance.now() - started) }, 'search index saved');
  } catch (error) {
    logger.warn({ err: error }, 'saving the search index failed; the next start builds it from the tables');
  }
}

/** Writes of a gigabyte or more may be partial: loop until all is written. */
async function writeAll(handle: fs.FileHandle, bytes: Uint8Array): Promise<void> {
  for (let done = 0; done < bytes.length; ) {
    const { bytesWritten } = await handle.write(bytes, done, Math.min(bytes.length - done, 1 << 30));
    done += bytesWritten;
  }
}

async function readAll(handle: fs.FileHandle, into: Uint8Array, position: number): Promise<void> {
  for (let done = 0; done < into.length; ) {
    const { bytesRead } = await handle.read(into, done, Math.min(into.length - done, 1 << 30), position + done);
    if (bytesRead === 0) throw new Error('the saved search index ends early');
    done += bytesRead;
  }
}

/** The rename itself made durable (a folder's entries are synced through the folder). */
async function syncFolder(folder: string): Promise<void> {
  const handle = await fs.open(folder, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
