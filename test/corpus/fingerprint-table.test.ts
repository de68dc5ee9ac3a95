// The fingerprint table (fingerprint-table.ts) finds exactly what judging every fingerprint
// held one by one finds (copy-fingerprint.ts, judgedCopy), with the hits counted alike: while
// fingerprints sit unfiled, once filed, and when the texts are made of stock sentences, so
// that some keys are filed for a good part of the table and a look-up leaves their lists
// unvisited; and for a fingerprint whose samples the text holds in just enough bins, whichever
// bins they are.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  BINS,
  copyHits,
  FEWEST_HITS,
  judgedCopy,
  packed,
  SAMPLE_VALUES,
  sampleKey,
  type TextShingles,
  textShingles,
} from '../../src/modules/corpus/copy-fingerprint.js';
import { CROWDED_PAIR, FILED_PAIRS, FingerprintTable } from '../../src/modules/corpus/fingerprint-table.js';

/** xorshift32, seeded. */
function seeded(seed: number) {
  let state = seed >>> 0 || 1;
  return (n: number) => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % n;
  };
}

/** Texts of 4 to 8 paragraphs of sentences: a share from a small pool of stock sentences (a tenth of them only those), the rest of random words; some are copies of earlier ones with a paragraph dropped or added. */
function texts(count: number, seed: number): string[] {
  const pick = seeded(seed);
  const word = () => `w${pick(5_000)}`;
  const sentence = () => Array.from({ length: 8 + pick(10) }, word).join(' ');
  const stock = Array.from({ length: 40 }, sentence);
  const paragraph = () => Array.from({ length: 4 }, () => (pick(2) === 0 ? stock[pick(stock.length)] : sentence())).join('. ');
  // Stock alone: such texts share their samples with many others, under the longest lists.
  const stockParagraph = () => Array.from({ length: 4 }, () => stock[pick(8)]).join('. ');
  const made: string[] = [];
  for (let i = 0; i < count; i++) {
    if (made.length > 0 && pick(3) === 0) {
      const paragraphs = made[pick(made.length)]!.split('\n\n');
      if (pick(2) === 0) paragraphs.splice(1 + pick(paragraphs.length - 1), 1);
      else paragraphs.splice(pick(paragraphs.length), 0, paragraph());
      made.push(paragraphs.join('\n\n'));
    } else if (pick(10) === 0) made.push(Array.from({ length: 4 + pick(5) }, stockParagraph).join('\n\n'));
    else made.push(Array.from({ length: 4 + pick(5) }, paragraph).join('\n\n'));
  }
  return made;
}

/** Random samples for a fingerprint's bins. */
const randomFingerprintSamples = (pick: (n: number) => number) => Array.from({ length: BINS }, () => pick(SAMPLE_VALUES));

/**
 * Each set of FEWEST_HITS bins: a fingerprint to hold, and a text keeping its samples in those
 * bins only (two other samples in each other bin), its own fingerprint the held one's.
 */
function fewestHitsCases(pick: (n: number) => number) {
  return (function choose(from: number, bins: number[]): number[][] {
    if (bins.length === FEWEST_HITS) return [bins];
    return Array.from({ length: BINS - from }, (_, d) => choose(from + d + 1, [...bins, from + d])).flat();
  })(0, []).map((bins) => {
    const samples = randomFingerprintSamples(pick);
    // In a bin of the set, the sample and another, either first (in some bins, the sample alone).
    const keys = samples.flatMap((sample, bin) => {
      const other = sampleKey(bin, (sample + 1) % SAMPLE_VALUES);
      if (!bins.includes(bin)) return [other, sampleKey(bin, (sample + 2) % SAMPLE_VALUES)];
      const own = sampleKey(bin, sample);
      return [[own], [own, other], [other, own]][pick(3)]!;
    });
    // Its own fingerprint the held one's: the leads alike, so FEWEST_HITS hits make a copy (copyJudged).
    const fingerprint = packed(samples);
    return { bins, fingerprint, text: { keys: Uint32Array.from(keys), fingerprint } };
  });
}

/** Each case's text finds its fingerprint (held as `refs[n]`) with FEWEST_HITS hits, and exactly what judging every fingerprint held finds. */
function assertFindsEachCase(table: FingerprintTable<number>, cases: ReturnType<typeof fewestHitsCases>, refs: readonly number[], held: readonly Uint8Array[]) {
  for (const [n, c] of cases.entries()) {
    const found = table.copied(c.text, () => true).map((candidate) => `${candidate.held.ref}:${candidate.hits}`);
    assert.ok(found.includes(`${refs[n]}:${FEWEST_HITS}`), `bins ${c.bins}: ${found}`);
    const expected = held.flatMap((fingerprint, ref) => (judgedCopy(c.text, fingerprint) ? [`${ref}:${copyHits(c.text, fingerprint)}`] : []));
    assert.deepEqual(found.sort(), expected.sort(), `bins ${c.bins}`);
  }
}

