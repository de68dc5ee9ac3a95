// Bulk set-ups of the benchmarks that need many rows fast: entities, beats and sensors written
// with one multi-row statement per few thousand, on an account whose plan never stops a run.
// Callers bump the filter versions once they are done (bumpFilterVersion), as a write through
// the services would.
import { randomUUID } from 'node:crypto';
import type { Database } from '../src/platform/db/database.js';
import { completeFilter, newSigningSecret } from '../src/modules/sensors/sensors.service.js';
import type { Runtime } from '../src/runtime.js';

const CHUNK = 5_000;

/** A plan under which no benchmark runs out of beats, clauses, credits or rate. */
export const BENCH_PLAN = {
  beats_max: 1_000_000,
  clauses_max: 10_000_000,
  default_spend_cap_credits: 1_000_000_000,
  retention_days: 3650,
  backfill_days: 0,
  search_credit_cost: 1,
  beat_entry_credit_cost: 1,
  rest_requests_per_minute: 60,
  mcp_requests_per_minute: 60,
  search_execution_retention_seconds: 86400,
  search_max_results: 1000,
};

/** An account with beats on plan `plan` (BENCH_PLAN, stored under that name) and a balance that lasts. */
export async function benchAccount(runtime: Runtime, plan: string) {
  await runtime.accounts.putPlan(plan, BENCH_PLAN);
  return runtime.accounts.createAccount({ display_name: 'Bench', plan, credit_balance: 1_000_000_000, entitlements: { beats: true } });
}

/** `count` new organizations named `${prefix} <n>`. */
export async function insertEntities(db: Database, count: number, now: Date, prefix = 'Company'): Promise<{ id: string; name: string }[]> {
  const made = Array.from({ length: count }, (_, i) => ({ id: randomUUID(), name: `${prefix} ${i}` }));
  for (let done = 0; done < count; done += 50_000) {
    const part = made.slice(done, done + 50_000);
    await db.query(
      `INSERT INTO entities (id, name, type, canonical_id, created_at) SELECT id, name, 'ORGANIZATION', id, $3 FROM unnest($1::uuid[], $2::text[]) AS t(id, name)`,
      [part.map((e) => e.id), part.map((e) => e.name), now],
    );
  }
  return made;
}

/** A stored beat clause: a fresh id and every field, the defaults filled in. */
export function beatClause(fields: { event_type_id?: string | null; involved_entity_ids?: string[] }) {
  return {
    id: randomUUID(),
    event_type_id: fields.event_type_id ?? null,
    involved_entity_ids: fields.involved_entity_ids ?? [],
    involved_entity_list_ids: [],
    required_source_news_outlet_ids: [],
    report_source_kind: 'ANY',
    represented_entity_ids: [],
    represented_entity_list_ids: [],
    min_reports: 1,
    scope: 'MENTIONED',
    role_filters: [],
  };
}

/** One enabled beat per item of `clauses` (its stored clauses), on the account. */
export async function insertBeats(db: Database, accountId: string, clauses: readonly object[][], now: Date): Promise<void> {
  for (let done = 0; done < clauses.length; done += CHUNK) {
    const part = clauses.slice(done, done + CHUNK);
    await db.query(
      `INSERT INTO beats (id, account_id, name, description, clauses, enabled, paused, spend_cap_credits, counters_month, created_at, updated_at)
       SELECT id, $3, 'bench', NULL, c, true, false, 1000000000, date_trunc('month', $4::timestamptz AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', $4, $4
         FROM unnest($1::uuid[], $2::jsonb[]) AS t(id, c)`,
      [part.map(() => randomUUID()), part.map((c) => JSON.stringify(c)), accountId, now],
    );
  }
}

/**
 * One enabled sensor per item of `entityIds` (the entities its filter names), each with one
 * webhook at `webhookUrl(i)` and a signing secret sealed as the service seals it.
 */
export async function insertSensors(
  runtime: Runtime,
  accountId: string,
  entityIds: readonly string[][],
  webhookUrl: (i: number) => URL,
  now: Date,
): Promise<void> {
  for (let done = 0; done < entityIds.length; done += CHUNK) {
    const ids: string[] = [];
    const filters: string[] = [];
    const actions: string[] = [];
    const secrets: string[] = [];
    for (let i = done; i < Math.min(entityIds.length, done + CHUNK); i++) {
      const id = randomUUID();
      const url = webhookUrl(i);
      ids.push(id);
      filters.push(JSON.stringify(completeFilter({ involved_entity_ids: entityIds[i] })));
      actions.push(JSON.stringify([{ id: randomUUID(), type: 'webhook', url: url.href, host: `${url.hostname}:${url.port || '443'}` }]));
      secrets.push(runtime.sensorSecrets.seal(id, newSigningSecret()));
    }
    await runtime.db.query(
      `INSERT INTO sensors (id, account_id, name, description, enabled, filter, actions, signing_secret, created_at, updated_at)
       SELECT id, $5, 'bench', NULL, true, f, a, s, $6, $6 FROM unnest($1::uuid[], $2::jsonb[], $3::jsonb[], $4::text[]) AS t(id, f, a, s)`,
      [ids, filters, actions, secrets, accountId, now],
    );
  }
}
