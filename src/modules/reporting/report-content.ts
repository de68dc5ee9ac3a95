// The content rules of a filed report (v1 document, the POST /v1/reports rules and the report
// content codes): what the schema lets through, checked against the event type, the entities
// and the grant. Every refusal is 400 validation-failed with one `code` and no `errors`.
import type { Queryable } from '../../platform/db/database.js';
import { referenceStore, type EventTypeRow, type RoleRow } from '../corpus/reference.store.js';
import { refuse, resolveRoleValues, type ResolvedRoleValue } from '../corpus/role-values.js';
import { templateRoles } from '../corpus/sentence.js';
import type { UsableGrant } from './grants.service.js';
import type { CreateReportBody } from './reporting.schemas.js';

export const MAX_DESCRIPTION = 5_000;
/** The longest ISO 8601 timestamp read: nanoseconds and a UTC offset. */
const MAX_TIMESTAMP = 35;
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|([+-])(\d{2}):?(\d{2}))$/i;

/**
 * An ISO 8601 timestamp with a UTC offset (seconds and fractions optional), or null. The
 * instant may fall outside the years 1 to 9999 (storableInstant tells).
 */
export function readTimestamp(text: string): Date | null {
  const m = TIMESTAMP.exec(text.trim());
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map((part) => Number(part ?? '0')) as [number, number, number, number, number, number];
  const [offsetHours, offsetMinutes] = [Number(m[10] ?? 0), Number(m[11] ?? 0)];
  if (mo < 1 || mo > 12 || h > 23 || mi > 59 || s > 59 || offsetHours > 23 || offsetMinutes > 59) return null;
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d); // Date.UTC would read the years 0 to 99 as 1900 to 1999
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return null;
  date.setUTCHours(h, mi, s, Math.floor(Number(`0.${m[7] ?? '0'}`) * 1000));
  const offset = m[8]!.toUpperCase() === 'Z' ? 0 : (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes);
  return new Date(date.getTime() - offset * 60_000);
}

export interface CheckedReport {
  happenedAt: Date;
  description: string | null;
  /** The values sent, then those a pin filled in. */
  values: ResolvedRoleValue[];
  /** Each entity id of the values → its live survivor and the survivor's name. */
  entities: Map<string, { survivor: string; name: string }>;
}

/**
 * Checks everything but the schema and the entitlement, in the order of the content codes
 * table, and answers the report's values.
 */
export async function checkReportContent(
  q: Queryable,
  input: CreateReportBody,
  context: { type: EventTypeRow | undefined; roles: RoleRow[]; grant: UsableGrant | null; now: Date; displayName: string | null },
): Promise<CheckedReport> {
  const { type, grant } = context;
  if (!type) throw refuse('TEMPLATE_NOT_FOUND', `event_type_id ${input.event_type_id} names no event type.`);
  if (!type.accepting_reports) throw refuse('TEMPLATE_INACTIVE', `The event type ${type.code_name} is not accepting reports.`);
  if (grant?.stale) throw refuse('GRANT_STALE', 'The grant no longer matches its event type (a pinned role was removed or changed); ask for a new grant.');

  const description = input.description?.trim() || null;
  if (description !== null && description.length > MAX_DESCRIPTION) {
    throw refuse('DESCRIPTION_TOO_LONG', `description is ${description.length} characters after trimming; at most ${MAX_DESCRIPTION}.`);
  }
  if (input.happened_at.trim().length > MAX_TIMESTAMP)
    throw refuse('PARSED_DATE_TIME_TOO_LONG', `happened_at is longer than ${MAX_TIMESTAMP} characters, the longest ISO 8601 timestamp read.`);
  const happenedAt = readTimestamp(input.happened_at);
  if (happenedAt === null)
    throw refuse('HAPPENED_AT_INVALID', `happened_at "${input.happened_at}" is not an ISO 8601 timestamp with a UTC offset, like 2026-11-20T08:30:00Z.`);
  if (happenedAt.getTime() > context.now.getTime()) throw refuse('HAPPENED_AT_IN_FUTURE', `happened_at ${happenedAt.toISOString()} is in the future.`);

  const named = [...new Set(input.roles.flatMap((role) => (role.entity_id ? [role.entity_id] : [])))];
  // Resolved without locks: nothing is written here; processing resolves them again, locked.
  const entities = new Map(
    (named.length > 0 ? await referenceStore.resolveEntities(q, named) : [])
      .filter((e) => !e.deleted)
      .map((e) => [e.id, { survivor: e.canonical_id, name: e.name }]),
  );
  const values = await resolveRoleValues(input.roles, context.roles, async () => new Set(entities.keys()));
  if (grant) applyPins(grant, values, entities, context.roles);

  const filled = new Set(values.map((v) => v.role.code_name));
  const missing = (templateRoles(type.sentence_template) ?? []).filter((name) => !filled.has(name));
  if (missing.length > 0) {
    throw refuse(
      'SENTENCE_NOT_RENDERABLE',
      `The event type's sentence needs the role${missing.length > 1 ? 's' : ''} ${missing.map((n) => `"${n}"`).join(', ')}.`,
    );
  }
  if (!grant && !context.displayName?.trim()) {
    throw refuse('REPORTER_NAME_MISSING', 'The account has no display name to publish the report under; file under a grant, or have the display name set.');
  }
  return { happenedAt, description, values, entities };
}

/** Rule 6: sent pinned roles must name an allowed entity; an omitted one is filled when one entity is allowed. */
function applyPins(grant: UsableGrant, values: ResolvedRoleValue[], entities: CheckedReport['entities'], roles: RoleRow[]): void {
  for (const pin of grant.pins) {
    const role = roles.find((r) => r.id === pin.roleId)!;
    const sent = values.find((v) => v.role.id === pin.roleId);
    if (sent) {
      if (!pin.allowed.has(entities.get(sent.entityId!)!.survivor)) {
        throw refuse('PIN_VIOLATION', `The grant does not allow that entity in the role "${role.code_name}".`);
      }
      continue;
    }
    if (pin.allowed.size !== 1) {
      throw refuse(
        'PIN_VIOLATION',
        `The grant allows ${pin.allowed.size === 0 ? 'no entity any longer' : 'several entities'} in the role "${role.code_name}"; send the role with one of them.`,
      );
    }
    const [entityId, name] = [...pin.allowed][0]!; // a live survivor already
    entities.set(entityId, { survivor: entityId, name });
    values.push({ role, entityId, date: null, amount: null, text: null });
  }
}
