// The mix of searches the search benchmarks send (bench/search.ts over HTTPS,
// bench/search-index-scale.ts to the index alone), its ingredients drawn from the corpus.
import type { Runtime } from '../src/runtime.js';

export interface MixCase {
  name: string;
  body: Record<string, unknown>;
}

/** The event type ids by code name, read once. */
export async function typeIds(runtime: Runtime): Promise<(codeName: string) => string> {
  const types = await runtime.db.query<{ id: string; code_name: string }>('SELECT id, code_name FROM event_types ORDER BY code_name');
  return (codeName) => types.find((t) => t.code_name === codeName)!.id;
}

/** The widest searches a new user sends first: counted from the index's day tallies (from the day counts while it builds). */
export function widestSearches(typeId: (codeName: string) => string): MixCase[] {
  return [
    { name: 'no filter, 365 days', body: { lookback_days: 365 } },
    { name: 'type, 365 days', body: { lookback_days: 365, event_type_id: typeId('earthquake') } },
  ];
}

/** The whole mix, the widest searches first (it makes an entity list of 20 popular entities). */
export async function searchMix(runtime: Runtime, typeId: (codeName: string) => string): Promise<MixCase[]> {
  const { db } = runtime;
  const popular = await db.query<{ entity_id: string; n: number }>(
    `SELECT entity_id, count(*)::int AS n FROM (SELECT x.id AS entity_id FROM events e CROSS JOIN LATERAL unnest(e.involved_entity_ids) AS x(id) WHERE e.merged_into_event_id IS NULL AND e.deleted_at IS NULL) AS named GROUP BY entity_id ORDER BY count(*) DESC LIMIT 40`,
  );
  const [rare] = await db.query<{ entity_id: string }>(
    `SELECT entity_id FROM (SELECT x.id AS entity_id FROM events e CROSS JOIN LATERAL unnest(e.involved_entity_ids) AS x(id) WHERE e.merged_into_event_id IS NULL AND e.deleted_at IS NULL) AS named GROUP BY entity_id HAVING count(*) BETWEEN 3 AND 10 ORDER BY entity_id LIMIT 1`,
  );
  const outlets = await db.query<{ id: string }>('SELECT id FROM news_outlets ORDER BY id LIMIT 3');
  const list = await runtime.reference.createEntityList({
    name: 'bench list',
    owner_account_id: null,
    entity_ids: popular.slice(20, 40).map((p) => p.entity_id),
  });
  return [
    ...widestSearches(typeId),
    { name: 'type, 30 days', body: { lookback_days: 30, event_type_id: typeId('earthquake') } },
    { name: 'no filter, 7 days', body: { lookback_days: 7 } },
    { name: 'popular entity, 90 days', body: { lookback_days: 90, involved_entity_ids: [popular[0]!.entity_id] } },
    { name: 'rare entity, 365 days', body: { lookback_days: 365, involved_entity_ids: [rare!.entity_id] } },
    { name: 'entity list (20), 30 days', body: { lookback_days: 30, involved_entity_list_ids: [list.id] } },
    {
      name: 'type + outlets + min_reports 2, 30 days',
      body: { lookback_days: 30, event_type_id: typeId('acquisition'), required_source_news_outlet_ids: outlets.map((o) => o.id), min_reports: 2 },
    },
    {
      name: 'type + min_independent_sources 2, 90 days',
      body: { lookback_days: 90, event_type_id: typeId('earthquake'), min_independent_sources: 2 },
    },
    {
      name: 'type + amount role filter, 90 days',
      body: { lookback_days: 90, event_type_id: typeId('funding_round'), role_filters: [{ kind: 'amount_gte', role_code_name: 'amount', min_value: 1e9 }] },
    },
  ];
}

/** A key (EVENTS_READ) of a new account that can afford every search, on a plan whose budget never stops a run. */
export async function searchKey(runtime: Runtime): Promise<string> {
  const plan = `bench_${Date.now()}`;
  await runtime.db.query(
    `INSERT INTO plans SELECT $1, beats_max, clauses_max, default_spend_cap_credits, retention_days, backfill_days, search_credit_cost,
            beat_entry_credit_cost, 1000000, 1000000, search_execution_retention_seconds, search_max_results, created_at, updated_at
       FROM plans WHERE name = 'standard'`,
    [plan],
  );
  const account = await runtime.accounts.createAccount({ plan, credit_balance: 10_000_000 });
  return (await runtime.accounts.createApiKey(account.id, { name: 'bench', scopes: ['EVENTS_READ'] })).key!;
}
