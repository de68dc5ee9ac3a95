// An event's independent sources (decisions.md, "independent sources"): among the reports
// counted, each copy group's origin (its report with the earliest report date, ties by
// receive order) is the one that counts; the count is the distinct outlets among those
// origins, a structured report counting as its filing account. A report's copy group is
// COALESCE(copy_group, received_seq) (migration 023). Counted over the reports of one event: a copy
// placed in another event (by incident_id) is an origin there. Never more than the distinct
// sources, and equal to them where no two reports of the event share a group.
//
// Two faces, held to each other by test/filters/filter-faces.test.ts: SQL (the event view and
// the filter's SQL face) and memory (the matching face and the search index's build).

/**
 * The independent sources of event `event` (SQL) among its reports that `where` (over `r`)
 * counts, as an int.
 */
export const independentSourcesSql = (event: string, where: string) => `(SELECT count(DISTINCT o.source)::int FROM (
    SELECT DISTINCT ON (COALESCE(r.copy_group, r.received_seq)) COALESCE(r.outlet_id, r.account_id, r.id) AS source
      FROM reports r WHERE r.event_id = ${event} AND ${where}
     ORDER BY COALESCE(r.copy_group, r.received_seq), r.report_date, r.received_seq) o)`;

/** A counted report as the memory face reads it. */
export interface GroupedReport {
  /** COALESCE(copy_group, received_seq), as text. */
  group: string;
  /** Its outlet, or its filing account. */
  sourceId: string;
  /** Report date, ms (or µs: any one unit for all). */
  date: number;
  seq: number;
}

/** The independent sources among these reports (all of one event). */
export function independentSourceCount(reports: Iterable<GroupedReport>): number {
  const origins = new Map<string, GroupedReport>();
  for (const report of reports) {
    const origin = origins.get(report.group);
    if (!origin || report.date < origin.date || (report.date === origin.date && report.seq < origin.seq)) origins.set(report.group, report);
  }
  const sources = new Set<string>();
  for (const origin of origins.values()) sources.add(origin.sourceId);
  return sources.size;
}
