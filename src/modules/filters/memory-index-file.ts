// The search index saved in the data folder when a process stops, so the next start loads it
// and catches up from where it stood instead of reading every event again.
//
// The file holds the index with its log position and cut-off (memory-index.store.ts), and the
// database it was read from (its index epoch, migration 020). Loading it is catching up from
// that position as a running process would: the file is used only if the database is the same,
// its clock (xmin) has not gone back, and the log was not purged past the position; else the
// index is built from the tables.
//
// Written to a temporary file and renamed, so a crash while saving leaves the last whole file
// (or none). v8.serialize keeps typed arrays as their bytes.
import fs from 'node:fs/promises';
import path from 'node:path';
import v8 from 'node:v8';
import type { MemoryIndexParts } from './memory-index.js';
import type { LogPosition } from './memory-index.store.js';

/** Bumped whenever what the index holds, or how, changes: an older file is then not loaded. */
const FORMAT = 2;

export interface SavedIndex {
  epoch: string;
  position: LogPosition;
  countedUpTo: number;
  index: MemoryIndexParts;
}

interface FileContents {
  format: number;
  epoch: string;
  xmin: string;
  seen: string[];
  countedUpTo: number;
  index: MemoryIndexParts;
}

export async function saveIndex(file: string, saved: SavedIndex): Promise<number> {
  const contents: FileContents = {
    format: FORMAT,
    epoch: saved.epoch,
    xmin: String(saved.position.xmin),
    seen: saved.position.seen.map(String),
    countedUpTo: saved.countedUpTo,
    index: saved.index,
  };
  const bytes = v8.serialize(contents);
  await fs.mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  const handle = await fs.open(temporary, 'w');
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.rename(temporary, file);
  return bytes.length;
}

/** The saved index, or null when there is none or it is not one this version reads. */
export async function loadIndex(file: string): Promise<SavedIndex | null> {
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const contents = v8.deserialize(bytes) as FileContents;
  if (contents?.format !== FORMAT) return null;
  return {
    epoch: contents.epoch,
    position: { xmin: BigInt(contents.xmin), seen: contents.seen.map(BigInt) },
    countedUpTo: contents.countedUpTo,
    index: contents.index,
  };
}
