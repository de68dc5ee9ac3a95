// The role-value rules shared by article reports (operator ingest) and structured reports:
// each role entry names a role of the event type and carries exactly the value field its
// expected type calls for. Schema-level shape (JSON types, UUIDs, YYYY-MM-DD, {value, unit})
// is checked by the operation's schema; what needs the event type or the database is
// checked here and refused with a content code (v1 document, "Report content codes").
import { Type, type Static } from '@sinclair/typebox';
import currencyCodes from 'currency-codes';
import { ProblemError } from '../../platform/problems.js';
import { StrictObject, Text, Uuid } from '../../platform/http/schema-kit.js';
import type { RoleRow } from './reference.store.js';

export const MAX_ROLES = 50;
const MAX_TEXT = 1_000;
const MAX_UNIT = 32;

export const RoleEntry = StrictObject({
  role: Text({ minLength: 1, maxLength: 64 }),
  entity_id: Type.Optional(Uuid),
  date: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD, a real calendar day.' })),
  amount: Type.Optional(StrictObject({ value: Type.Number(), unit: Text({ maxLength: 200 }) })),
  text: Type.Optional(Text({ maxLength: 10_000 })),
});
export type RoleEntry = Static<typeof RoleEntry>;

const AMOUNT_TYPES = new Set(['CURRENCY', 'NUMBER', 'DISTANCE', 'WEIGHT', 'LENGTH', 'AREA', 'VOLUME', 'TEMPERATURE', 'SPEED']);
// ISO 4217 codes from the currency-codes package (kept current with the standard).
const CURRENCIES = new Set(currencyCodes.codes());

export interface ResolvedRoleValue {
  role: RoleRow;
  entityId: string | null;
  date: string | null;
  amount: { value: number; unit: string } | null;
  text: string | null;
}

export const refuse = (code: string, detail: string) => new ProblemError('validation-failed', detail, { code });

/** The value field an expected type calls for. */
function valueFieldOf(expectedType: string | null): 'entity_id' | 'date' | 'amount' | 'text' {
  if (expectedType === 'NAMED_ENTITY') return 'entity_id';
  if (expectedType === 'DATE') return 'date';
  if (expectedType !== null && AMOUNT_TYPES.has(expectedType)) return 'amount';
  return 'text';
}

