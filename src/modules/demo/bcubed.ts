// B-cubed precision and recall of a clustering against its ground truth (Bagga and Baldwin):
// per item, precision is the share of its cluster that belongs to its true class, recall the
// share of its true class that lies in its cluster; both averaged over the items. Here the
// items are articles, the clusters the events the service formed and the classes the events
// the articles were written about.

/**
 * One cell of the table of clusters against classes: `shared` items lie in both one cluster
 * of `cluster` items and one class of `truth` items; `times` such cells (1 if absent).
 */
export interface BcubedCell {
  shared: number;
  cluster: number;
  truth: number;
  times?: number;
}

export interface Bcubed {
  precision: number;
  recall: number;
  items: number;
}

/** B-cubed from the cells of the table (each of the `shared` items of a cell scores shared / cluster and shared / truth). */
export function bcubed(cells: Iterable<BcubedCell>): Bcubed {
  let items = 0;
  let precision = 0;
  let recall = 0;
  for (const { shared, cluster, truth, times = 1 } of cells) {
    items += times * shared;
    precision += (times * shared * shared) / cluster;
    recall += (times * shared * shared) / truth;
  }
  // No items: nothing was put anywhere wrongly.
  return items === 0 ? { precision: 1, recall: 1, items } : { precision: precision / items, recall: recall / items, items };
}

/** B-cubed of items given as their cluster and their true class. */
export function bcubedOf(items: Iterable<{ cluster: string; truth: string }>): Bcubed {
  const shared = new Map<string, { cluster: string; truth: string; n: number }>();
  const clusters = new Map<string, number>();
  const truths = new Map<string, number>();
  for (const { cluster, truth } of items) {
    const key = JSON.stringify([cluster, truth]);
    const cell = shared.get(key) ?? { cluster, truth, n: 0 };
    cell.n++;
    shared.set(key, cell);
    clusters.set(cluster, (clusters.get(cluster) ?? 0) + 1);
    truths.set(truth, (truths.get(truth) ?? 0) + 1);
  }
  return bcubed([...shared.values()].map((c) => ({ shared: c.n, cluster: clusters.get(c.cluster)!, truth: truths.get(c.truth)! })));
}
