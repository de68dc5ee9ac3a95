// Copy detection's method over the hand-written pairs of test/corpus/copy-pairs.json (news
// prose labelled copy or not-copy by hand, covering every edit decisions.md names and the hard
// negatives): every label holds, whichever of the two texts arrived first.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { copyHits, judgedCopy, MIN_COPY_WORDS, textShingles } from '../../src/modules/corpus/copy-fingerprint.js';

interface Pair {
  id: string;
  label: 'copy' | 'not-copy';
  edit: string;
  text_a: string;
  text_b: string;
}

const { pairs } = JSON.parse(readFileSync(new URL('./copy-pairs.json', import.meta.url), 'utf8')) as { pairs: Pair[] };

/** Is `later` judged a copy of `earlier` (the earlier one known by its fingerprint alone)? */
function judged(earlier: string, later: string): { copy: boolean; hits: number | null } {
  const first = textShingles(earlier);
  const second = textShingles(later);
  if (first === null || second === null) return { copy: false, hits: null };
  return { copy: judgedCopy(second, first.fingerprint), hits: copyHits(second, first.fingerprint) };
}

describe('copy detection on hand-written pairs', () => {
  it('holds at least 40 pairs, with every edit and hard negative of decisions.md', () => {
    assert.ok(pairs.length >= 40, `${pairs.length} pairs`);
    const edits = new Set(pairs.map((p) => p.edit));
    for (const edit of [
      'headline',
      'trimmed-ending',
      'extended-ending',
      'added-paragraph',
      'removed-paragraph',
      'boilerplate',
      'whitespace-punctuation-case',
      'two-agencies',
      'rewrite-quoting-wire',
      'short-brief',
    ])
      assert.ok(edits.has(edit), edit);
  });

  for (const pair of pairs) {
    it(`${pair.id} (${pair.edit}) is judged ${pair.label}, whichever text came first`, () => {
      for (const [earlier, later] of [
        [pair.text_a, pair.text_b],
        [pair.text_b, pair.text_a],
      ] as const) {
        const { copy, hits } = judged(earlier, later);
        assert.equal(copy ? 'copy' : 'not-copy', pair.label, `hits ${hits}`);
      }
    });
  }

  it(`never judges a text of fewer than ${MIN_COPY_WORDS} words, even one repeated word for word`, () => {
    const brief = 'Officials said on Tuesday that the bridge would reopen next month after repairs, a spokesman for the city said. ';
    assert.equal(textShingles(brief.repeat(1)), null);
    const words = brief.trim().split(/\s+/).length;
    assert.ok(words < MIN_COPY_WORDS);
  });

  // The pairs' texts are of 270 to 320 words; wire stories run to a thousand and more, past
  // the words a new text is read for (the earlier lead must still be found among them).
  const stories = [...new Map(pairs.filter((p) => p.label === 'copy').map((p) => [p.id.split('-')[0], p.text_a])).values()];
  const long = stories.slice(0, 4).join('\n\n');
  const paragraphsOf = (text: string) => text.split(/\n\s*\n/);

  it('finds the copies of a story of over a thousand words, whichever came first', () => {
    assert.ok(long.split(/\s+/).length > 1_000);
    const dressed = `LONDON (Reuters) -\n\nBy a staff reporter\n\n${paragraphsOf(long).slice(0, -1).join('\n\n')}`;
    const [first, ...rest] = paragraphsOf(long);
    const added = [first, paragraphsOf(stories[5]!)[1], ...rest].join('\n\n');
    for (const copy of [dressed, added])
      for (const [earlier, later] of [
        [long, copy],
        [copy, long],
      ] as const) {
        const { copy: judgedOne, hits } = judged(earlier, later);
        assert.ok(judgedOne, `hits ${hits}`);
      }
    assert.equal(judged(long, stories.slice(4, 8).join('\n\n')).copy, false);
  });

  it('finds a story reprinted whole at the head of a longer one', () => {
    const { copy, hits } = judged(stories[0]!, stories.slice(0, 3).join('\n\n'));
    assert.ok(copy, `hits ${hits}`);
  });

  it('reads no difference in case, whitespace or punctuation', () => {
    const text = pairs.find((p) => p.label === 'copy')!.text_a;
    const shouted = text
      .toUpperCase()
      .replace(/\s+/g, '  ')
      .replace(/[.,;:]/g, ' - ');
    assert.deepEqual(textShingles(shouted)!.fingerprint, textShingles(text)!.fingerprint);
  });
});
