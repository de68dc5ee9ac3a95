// The bulk path into the corpus, for generated or migrated corpora whose clustering is
// already decided: whole events with their reports, written in a few multi-row statements
// per batch. The event state is computed by the same module as the ingest path's
// (event-state.ts), only from memory instead of re-read per report.
import type { Queryable } from '../../platform/db/database.js';
import { rebuildEventIndex } from './event-index.js';
import { eventState } from './event-state.js';
import { reportDate } from './events.service.js';
import type { RoleRow } from './reference.store.js';

export interface BulkRoleValue {
  roleId: string;
  entityId?: string;
  date?: string;
  amount?: { value: number; unit: string };
  text?: string;
}

export interface BulkReport {
  id: string;
  outletId: string;
  publishedAt: Date | null;
  receivedAt: Date;
  happenedAt: string | null;
  headline: string | null;
  url: string | null;
  values: BulkRoleValue[];
  mentions: string[];
}

export interface BulkEvent {
  id: string;
  eventTypeId: string;
  reports: BulkReport[];
}

export interface BulkContext {
  types: ReadonlyMap<string, { template: string; roles: readonly RoleRow[] }>;
  /** Names of the (live, canonical) entities the events name. */
  entityNames: ReadonlyMap<string, string>;
  now: Date;
}

/** Inserts whole events in one go; the caller's transaction makes a batch all-or-nothing. */
export async function bulkInsertEvents(tx: Queryable, events: readonly BulkEvent[], context: BulkContext): Promise<void> {
  const ev = {
    id: [] as string[],
    type: [] as string[],
    happened: [] as (string | null)[],
    happenedOn: [] as (string | null)[],
    first: [] as Date[],
    last: [] as Date[],
    sentence: [] as (string | null)[],
    involved: [] as string[],
  };
  const rep = {
    id: [] as string[],
    event: [] as string[],
    type: [] as string[],
    outlet: [] as string[],
    published: [] as (Date | null)[],
    received: [] as Date[],
    date: [] as Date[],
    happened: [] as (string | null)[],
    headline: [] as (string | null)[],
    url: [] as (string | null)[],
  };
  const val = {
    report: [] as string[],
    position: [] as number[],
    role: [] as string[],
    entity: [] as (string | null)[],
    date: [] as (string | null)[],
    amount: [] as (number | null)[],
    unit: [] as (string | null)[],
    text: [] as (string | null)[],
  };
  const men = { report: [] as string[], entity: [] as string[] };
  const ent = { event: [] as string[], entity: [] as string[], participant: [] as boolean[], first: [] as Date[] };

  for (const event of events) {
    const type = context.types.get(event.eventTypeId)!;
    // Inserted oldest first, so receive order follows report dates as on the ingest path.
    const reports = event.reports
      .map((report) => ({ report, date: reportDate(report.publishedAt, report.receivedAt) }))
      .sort((a, b) => a.date.getTime() - b.date.getTime());
    const state = eventState(
      reports.map(({ report, date }) => ({
        id: report.id,
        reportDate: date,
        happenedAt: report.happenedAt,
        values: report.values.map((v) => ({
          roleId: v.roleId,
          entityId: v.entityId ?? null,
          entityName: v.entityId ? (context.entityNames.get(v.entityId) ?? null) : null,
          date: v.date ?? null,
          amount: v.amount ?? null,
          text: v.text ?? null,
        })),
        mentions: report.mentions,
      })),
      type,
    );
    ev.id.push(event.id);
    ev.type.push(event.eventTypeId);
    ev.happened.push(state.happenedAt);
    ev.happenedOn.push(state.happenedOn);
    ev.first.push(state.first);
    ev.last.push(state.last);
    ev.sentence.push(state.sentence);
    ev.involved.push(`{${state.involved.join(',')}}`);
    for (const id of state.involved) {
      ent.event.push(event.id);
      ent.entity.push(id);
      ent.participant.push(state.participants.has(id));
      ent.first.push(state.first);
    }
    for (const { report, date } of reports) {
      rep.id.push(report.id);
      rep.event.push(event.id);
      rep.type.push(event.eventTypeId);
      rep.outlet.push(report.outletId);
      rep.published.push(report.publishedAt);
      rep.received.push(report.receivedAt);
      rep.date.push(date);
      rep.happened.push(report.happenedAt);
      rep.headline.push(report.headline);
      rep.url.push(report.url);
      report.values.forEach((value, position) => {
        val.report.push(report.id);
        val.position.push(position + 1);
        val.role.push(value.roleId);
        val.entity.push(value.entityId ?? null);
        val.date.push(value.date ?? null);
        val.amount.push(value.amount?.value ?? null);
        val.unit.push(value.amount?.unit ?? null);
        val.text.push(value.text ?? null);
      });
      for (const id of new Set(report.mentions)) {
        men.report.push(report.id);
        men.entity.push(id);
      }
    }
  }

  await tx.query(
    `INSERT INTO events (id, event_type_id, happened_at, happened_on, first_report_date, last_report_date, sentence, involved_entity_ids, created_at, updated_at)
     SELECT id, type, happened, happened_on, first, last, sentence, involved::uuid[], $9, $9
       FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::date[], $5::timestamptz[], $6::timestamptz[], $7::text[], $8::text[])
            AS t(id, type, happened, happened_on, first, last, sentence, involved)`,
    [ev.id, ev.type, ev.happened, ev.happenedOn, ev.first, ev.last, ev.sentence, ev.involved, context.now],
  );
  await tx.query(
    `INSERT INTO reports (id, event_id, source_kind, outlet_id, event_type_id, published_at, received_at, report_date, happened_at, headline, url, created_at)
     SELECT id, event, 'ARTICLE', outlet, type, published, received, date, happened, headline, url, $11
       FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::timestamptz[], $6::timestamptz[], $7::timestamptz[], $8::text[], $9::text[], $10::text[])
            AS t(id, event, type, outlet, published, received, date, happened, headline, url)`,
    [rep.id, rep.event, rep.type, rep.outlet, rep.published, rep.received, rep.date, rep.happened, rep.headline, rep.url, context.now],
  );
  if (val.report.length > 0) {
    await tx.query(
      `INSERT INTO report_roles (report_id, position, role_id, entity_id, date_value, amount_value, amount_unit, text_value)
       SELECT * FROM unnest($1::uuid[], $2::int[], $3::uuid[], $4::uuid[], $5::date[], $6::float8[], $7::text[], $8::text[])`,
      [val.report, val.position, val.role, val.entity, val.date, val.amount, val.unit, val.text],
    );
  }
  if (men.report.length > 0) {
    await tx.query('INSERT INTO report_mentions (report_id, entity_id) SELECT * FROM unnest($1::uuid[], $2::uuid[])', [men.report, men.entity]);
  }
  if (ent.event.length > 0) {
    await tx.query(
      'INSERT INTO event_entities (event_id, entity_id, participant, first_report_date) SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::bool[], $4::timestamptz[])',
      [ent.event, ent.entity, ent.participant, ent.first],
    );
  }
  await rebuildEventIndex(tx, ev.id);
}
