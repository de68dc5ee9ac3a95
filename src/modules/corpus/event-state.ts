// An event's state from its reports, in one place, so an event reads the same whichever way
// its reports were loaded, one by one or in bulk (test/corpus/event-state.test.ts holds the
// two equal).
import { readHappenedOn } from './clustering.js';
import type { RoleRow } from './reference.store.js';
import type { EventReportRow } from './reports.store.js';
import { displayValue } from './role-values.js';
import { renderSentence } from './sentence.js';

export interface StateRoleValue {
  roleId: string;
  /** The live canonical entity (a value whose entity was deleted is left out altogether). */
  entityId: string | null;
  entityName: string | null;
  date: string | null;
  amount: { value: number; unit: string } | null;
  text: string | null;
}

export interface StateReport {
  id: string;
  reportDate: Date;
  happenedAt: string | null;
  /** Values in the report's role order. */
  values: readonly StateRoleValue[];
  /** Live canonical ids of the entities the report mentions. */
  mentions: readonly string[];
}

export interface EventState {
  first: Date;
  last: Date;
  happenedAt: string | null;
  happenedOn: string | null;
  sentence: string | null;
  /** Participants in role order (each role's entities in report order), then mentions. */
  involved: string[];
  participants: Set<string>;
}

/**
 * The state of an event with at least one report. Reports count oldest report date first
 * (ties by id): each role's value is the one from the earliest report that carries it; the
 * first report with a happened_at gives the event's.
 */
export function eventState(reports: readonly StateReport[], type: { template: string; roles: readonly RoleRow[] }): EventState {
  const ordered = [...reports].sort((a, b) => a.reportDate.getTime() - b.reportDate.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const values = ordered.flatMap((report) => report.values);

  const sentenceValues = new Map<string, string>();
  const involved: string[] = [];
  const participants = new Set<string>();
  for (const role of type.roles) {
    const first = values.find((value) => value.roleId === role.id);
    if (first) {
      const shown = displayValue({ ...(first.entityId ? { entityName: first.entityName } : {}), date: first.date, amount: first.amount, text: first.text });
      if (shown) sentenceValues.set(role.code_name, shown);
    }
    for (const value of values) {
      if (value.roleId !== role.id || value.entityId === null || participants.has(value.entityId)) continue;
      participants.add(value.entityId);
      involved.push(value.entityId);
    }
  }
  const seen = new Set(involved);
  for (const report of ordered) {
    for (const id of [...report.mentions].sort()) {
      if (seen.has(id)) continue;
      seen.add(id);
      involved.push(id);
    }
  }
  const happenedAt = ordered.find((report) => report.happenedAt !== null)?.happenedAt ?? null;
  return {
    first: ordered[0]!.reportDate,
    last: ordered[ordered.length - 1]!.reportDate,
    happenedAt,
    happenedOn: readHappenedOn(happenedAt),
    sentence: renderSentence(type.template, sentenceValues),
    involved,
    participants,
  };
}

/** What newReportState reads of a new report (new-report.ts's NewReport): its values with entities as given, and its survivors and their names. */
interface NewReportFacts {
  happenedAt: string | null;
  values: readonly (Omit<StateRoleValue, 'entityName'> & { entityId: string | null })[];
  survivors: ReadonlyMap<string, string>;
  names: ReadonlyMap<string, string>;
}

/** A new report as the state reads one, stored as `id` on `date`: values whose entity is deleted count for nothing. */
export function newReportState(report: NewReportFacts, at: { id: string; date: Date; mentioned: readonly string[] }): StateReport {
  const { id, date } = at;
  return {
    id,
    reportDate: date,
    happenedAt: report.happenedAt,
    values: report.values.flatMap((v) => {
      const entityId = v.entityId === null ? null : report.survivors.get(v.entityId);
      if (entityId === undefined) return [];
      return [
        {
          roleId: v.roleId,
          entityId,
          entityName: entityId === null ? null : (report.names.get(entityId) ?? null),
          date: v.date,
          amount: v.amount,
          text: v.text,
        },
      ];
    }),
    mentions: at.mentioned,
  };
}

/** A stored report as the event state reads it. */
export function storedReportState(report: EventReportRow): StateReport {
  return {
    id: report.id,
    reportDate: report.report_date,
    happenedAt: report.happened_at,
    // A deleted entity's value counts for nothing: the next report's live one stands in.
    values: report.values
      .filter((v) => !v.entity_deleted)
      .map((v) => ({
        roleId: v.role_id,
        entityId: v.entity_id,
        entityName: v.entity_name,
        date: v.date_value,
        amount: v.amount_value === null ? null : { value: v.amount_value, unit: v.amount_unit ?? '' },
        text: v.text_value,
      })),
    mentions: report.mentions,
  };
}