/** A YYYY-MM-DD day that exists, in the years 1 to 9999 (what the database can store). */
export function isRealDate(value: string): boolean {
  const [y, m, d] = value.split('-').map(Number) as [number, number, number];
  if (!(y >= 1 && y <= 9999)) return false;
  const date = new Date(0);
  date.setUTCFullYear(y, m - 1, d); // Date.UTC would read the years 0 to 99 as 1900 to 1999
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

const ISO_DURATION = /^P(?!$)(\d+(\.\d+)?Y)?(\d+(\.\d+)?M)?(\d+(\.\d+)?W)?(\d+(\.\d+)?D)?(T(?=\d)(\d+(\.\d+)?H)?(\d+(\.\d+)?M)?(\d+(\.\d+)?S)?)?$/;
const ENGLISH_PART =
  /^(\d+(\.\d+)?|an?|one|two|three|four|five|six|seven|eight|nine|ten)\s*(seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?)$/i;

/** ISO 8601 durations ("P3D", "PT2H30M") and plain English ("3 days", "2 hours 30 minutes"). */
export function isReadableDuration(text: string): boolean {
  const value = text.trim();
  if (ISO_DURATION.test(value)) return true;
  const parts = value.split(/\s*(?:,|\band\b)\s*|\s+(?=\d)/i).filter(Boolean);
  return parts.length > 0 && parts.every((part) => ENGLISH_PART.test(part));
}

/**
 * Checks role entries against the event type's current roles and returns them resolved.
 * `entityExists` answers which of the named entity ids exist and are not deleted.
 */
export async function resolveRoleValues(
  entries: readonly RoleEntry[],
  roles: readonly RoleRow[],
  entityExists: (ids: string[]) => Promise<Set<string>>,
): Promise<ResolvedRoleValue[]> {
  if (entries.length === 0) throw refuse('NO_ROLES', 'roles is empty; send at least one role.');
  if (entries.length > MAX_ROLES) throw refuse('TOO_MANY_ROLES', `At most ${MAX_ROLES} roles per report.`);
  // A role is named by its code name or, as pins name it, by its role definition id.
  const byName = new Map(
    roles.flatMap(
      (role) =>
        [
          [role.code_name, role],
          [role.id, role],
        ] as const,
    ),
  );
  const seenNames = new Set<string>();
  const seenIds = new Set<string>();
  const resolved: ResolvedRoleValue[] = [];
  entries.forEach((entry, i) => {
    const at = `roles[${i}]`;
    const role = byName.get(entry.role);
    if (!role) throw refuse('UNKNOWN_ROLE_CODE_NAME', `${at}.role "${entry.role}" is not a role of this event type.`);
    if (seenNames.has(entry.role)) throw refuse('ROLE_NOT_MULTI_VALUED', `${at}: the role "${entry.role}" appears more than once.`);
    if (seenIds.has(role.id)) throw refuse('DUPLICATE_ROLE_ID', `${at}: the role "${role.code_name}" is named twice, once by code name and once by id.`);
    seenNames.add(entry.role);
    seenIds.add(role.id);
    if (role.expected_type === 'CATEGORICAL') throw refuse('UNSUPPORTED_ROLE_TYPE', `${at}: the role "${entry.role}" is CATEGORICAL; leave it out.`);
    const expected = valueFieldOf(role.expected_type);
    const sent = (['entity_id', 'date', 'amount', 'text'] as const).filter((field) => entry[field] !== undefined);
    if (sent.includes('entity_id') && expected !== 'entity_id') {
      throw refuse('NAMED_ENTITY_ID_ON_NON_ENTITY_ROLE', `${at}: entity_id on the role "${entry.role}", which is ${role.expected_type ?? 'untyped'}.`);
    }
    if (sent.length !== 1 || sent[0] !== expected) {
      throw refuse('ROLE_VALUE_TYPE_MISMATCH', `${at}: the role "${entry.role}" (${role.expected_type ?? 'untyped'}) takes exactly one ${expected}.`);
    }
    const value: ResolvedRoleValue = { role, entityId: null, date: null, amount: null, text: null };
    if (expected === 'entity_id') value.entityId = entry.entity_id!;
    if (expected === 'date') {
      if (entry.date!.length > 10) throw refuse('PARSED_DATE_TOO_LONG', `${at}.date ${entry.date} is longer than YYYY-MM-DD.`);
      if (!isRealDate(entry.date!)) throw refuse('INVALID_DATE', `${at}.date ${entry.date} is not a real calendar day.`);
      value.date = entry.date!;
    }
    if (expected === 'amount') {
      const { value: amount, unit } = entry.amount!;
      if (unit.length > MAX_UNIT) throw refuse('PARSED_AMOUNT_UNIT_TOO_LONG', `${at}.amount.unit is longer than ${MAX_UNIT} characters.`);
      if (role.expected_type === 'CURRENCY' && !CURRENCIES.has(unit)) {
        throw refuse('ROLE_VALUE_TYPE_MISMATCH', `${at}.amount.unit "${unit}" is not an ISO 4217 currency code.`);
      }
      value.amount = { value: amount, unit };
    }
    if (expected === 'text') {
      const text = entry.text!.trim();
      if (text === '') throw refuse('EMPTY_TEXT_VALUE', `${at}.text is blank.`);
      if (text.length > MAX_TEXT) throw refuse('TEXT_VALUE_TOO_LONG', `${at}.text is longer than ${MAX_TEXT} characters.`);
      if (role.expected_type === 'DURATION' && !isReadableDuration(text)) {
        throw refuse('ROLE_VALUE_TYPE_MISMATCH', `${at}.text "${text}" is not a readable duration (ISO 8601, or like "3 days").`);
      }
      value.text = text;
    }
    resolved.push(value);
  });
  const entityIds = resolved.flatMap((v) => (v.entityId ? [v.entityId] : []));
  if (entityIds.length > 0) {
    const existing = await entityExists(entityIds);
    const missing = resolved.findIndex((v) => v.entityId !== null && !existing.has(v.entityId));
    if (missing >= 0) throw refuse('UNKNOWN_NAMED_ENTITY', `roles[${missing}].entity_id ${resolved[missing]!.entityId} names no entity.`);
  }
  return resolved;
}

/** How a role value reads in a sentence. */
export function displayValue(value: {
  entityName?: string | null;
  date: string | null;
  amount: { value: number; unit: string } | null;
  text: string | null;
}): string | null {
  if (value.entityName !== undefined) return value.entityName;
  if (value.date) return value.date;
  if (value.amount) return `${value.amount.value}${value.amount.unit ? ` ${value.amount.unit}` : ''}`;
  return value.text;
}
