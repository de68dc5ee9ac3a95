import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bcubed, bcubedOf } from '../../src/modules/demo/bcubed.js';

/** Items from a string per side: position i is item i, its letter its cluster (or class). */
const items = (clusters: string, truths: string) => [...clusters].map((cluster, i) => ({ cluster, truth: truths[i]! }));

const close = (actual: number, expected: number) => assert.ok(Math.abs(actual - expected) < 1e-12, `${actual} is not ${expected}`);

describe('B-cubed', () => {
  it('when the clusters are the classes, then precision and recall are 1', () => {
    const score = bcubedOf(items('xxyyz', 'aabbc'));
    assert.deepEqual(score, { precision: 1, recall: 1, items: 5 });
  });

  it('when everything is one cluster, then recall is 1 and precision the mean share of each item class', () => {
    // a, a, b: the two a items see 2/3 of their cluster as theirs, the b item 1/3.
    const score = bcubedOf(items('xxx', 'aab'));
    close(score.precision, (2 / 3 + 2 / 3 + 1 / 3) / 3);
    close(score.recall, 1);
  });

  it('when every item is alone, then precision is 1 and recall the mean share of each class it holds', () => {
    const score = bcubedOf(items('xyz', 'aab'));
    close(score.precision, 1);
    close(score.recall, (1 / 2 + 1 / 2 + 1) / 3);
  });

  it('when clusters cut across classes, then each item scores by its own cluster and class', () => {
    // Clusters {1,2,3} {4,5}; classes {1,2} {3,4,5}.
    // Precision: 2/3, 2/3, 1/3, 1, 1. Recall: 1, 1, 1/3, 2/3, 2/3.
    const score = bcubedOf(items('xxxyy', 'aabbb'));
    close(score.precision, 11 / 15);
    close(score.recall, 11 / 15);
    // Clusters {1,2} {3,4,5}; classes {1,2,3,4} {5}: a class split over two clusters, one shared with another class.
    const split = bcubedOf(items('xxyyy', 'aaaab'));
    close(split.precision, (1 + 1 + 2 / 3 + 2 / 3 + 1 / 3) / 5);
    close(split.recall, (2 / 4 + 2 / 4 + 2 / 4 + 2 / 4 + 1) / 5);
  });

  it('when the table is given as counted cells, then it scores as the items would', () => {
    const fromItems = bcubedOf(items('xxxyywwvv', 'aabbbccdd'));
    // Cells: x∩a 2 (x 3, a 2), x∩b 1 (x 3, b 3), y∩b 2 (y 2, b 3), and two clusters that are their classes.
    const fromCells = bcubed([
      { shared: 2, cluster: 3, truth: 2 },
      { shared: 1, cluster: 3, truth: 3 },
      { shared: 2, cluster: 2, truth: 3 },
      { shared: 2, cluster: 2, truth: 2, times: 2 },
    ]);
    close(fromCells.precision, fromItems.precision);
    close(fromCells.recall, fromItems.recall);
    assert.equal(fromCells.items, 9);
  });

  it('when there are no items, then nothing is wrong', () => {
    assert.deepEqual(bcubed([]), { precision: 1, recall: 1, items: 0 });
  });
});
