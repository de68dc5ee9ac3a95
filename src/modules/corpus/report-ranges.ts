// The pages of `reports` that its BRIN indexes (receive sequence and receive time, migration
// 023) have not summarized yet, summarized by the writers as they go.
//
// An insert into a summarized range widens that range's summary, but the pages a table grows
// by stay unsummarized until a VACUUM or a call summarizes them, and a bitmap scan of a BRIN
// index reads every unsummarized page whatever it asks for. Copy detection reads the reports
// written since it last looked by receive sequence value, under its lock, in every ingest
// (recent-copies.ts): between two VACUUMs of `reports` that read went through every page added
// since the last one. PostgreSQL's autovacuum waits until a fifth of the table is new (600,000
// reports at a million events), and the embedded database has no autovacuum at all. During a
// million-event load on PostgreSQL, `reports` was not vacuumed once in its first million rows,
// and that read of 6,000 rows went through 19,600 pages (165 ms) at 100,000 events and 43,000
// pages (483 ms) at 225,000 (bench/RESULTS.md, "A compact corpus, sixth step").
import type { Logger } from 'pino';
import type { Database } from '../../platform/db/database.js';
import { copiesStore } from './copies.store.js';

/** Reports a process writes before it summarizes the new pages (about 70 pages of reports). */
const SUMMARIZE_AFTER_REPORTS = 1_000;
/**
 * Summarizing takes a lock that VACUUM and ANALYZE hold for their whole run (and that two
 * summaries conflict on): a writer gives up after this long (autovacuum would be cancelled
 * after a second's wait), and a VACUUM summarizes the pages itself.
 */
const LOCK_TIMEOUT = '100ms';
const LOCK_NOT_AVAILABLE = '55P03';

/** A process's summaries: `wrote` after each commit that wrote reports, with how many. */
export function reportRangeSummaries(db: Database, logger: Logger) {
  let unsummarized = 0;
  let running = false;
  return {
    async wrote(reports: number): Promise<void> {
      unsummarized += reports;
      if (unsummarized < SUMMARIZE_AFTER_REPORTS || running) return;
      running = true;
      unsummarized = 0;
      try {
        await db.transaction((tx) => copiesStore.summarizeNewPages(tx, LOCK_TIMEOUT));
      } catch (error) {
        if ((error as { code?: string }).code === LOCK_NOT_AVAILABLE) logger.debug('reports are being vacuumed: their new pages are summarized there');
        else logger.warn({ err: error }, 'summarizing the new pages of reports failed; the next writer tries again');
      } finally {
        running = false;
      }
    },
  };
}
