// Copy detection against the demo corpus's ground truth: pairwise precision and recall. Pairs
// the service put in one copy group are its predicted pairs; pairs that tell one true story
// (the story in the url, TRUE_STORY_OF_URL: a wire story's copies share it) are the true
// pairs. Pairs are counted from group sizes (n·(n−1)/2 a group), never by joining reports to
// themselves: a million-event corpus has three million reports.
import type { Queryable } from '../../platform/db/database.js';
import { TRUE_STORY_OF_URL } from './demo-articles.js';

export interface CopyQuality {
  /** Share of predicted pairs that are true pairs; null when the service grouped no two reports. */
  precision: number | null;
  /** Share of true pairs the service grouped; null when no story was told twice. */
  recall: number | null;
  truePairs: number;
  predictedPairs: number;
  /** Share of the articles that republish a story another article told before (the ground truth's copies); null with no articles. */
  copyShare: number | null;
}

/** The pair counts copy quality is made of. */
export interface PairCounts {
  /** Pairs in one copy group. */
  predicted: number;
  /** Pairs telling one true story. */
  truth: number;
  /** Pairs that are both. */
  shared: number;
  reports: number;
  /** Distinct true stories among the reports. */
  stories: number;
}

/** Pairs among groups of these sizes. */
export const pairsIn = (sizes: Iterable<number>): number => {
  let pairs = 0;
  for (const n of sizes) pairs += (n * (n - 1)) / 2;
  return pairs;
};

/** Precision, recall and the copy share from the pair counts. */
export function copyQualityOf(counts: PairCounts): CopyQuality {
  return {
    precision: counts.predicted === 0 ? null : counts.shared / counts.predicted,
    recall: counts.truth === 0 ? null : counts.shared / counts.truth,
    truePairs: counts.truth,
    predictedPairs: counts.predicted,
    copyShare: counts.reports === 0 ? null : (counts.reports - counts.stories) / counts.reports,
  };
}

/**
 * Copy quality over the article reports of these outlets (a demo run's own). A report's copy
 * group is its copy_group (the receive sequence value of the group's first report), or its
 * own receive sequence value when it has none (migrations/023_copy_groups.sql).
 */
export async function copyQuality(db: Queryable, outletIds: readonly string[]): Promise<CopyQuality> {
  // n·(n−1)/2 in bigint is exact (one of n, n−1 is even); float8 reads back as a number.
  const pairs = (by: string) => `(SELECT coalesce(sum(n * (n - 1) / 2), 0)::float8 FROM (SELECT count(*) AS n FROM loaded GROUP BY ${by}) g)`;
  const rows = await db.query<PairCounts>(
    `WITH loaded AS MATERIALIZED (
       SELECT coalesce(copy_group, received_seq) AS grp, ${TRUE_STORY_OF_URL('url')} AS story
         FROM reports r
        WHERE r.outlet_id = ANY($1::uuid[])
     )
     SELECT ${pairs('grp')} AS predicted, ${pairs('story')} AS truth, ${pairs('grp, story')} AS shared,
            (SELECT count(*) FROM loaded)::float8 AS reports, (SELECT count(DISTINCT story) FROM loaded)::float8 AS stories`,
    [outletIds],
  );
  return copyQualityOf(rows[0]!);
}
