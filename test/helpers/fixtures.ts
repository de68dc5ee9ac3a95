/** The plan fields of decisions.md with their defaults (the plan "standard"). */
export const STANDARD_PLAN_FIELDS = {
  beats_max: 10,
  clauses_max: 100,
  default_spend_cap_credits: 1000,
  retention_days: 90,
  backfill_days: 7,
  search_credit_cost: 1,
  beat_entry_credit_cost: 1,
  rest_requests_per_minute: 60,
  mcp_requests_per_minute: 60,
  search_execution_retention_seconds: 86400,
  search_max_results: 1000,
};

/** Role definitions of an event type from `{code_name: expected_type}`; names follow the codes. */
export function roleList(spec: Record<string, string | null>) {
  return Object.entries(spec).map(([code_name, expected_type]) => ({
    code_name,
    name: code_name.charAt(0).toUpperCase() + code_name.slice(1).replace(/_/g, ' '),
    expected_type,
  }));
}

/** A saved filter's fields with their defaults (sensor filters; beat clauses add scope and role_filters). */
export const SAVED_FILTER_DEFAULTS = {
  event_type_id: null,
  involved_entity_ids: [],
  involved_entity_list_ids: [],
  required_source_news_outlet_ids: [],
  report_source_kind: 'ANY',
  represented_entity_ids: [],
  represented_entity_list_ids: [],
  min_reports: 1,
  min_independent_sources: 1,
};
