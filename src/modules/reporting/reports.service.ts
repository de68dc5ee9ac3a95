// Structured reports (v1 document, Report and the structured reporting endpoints; decisions.md,
// "Structured reporting"). Filing checks, in this order: the schema (by the route, and the
// numbers it cannot see here), the entitlement (403), the content (400 with a code); then the
// report is stored with its processing job in one transaction. Processing, in the background,
// adds it to the corpus through the same source-neutral path as articles.
import { v5 as uuidv5 } from 'uuid';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/database.js';
import type { IdGenerator } from '../../platform/ids.js';
import type { JobQueue } from '../../platform/jobs.js';
import { listPage } from '../../platform/list-page.js';
import { isUuid } from '../../platform/ids.js';
import { fieldProblem, ProblemError, type FieldError } from '../../platform/problems.js';
import { accountsStore } from '../accounts/accounts.store.js';
import type { EventsService } from '../corpus/events.service.js';
import { liveSurvivors } from '../corpus/new-report.js';
import { referenceStore } from '../corpus/reference.store.js';
import type { GrantsService, UsableGrant } from './grants.service.js';
import { storableInstant } from '../../platform/instants.js';
import { checkReportContent, readTimestamp } from './report-content.js';
import type { CreateReportBody, Report } from './reporting.schemas.js';
import { reportsStore as store, type ReportRow, type StoredRole } from './reports.store.js';

export const PROCESS_REPORT_JOB = 'reporting.process-report';

export interface ReportsDeps {
  db: Database;
  clock: Clock;
  newId: IdGenerator;
  jobs: JobQueue;
  grants: GrantsService;
  events: EventsService;
}

export interface Filer {
  accountId: string;
  keyId: string;
}

const notFound = (id: string) => new ProblemError('not-found', `No report with id ${id}.`);
const alreadySubmitted = () => new ProblemError('report-already-submitted', 'This Idempotency-Key already filed a report. Use a new key for a new report.');

export function reportView(row: ReportRow): Report {
  return {
    id: row.id,
    object: 'report',
    status: 'CONFIRMED',
    event_type_id: row.event_type_id,
    happened_at: row.happened_at.toISOString(),
    roles: row.roles.map(({ role_id: _, ...role }) => role),
    description: row.description,
    grant_id: row.grant_id,
    published_as: row.published_as,
    incident_id: row.incident_id,
    incident_report_id: row.incident_report_id,
    created_at: row.created_at.toISOString(),
  };
}

/**
 * What the schema lets through but no stored value can hold, refused like a schema failure
 * (decisions.md, "HTTP hardening"): a number beyond double range (1e309), a timestamp or day
 * outside the years 1 to 9999.
 */
function unstorableValues(input: CreateReportBody): void {
  const errors: FieldError[] = [];
  const happenedAt = readTimestamp(input.happened_at);
  if (happenedAt && !storableInstant(happenedAt)) errors.push({ pointer: '/happened_at', detail: 'is outside the years 1 to 9999' });
  input.roles.forEach((role, i) => {
    if (role.amount && !Number.isFinite(role.amount.value)) errors.push({ pointer: `/roles/${i}/amount/value`, detail: 'is not a finite number' });
    if (role.date?.startsWith('0000-')) errors.push({ pointer: `/roles/${i}/date`, detail: 'is in the year 0, outside the years 1 to 9999' });
  });
  if (errors.length > 0) throw new ProblemError('validation-failed', 'The report is not valid.', { errors });
}

/** Ids compare as the database writes them: lowercase (the UUID pattern takes either case). */
function lowercaseIds(input: CreateReportBody): CreateReportBody {
  const lower = (id: string | null | undefined) => id?.toLowerCase();
  return {
    ...input,
    event_type_id: input.event_type_id.toLowerCase(),
    ...(input.grant_id ? { grant_id: lower(input.grant_id) } : {}),
    roles: input.roles.map((role) => ({
      ...role,
      ...(isUuid(role.role) ? { role: role.role.toLowerCase() } : {}),
      ...(role.entity_id ? { entity_id: lower(role.entity_id) } : {}),
    })),
  };
}

