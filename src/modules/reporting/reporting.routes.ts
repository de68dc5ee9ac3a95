// Structured reporting over HTTP: reports and grants (REPORTS_READ, REPORTS_WRITE) and the
// operator's grant calls.
import { principalOf } from '../../platform/http/guard.js';
import { IdParams } from '../../platform/http/schema-kit.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import type { GrantsService } from './grants.service.js';
import { REPORT_IDEMPOTENCY } from './report-idempotency.js';
import { CreateGrantBody, CreateReportBody, OpsReportingGrant, Report, ReportingGrantList, ReportList, ReportListQuery } from './reporting.schemas.js';
import type { ReportsService } from './reports.service.js';
import { feature } from '../../platform/http/feature.js';

const tags = ['Structured reporting'];
const read = { scope: 'REPORTS_READ' as const };

export function reportingRoutes(app: TypedApp, deps: { reports: ReportsService; grants: GrantsService }): void {
  const { reports, grants } = deps;

  app.get(
    '/reporting-grants',
    {
      config: read,
      schema: {
        operationId: 'listReportingGrants',
        tags,
        summary: "The account's reporting grants",
        description: 'Not paginated; newest first. Empty for an account without the entity reporting entitlement.',
        response: { 200: ReportingGrantList },
      },
    },
    async (request) => grants.list(principalOf(request).accountId),
  );

  app.post(
    '/reports',
    {
      // A filing key needs both scopes (Authentication, 3).
      config: { scope: ['REPORTS_WRITE', 'REPORTS_READ'] as const, idempotency: REPORT_IDEMPOTENCY },
      schema: {
        operationId: 'fileReport',
        tags,
        summary: 'File a report',
        description:
          'Answers 201 with the report; `incident_id` and `incident_report_id` are set by processing, within seconds. ' +
          'Checks run in this order: the body (400 with `errors`), the entitlement (403 not-entitled with `code`), the content (400 with one `code`). ' +
          'Send an Idempotency-Key: the report id is derived from it and the API key, so a retry never files twice.',
        body: CreateReportBody,
        response: { 201: Report },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const key = request.headers['idempotency-key'];
      const filed = await reports.file({ accountId: principal.accountId, keyId: principal.keyId }, request.body, typeof key === 'string' ? key : null);
      return reply.code(201).send(filed);
    },
  );

  app.get(
    '/reports',
    {
      config: read,
      schema: {
        operationId: 'listReports',
        tags,
        summary: "The account's structured reports, newest first",
        querystring: ReportListQuery,
        response: { 200: ReportList },
      },
    },
    async (request) => reports.list(principalOf(request).accountId, request.query.limit, request.query.starting_after),
  );

  app.get(
    '/reports/:id',
    {
      config: read,
      schema: {
        operationId: 'getReport',
        tags,
        summary: "One report (404 for a missing id, another account's report or a non-structured report)",
        params: IdParams,
        response: { 200: Report },
      },
    },
    async (request) => reports.get(principalOf(request).accountId, request.params.id),
  );
}

export function reportingOpsRoutes(app: TypedApp, grants: GrantsService): void {
  const ops = { access: 'ops' as const };
  const opsTags = ['Operator: corpus'];
  app.post(
    '/reporting-grants',
    {
      config: ops,
      schema: {
        operationId: 'opsCreateReportingGrant',
        summary: 'Create a reporting grant',
        tags: opsTags,
        body: CreateGrantBody,
        response: { 201: OpsReportingGrant },
      },
    },
    async (request, reply) => reply.code(201).send(await grants.create(request.body)),
  );
  app.post(
    '/reporting-grants/:id/revoke',
    {
      config: ops,
      schema: {
        operationId: 'opsRevokeReportingGrant',
        summary: 'Revoke a reporting grant',
        tags: opsTags,
        params: IdParams,
        response: { 200: OpsReportingGrant },
      },
    },
    async (request) => grants.revoke(request.params.id),
  );
}

/** Reporting: filing and reading reports and grants; grants are made and revoked on the operator API. */
export const reportingFeature = (deps: { reports: ReportsService; grants: GrantsService }) =>
  feature({ v1: (app) => reportingRoutes(app, deps), ops: (app) => reportingOpsRoutes(app, deps.grants) });
