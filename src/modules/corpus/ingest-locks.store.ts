// SQL for the locks ingest takes and the look-ups made under them: the clustering locks (a
// type's, and a report's participants'), the article locks (by outlet and url), and the stored
// article an outlet and url already name. Both ingest paths and event merges take them here,
// in one order, so no two of them deadlock.
import type { Queryable } from '../../platform/db/database.js';
import { type LockedSurvivor, lockedSurvivors, referenceStore } from './reference.store.js';

/** The advisory lock space (first key) of the per-participant clustering locks. */
const PARTICIPANT_LOCKS = 0x636c7573; // "clus"
const ARTICLE_LOCKS = 0x61727469; // "arti"
/** Copy detection's one lock (lockCopies). */
const COPY_LOCK = 0x636f7079; // "copy"
/**
 * An article's lock is one of this many, by the hash of its outlet and url: a bulk batch of
 * 10,000 articles holds at most this many locks (the lock table is shared and bounded:
 * max_locks_per_transaction × connections), and two articles sharing one only wait for each
 * other. Every path must name an article's lock by articleLock.
 */
const ARTICLE_LOCK_BUCKETS = 1024;
const articleLock = (key: string) => `(hashtext(${key}) & ${ARTICLE_LOCK_BUCKETS - 1})`;
/** An article's key: its outlet and url (operations.md: an article is identified by them). */
export const articleKey = (outletId: string, url: string) => `${outletId} ${url}`;

/**
 * The first stored report of the article named by the outlet and url expressions, on the hash
 * index of urls (operations.md: an article is identified by its outlet and url). The LIMIT
 * keeps a lateral use from being flattened: joined as sets, the planner hashes the whole
 * reports table for a batch of a few thousand urls, a cost that grows with the corpus.
 */
const storedReportOf = (outletId: string, url: string) =>
  `SELECT r.id, r.event_id, r.report_date, r.copy_group, r.received_seq FROM reports r
    WHERE r.url = ${url} AND r.outlet_id = ${outletId} ORDER BY r.received_seq LIMIT 1`;

/** A stored article: its report, the live event it is in (the survivor of its own), its report date, and the report it was found a copy of. */
export interface StoredArticle {
  id: string;
  incident_id: string;
  report_date: Date;
  copy_of_report_id: string | null;
}

/**
 * A stored report's copy_of_report_id, as SQL over `r` (storedReportOf's columns): the origin of
 * its copy group among the group's reports in its event received before it; null for no copy.
 */
const copyOfStored = `(SELECT o.id FROM reports o
   WHERE r.copy_group IS NOT NULL AND o.event_id = r.event_id AND COALESCE(o.copy_group, o.received_seq) = r.copy_group AND o.received_seq < r.received_seq
   ORDER BY o.report_date, o.received_seq LIMIT 1)`;