describe('fingerprint table', () => {
  // A small threshold makes many pair keys crowded (filed by triples): the answers stay the same.
  for (const crowdedAt of [CROWDED_PAIR, 3])
    it(`finds what judging each fingerprint held finds, with the same hits, filed or not (crowded above ${crowdedAt})`, () => {
      const read = texts(12_000, 7)
        .map((text) => textShingles(text))
        .filter((t): t is TextShingles => t !== null);
      const table = new FingerprintTable<number>(crowdedAt);
      const held: TextShingles[] = [];
      let copies = 0;
      read.forEach((text, i) => {
        // Every 37th text looked up against everything held (a brute-force look-up of all is slow).
        if (i % 37 === 0) {
          const found = table
            .copied(text, () => true)
            .map((c) => `${c.held.ref}:${c.hits}`)
            .sort();
          const expected = held
            .flatMap((earlier, ref) => (judgedCopy(text, earlier.fingerprint) ? [`${ref}:${copyHits(text, earlier.fingerprint)}`] : []))
            .sort();
          assert.deepEqual(found, expected, `text ${i}`);
          copies += expected.length;
        }
        table.add({ ref: held.length, receivedMs: i, order: i, fingerprint: text.fingerprint });
        held.push(text);
      });
      assert.ok(copies > 20, `only ${copies} copies met: the test would not tell`);
      assert.ok(table.crowdedKeys > (crowdedAt === 3 ? 1_000 : 0), `${table.crowdedKeys} crowded pair keys: the test would not tell`);
    });

  it('files every fingerprint under a pair of any FEWEST_HITS of its bins', () => {
    const subsets = (from: number, size: number): number[][] =>
      size === 0 ? [[]] : Array.from({ length: BINS - from }, (_, d) => subsets(from + d + 1, size - 1).map((rest) => [from + d, ...rest])).flat();
    const all = subsets(0, FEWEST_HITS);
    assert.equal(all.length, 210);
    for (const bins of all)
      assert.ok(
        FILED_PAIRS.some(([i, j]) => bins.includes(i) && bins.includes(j)),
        `bins ${bins}`,
      );
  });

  for (const crowdedAt of [CROWDED_PAIR, 0])
    it(`finds a fingerprint whose samples the text holds in just FEWEST_HITS bins, whichever they are (crowded above ${crowdedAt})`, () => {
      const pick = seeded(5);
      const randomSamples = () => randomFingerprintSamples(pick);
      const cases = fewestHitsCases(pick);
      const table = new FingerprintTable<number>(crowdedAt);
      const held: Uint8Array[] = [];
      const hold = (fingerprint: Uint8Array) => {
        table.add({ ref: held.length, receivedMs: 0, order: held.length, fingerprint });
        held.push(fingerprint);
      };
      // Among others: the earlier ones filed when the files were last made, the last ones unfiled.
      const refs = cases.map((c, n) => {
        for (let i = 0; i < (n < cases.length / 2 ? 90 : 5); i++) hold(packed(randomSamples()));
        hold(c.fingerprint);
        return held.length - 1;
      });
      // With every key crowded, the table filed anew holds every fingerprint by triples alone.
      const tables = crowdedAt === 0 ? [table, table.filtered(() => true)] : [table];
      // (Random samples make a few pair keys alike.)
      if (crowdedAt === 0) assert.ok(tables[1]!.crowdedKeys > 0.99 * held.length * FILED_PAIRS.length, `${tables[1]!.crowdedKeys} crowded`);
      for (const looked of tables) assertFindsEachCase(looked, cases, refs, held);
    });

  it('finds a fingerprint with just FEWEST_HITS hits linked after its pair keys were crowded', () => {
    const pick = seeded(9);
    const cases = fewestHitsCases(pick);
    const table = new FingerprintTable<number>(0);
    const held: Uint8Array[] = [];
    const hold = (fingerprint: Uint8Array) => {
      table.add({ ref: held.length, receivedMs: 0, order: held.length, fingerprint });
      held.push(fingerprint);
    };
    // Every case held once, and others up to the 256th, whose add makes the files: every key is crowded then.
    for (const c of cases) hold(c.fingerprint);
    while (held.length < 256) hold(packed(randomFingerprintSamples(pick)));
    assert.ok(table.crowdedKeys > 0.99 * 256 * FILED_PAIRS.length, `${table.crowdedKeys} crowded`);
    // Held again: linked by triples under their crowded keys until the files are made again.
    const again = cases.map((c) => {
      hold(c.fingerprint);
      return held.length - 1;
    });
    assertFindsEachCase(table, cases, again, held);
  });

  it('leaves out what `eligible` refuses', () => {
    const read = texts(300, 11)
      .map((text) => textShingles(text))
      .filter((t): t is TextShingles => t !== null);
    const table = new FingerprintTable<number>();
    for (const [i, text] of read.entries()) table.add({ ref: i, receivedMs: i, order: i, fingerprint: text.fingerprint });
    const last = read.at(-1)!;
    const all = table.copied(last, () => true);
    assert.ok(all.length > 0);
    assert.deepEqual(table.copied(last, (entry) => entry.ref !== all[0]!.held.ref).length, all.length - 1);
    // A table filtered holds what it keeps, filed anew.
    const kept = table.filtered((entry) => entry.ref !== all[0]!.held.ref);
    assert.deepEqual(
      kept
        .copied(last, () => true)
        .map((c) => c.held.ref)
        .sort(),
      all
        .slice(1)
        .map((c) => c.held.ref)
        .sort(),
    );
  });

  it('refuses a text keeping more sample keys in a bin than textShingles keeps', () => {
    const table = new FingerprintTable<number>();
    table.add({ ref: 0, receivedMs: 0, order: 0, fingerprint: packed(Array.from({ length: BINS }, () => 1)) });
    const keys = Uint32Array.from([sampleKey(0, 1), sampleKey(0, 2), sampleKey(0, 3)]);
    assert.throws(() => table.copied({ keys, fingerprint: packed(Array.from({ length: BINS }, () => 1)) }, () => true), /more than 2 sample keys in bin 0/);
  });
});