export function reportsService({ db, clock, newId, jobs, grants, events }: ReportsDeps) {
  const reads = db.reads; // for the methods that only read and take no lock (a standby's, when there are any)
  return {
    /**
     * Files a report. Its id is UUIDv5 of the API key id and the Idempotency-Key, so a
     * same-key retry of a filed report collides with it: 409 report-already-submitted.
     */
    async file(filer: Filer, sent: CreateReportBody, idempotencyKey: string | null): Promise<Report> {
      unstorableValues(sent);
      const input = lowercaseIds(sent);
      const now = clock.now();
      const id = idempotencyKey === null ? newId() : uuidv5(idempotencyKey, filer.keyId);
      // The checks read what the filing depends on in the transaction that stores it.
      const row = await db.transaction(async (tx) => {
        // A key that filed its report already (its answer lost, or its replay window past) says
        // so before anything that may have changed since (entitlement, grant, event type).
        if (idempotencyKey !== null && (await store.get(tx, id))) throw alreadySubmitted();
        // Entitlement: re-checked on every call (Authentication, 7).
        const account = await accountsStore.getAccount(tx, filer.accountId);
        if (!account) throw new Error(`account ${filer.accountId} does not exist`);
        const grantId = input.grant_id ?? null;
        let grant: UsableGrant | null = null;
        if (grantId === null) {
          if (!account.structured_reporting)
            throw new ProblemError('not-entitled', 'Filing a report as yourself needs the structured reporting entitlement.', { code: 'FORBIDDEN' });
        } else {
          if (!account.entity_reporting)
            throw new ProblemError('not-entitled', 'Filing under a grant needs the entity reporting entitlement.', { code: 'GRANT_FORBIDDEN' });
          grant = await grants.usable(tx, filer.accountId, grantId, input.event_type_id, now);
        }

        const type = await referenceStore.getEventType(tx, input.event_type_id);
        const roles = type ? await referenceStore.rolesOf(tx, [type.id]) : [];
        const checked = await checkReportContent(tx, input, { type, roles, grant, now, displayName: account.display_name });
        // The values sent, in their order (each `role` as sent), then those pins filled in.
        const storedRoles: StoredRole[] = checked.values.map((value, i) => {
          const base = { role: input.roles[i]?.role ?? value.role.code_name, role_id: value.role.id };
          if (value.entityId !== null) return { ...base, entity_id: value.entityId, name: checked.entities.get(value.entityId)!.name };
          if (value.date !== null) return { ...base, date: value.date };
          if (value.amount !== null) return { ...base, amount: value.amount };
          return { ...base, text: value.text! };
        });

        const filed = {
          id,
          account_id: filer.accountId,
          api_key_id: filer.keyId,
          event_type_id: type!.id,
          happened_at: checked.happenedAt,
          roles: storedRoles,
          description: checked.description,
          grant_id: grantId,
          published_as: grant ? { name: grant.row.label, kind: 'ORGANIZATION' as const } : { name: account.display_name!.trim(), kind: account.kind },
          created_at: now,
        };
        if (!(await store.insert(tx, filed))) throw alreadySubmitted();
        await jobs.enqueue(tx, PROCESS_REPORT_JOB, { report_id: filed.id });
        return filed;
      });
      return reportView({ ...row, incident_id: null, incident_report_id: null });
    },

    async get(accountId: string, id: string): Promise<Report> {
      const row = await store.get(reads, id);
      if (!row || row.account_id !== accountId) throw notFound(id);
      return reportView(row);
    },

    async list(accountId: string, limit: number, startingAfter?: string) {
      if (startingAfter !== undefined && !(await store.isOwn(reads, accountId, startingAfter))) {
        throw fieldProblem('/starting_after', 'names no report of this account');
      }
      const rows = await store.page(reads, accountId, limit + 1, startingAfter ?? null);
      return listPage(rows.map(reportView), limit);
    },

    /** The PROCESS_REPORT_JOB handler: adds the report to the corpus, once. */
    async process(payload: unknown): Promise<void> {
      const { report_id: id } = payload as { report_id: string };
      await db.transaction(async (tx) => {
        const report = await store.lockUnprocessed(tx, id);
        if (!report) return;
        const type = (await referenceStore.getEventType(tx, report.event_type_id))!;
        const roles = await referenceStore.rolesOf(tx, [type.id]);
        const entityIds = report.roles.flatMap((role) => (role.entity_id ? [role.entity_id] : []));
        // Removed from the type since the report was filed or not, the role keeps its number.
        const numbers = await referenceStore.roleNumbers(
          tx,
          report.roles.map((role) => role.role_id),
        );
        const added = await events.addReportIn(tx, {
          source: { kind: 'STRUCTURED', accountId: report.account_id, grantId: report.grant_id },
          type,
          roles,
          values: report.roles.map((role) => ({
            roleId: role.role_id,
            roleNumber: numbers.get(role.role_id)!,
            entityId: role.entity_id ?? null,
            date: role.date ?? null,
            amount: role.amount ?? null,
            text: role.text ?? null,
          })),
          ...(await liveSurvivors(tx, entityIds)),
          mentioned: [],
          receivedAt: clock.now(),
          publishedAt: report.created_at,
          happenedAt: report.happened_at.toISOString(),
          headline: null,
          url: null,
          incidentId: null,
          text: null, // structured reports carry no text: each is a copy group of its own
        });
        await store.setProcessed(tx, id, added.eventId, added.reportId);
      });
    },
  };
}

export type ReportsService = ReturnType<typeof reportsService>;