export const ingestLocksStore = {
  /**
   * Takes the clustering locks of event types, in one sorted order, for the rest of the
   * transaction: nothing else clusters into events of these types meanwhile. Event merges take
   * it; a transaction that will ingest several types (bulk import) takes them all up front, so
   * two never deadlock.
   */
  async lockClustering(tx: Queryable, eventTypeIds: readonly string[]): Promise<void> {
    const keys = [...new Set(eventTypeIds)].sort().map((id) => `cluster:${id}`);
    await tx.query('SELECT pg_advisory_xact_lock(hashtext(k)) FROM unnest($1::text[]) WITH ORDINALITY AS t(k, n) ORDER BY n', [keys]);
  },

  /**
   * The clustering locks of one report, in one statement: its type's, shared (so merges of the
   * type, which take it whole, wait), then one per participant entity, in one sorted order. A
   * report can only cluster into an event that shares a participant with it, and only a report
   * naming that participant can give an event one; so two reports with no participant in
   * common cluster at the same time without seeing each other, and reports that share one take
   * turns.
   */
  async lockReportClustering(tx: Queryable, eventTypeId: string, participantIds: readonly string[]): Promise<void> {
    const keys = [`cluster:${eventTypeId}`, ...[...new Set(participantIds)].sort().map((id) => `${eventTypeId}:${id}`)];
    await tx.query(
      `SELECT CASE WHEN n = 1 THEN pg_advisory_xact_lock_shared(hashtext(k)) ELSE pg_advisory_xact_lock($2::int, hashtext(k)) END
         FROM unnest($1::text[]) WITH ORDINALITY AS t(k, n) ORDER BY n`,
      [keys, PARTICIPANT_LOCKS],
      { prepared: true },
    );
  },

  /**
   * Copy detection's lock, for the rest of the transaction: every transaction that writes a
   * fingerprinted report holds it, so under it every such report is committed and visible, and
   * they were written (their receive sequence values drawn) one transaction at a time
   * (recent-copies.ts relies on both). Its place in the order: after a type's clustering lock
   * and the article locks, before the participants' clustering locks. A single call names its
   * type (its shared clustering lock is taken first, again if held: an article without a url
   * has taken none yet); a bulk ingest holds its types' already.
   */
  async lockCopies(tx: Queryable, eventTypeId: string | null): Promise<void> {
    if (eventTypeId === null) await tx.query('SELECT pg_advisory_xact_lock($1::int, 0)', [COPY_LOCK]);
    else
      await tx.query('SELECT pg_advisory_xact_lock_shared(hashtext($1)), pg_advisory_xact_lock($2::int, 0)', [`cluster:${eventTypeId}`, COPY_LOCK], {
        prepared: true,
      });
  },

  /** The article locks of these (outlet, url) pairs, in one sorted order. */
  async lockArticles(tx: Queryable, articles: readonly { outletId: string; url: string }[]): Promise<void> {
    const keys = [...new Set(articles.map(({ outletId, url }) => articleKey(outletId, url)))];
    if (keys.length === 0) return;
    await tx.query(
      `SELECT pg_advisory_xact_lock($2::int, lock) FROM (SELECT DISTINCT ${articleLock('k')} AS lock FROM unnest($1::text[]) AS t(k)) AS l ORDER BY lock`,
      [keys, ARTICLE_LOCKS],
    );
  },

  /**
   * An article's first statement: whether its outlet exists and its event type's version (null:
   * no such type; event-type-cache.ts). With a url it also takes the article's locks: its type's
   * clustering lock (shared), then the lock of its outlet and url, for the rest of the
   * transaction, so two ingests of one article, on any processes, add it once. Every ingest
   * takes the type's clustering lock before the article's (a bulk ingest takes its types whole
   * up front), so a single call and a bulk request with the same article never deadlock; the
   * two are taken in the order the select list names them.
   */
  async openArticle(tx: Queryable, article: { outletId: string; eventTypeId: string; url: string | null }) {
    const { outletId, eventTypeId, url } = article;
    const [row] = await tx.query<{ outlet: boolean; type_version: number | null }>(
      `SELECT EXISTS (SELECT 1 FROM news_outlets WHERE id = $1) AS outlet, (SELECT version FROM event_types WHERE id = $2) AS type_version
              ${url ? `, pg_advisory_xact_lock_shared(hashtext($3)) AS type_lock, pg_advisory_xact_lock($4::int, ${articleLock('$5')}) AS article_lock` : ''}`,
      [outletId, eventTypeId, ...(url ? [`cluster:${eventTypeId}`, ARTICLE_LOCKS, articleKey(outletId, url)] : [])],
      { prepared: true },
    );
    return { outlet: row!.outlet, typeVersion: row!.type_version };
  },

  /** Which of these outlets exist: a bulk batch's outlet look-up, as openArticle makes one article's. */
  async existingOutlets(tx: Queryable, outletIds: readonly string[]): Promise<Set<string>> {
    const rows = await tx.query<{ id: string }>('SELECT id FROM news_outlets WHERE id = ANY($1::uuid[])', [[...new Set(outletIds)]]);
    return new Set(rows.map((row) => row.id));
  },

  /**
   * Read under the article's lock (openArticle): the stored article an outlet and url name, or
   * null; and, in the same statement, the entities it names resolved to their survivors, which
   * it share-locks (as referenceStore.resolveEntitiesLocked does, and looks them up again the
   * same way when one was merged meanwhile).
   */
  async storedArticle(tx: Queryable, outletId: string, url: string | null, entityIds: readonly string[]) {
    const [row] = await tx.query<{ id: string | null; incident_id: string; report_date: Date; copy_of_report_id: string | null; entities: LockedSurvivor[] }>(
      `WITH held AS (${lockedSurvivors('$3')})
       SELECT stored.id, stored.incident_id, stored.report_date, stored.copy_of_report_id, (SELECT COALESCE(json_agg(held), '[]') FROM held) AS entities
         FROM (SELECT) AS one
         LEFT JOIN LATERAL (
           SELECT r.id, COALESCE(e.merged_into_event_id, e.id) AS incident_id, r.report_date, ${copyOfStored} AS copy_of_report_id
             FROM (${storedReportOf('$1', '$2')}) AS r JOIN events e ON e.id = r.event_id
         ) AS stored ON true`,
      [outletId, url, [...new Set(entityIds)]],
      { prepared: true },
    );
    const { id, incident_id, report_date, copy_of_report_id, entities } = row!;
    return {
      stored: id === null ? null : ({ id, incident_id, report_date, copy_of_report_id } satisfies StoredArticle),
      entities: entities.every((entity) => entity.survivor) ? entities : await referenceStore.resolveEntitiesLocked(tx, [...new Set(entityIds)]),
    };
  },

  /** The stored articles among these, by `articleKey` (outlet and url), as storedArticle finds one. */
  async storedArticles(tx: Queryable, articles: readonly { outletId: string; url: string }[]): Promise<Map<string, StoredArticle>> {
    const found = new Map<string, StoredArticle>();
    if (articles.length === 0) return found;
    const rows = await tx.query<StoredArticle & { outlet_id: string; url: string }>(
      `SELECT a.outlet_id, a.url, r.id, COALESCE(e.merged_into_event_id, e.id) AS incident_id, r.report_date, ${copyOfStored} AS copy_of_report_id
         FROM unnest($1::uuid[], $2::text[]) AS a(outlet_id, url)
         CROSS JOIN LATERAL (${storedReportOf('a.outlet_id', 'a.url')}) AS r
         JOIN events e ON e.id = r.event_id`,
      [articles.map((a) => a.outletId), articles.map((a) => a.url)],
    );
    for (const { outlet_id, url, ...article } of rows) found.set(articleKey(outlet_id, url), article);
    return found;
  },
};
