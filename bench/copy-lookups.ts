// Copy detection's table at a dense window, with no database: the fingerprints of the first
// BENCH_HELD demo articles of a BENCH_EVENTS-event corpus's last 30 days (what the loader holds
// at ten million events), filed into the table (corpus/fingerprint-table.ts), then the next
// BENCH_LOOKUPS texts looked up. Side by side in one run: pair keys crowded above
// CROWDED_PAIR (the service) and never crowded (the table before crowded keys; its files
// still count the keys, which costs the add a little). Prints, for each, the CPU time (this
// process, its GC included) a fingerprint added and a text looked up, the fingerprints a
// look-up meets (before counting its hits) and the copies found, which must be the same.
//
// Making the articles' texts takes about 400 µs each (ten minutes for 1.5 million), so the
// fingerprints are kept in the temporary folder for the next run.
//
//   npx tsx bench/copy-lookups.ts                         10,000,000 events, 1,500,000 held
//   BENCH_EVENTS=1000000 BENCH_HELD=150000 npx tsx bench/copy-lookups.ts
import fs from 'node:fs';
import os from 'node:os';
import { FINGERPRINT_BYTES, type TextShingles, textShingles } from '../src/modules/corpus/copy-fingerprint.js';
import { CROWDED_PAIR, FingerprintTable } from '../src/modules/corpus/fingerprint-table.js';
import { demoArticleBatches } from '../src/modules/demo/demo-articles.js';
import { DEMO_EVENT_TYPES } from '../src/modules/demo/demo-event-types.js';
import { buildWorld } from '../src/modules/demo/demo-world.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000_000);
const HELD = Number(process.env.BENCH_HELD ?? 1_500_000);
const LOOKUPS = Number(process.env.BENCH_LOOKUPS ?? 20_000);
const SEED = Number(process.env.BENCH_SEED ?? 42);
const NOW = new Date('2026-11-20T12:00:00.000Z');
/** A text's kept keys: at most 2 of each of 10 bins (below 40,960: two bytes each). */
const KEY_SLOTS = 20;
const CACHE = `${os.tmpdir()}/evmon-copy-lookups-${EVENTS}-${SEED}-${HELD + LOOKUPS}.bin`;

/** The texts' fingerprints and kept keys, in the order the demo ingests them. */
function texts(count: number): TextShingles[] {
  const record = FINGERPRINT_BYTES + 1 + 2 * KEY_SLOTS;
  if (fs.existsSync(CACHE)) {
    const bytes = fs.readFileSync(CACHE);
    return Array.from({ length: bytes.length / record }, (_, i) => {
      const at = i * record;
      const keys = new Uint32Array(bytes[at + FINGERPRINT_BYTES]!);
      for (let k = 0; k < keys.length; k++) keys[k] = bytes.readUInt16LE(at + FINGERPRINT_BYTES + 1 + 2 * k);
      return { fingerprint: Uint8Array.from(bytes.subarray(at, at + FINGERPRINT_BYTES)), keys };
    });
  }
  let n = 0;
  const newId = () => `00000000-0000-4000-8000-${(++n).toString(16).padStart(12, '0')}`;
  const world = buildWorld({ events: EVENTS, seed: SEED, now: NOW, newId, typeIds: new Map(DEMO_EVENT_TYPES.map((t) => [t.code_name, newId()])) });
  const made: TextShingles[] = [];
  for (const batch of demoArticleBatches(world, { events: EVENTS, seed: SEED, batchSize: 10_000, part: 'recent' })) {
    for (const article of batch.articles) {
      const text = article.text === undefined ? null : textShingles(article.text);
      if (text) made.push(text);
    }
    if (made.length >= count) break;
  }
  const bytes = Buffer.alloc(made.length * record);
  made.forEach((text, i) => {
    const at = i * record;
    bytes.set(text.fingerprint, at);
    bytes[at + FINGERPRINT_BYTES] = text.keys.length;
    for (const [k, key] of text.keys.entries()) bytes.writeUInt16LE(key, at + FINGERPRINT_BYTES + 1 + 2 * k);
  });
  fs.writeFileSync(CACHE, bytes);
  return made;
}

const all = texts(HELD + LOOKUPS);
const held = all.slice(0, HELD);
const looked = all.slice(HELD, HELD + LOOKUPS);
const cpuMs = (from: NodeJS.CpuUsage) => process.cpuUsage(from).user / 1000;

// Twice over, in turn: the first round's first table also pays for compiling the code.
for (const [name, crowdedAt] of [
  [`crowded above ${CROWDED_PAIR}`, CROWDED_PAIR],
  ['never crowded', Number.POSITIVE_INFINITY],
  [`crowded above ${CROWDED_PAIR}`, CROWDED_PAIR],
  ['never crowded', Number.POSITIVE_INFINITY],
] as const) {
  globalThis.gc?.();
  const table = new FingerprintTable<number>(crowdedAt);
  let from = process.cpuUsage();
  for (const [i, text] of held.entries()) table.add({ ref: i, receivedMs: 0, order: i, fingerprint: text.fingerprint });
  const addMs = cpuMs(from);
  from = process.cpuUsage();
  let copies = 0;
  for (const text of looked) copies += table.copied(text, () => true).length;
  const lookUpMs = cpuMs(from);
  process.stdout.write(
    `${JSON.stringify({
      table: name,
      held: HELD,
      crowded_keys: table.crowdedKeys,
      add_us: Math.round((1000 * addMs) / HELD),
      look_up_us: Math.round((1000 * lookUpMs) / LOOKUPS),
      met_per_look_up: Math.round(table.metCount / LOOKUPS),
      copies,
      rss_mb: Math.round(process.memoryUsage().rss / 2 ** 20),
    })}\n`,
  );
}
