// An event's facts as the search index in memory holds them (memory-index.ts): what the
// filter's SQL face (filters/filter-sql.ts) reads of a live event, as memory-index.store.ts
// reads them from the tables.

/** One live event's facts, as memory-index.store.ts reads them. */
export interface IndexedEvent {
  id: string;
  typeId: string;
  /** First report date, microseconds since the epoch (PostgreSQL's precision: ties order as it does). */
  firstReportUs: number;
  /** cardinality(source_seqs): its distinct sources. */
  sources: number;
  articleSources: number;
  structuredSources: number;
  /** Its independent sources (corpus/independent-sources.ts), over all its reports and over its articles. */
  independent: number;
  articleIndependent: number;
  /** Entities by live canonical id (corpus/event-entities.ts); `participant`: the entity fills a role. */
  entities: { entityId: string; participant: boolean }[];
  /** The outlets among its sources (source kind ARTICLE). */
  outlets: string[];
  values: IndexedRoleValue[];
}

export interface IndexedRoleValue {
  roleId: string;
  structured: boolean;
  entityId: string | null;
  /** A DATE value as 00:00 UTC of its day, in ms. */
  dateMs: number | null;
  amount: number | null;
  /** Folded, as event_role_values stores it ('' for none written by ingest; null never equals a unit). */
  unit: string | null;
}
