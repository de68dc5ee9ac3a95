// The list envelope of paginated list endpoints (decisions.md, "Pagination of list
// endpoints"): read one row more than the page to know whether another follows.

/** A page of `limit` items from up to `limit + 1` rows; `next_cursor` is the last item's id. */
export function listPage<T extends { id: string }>(rows: readonly T[], limit: number) {
  const data = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  return { object: 'list' as const, data, has_more: hasMore, next_cursor: hasMore ? data[data.length - 1]!.id : null };
}
