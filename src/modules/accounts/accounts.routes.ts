// Operator API: accounts, credits, API keys and plans (operations.md), and account
// self-service (decisions.md). HTTP only: each route
// validates with its schema, calls one service function and returns its result.
import { Type } from '@sinclair/typebox';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { IdParams } from '../../platform/http/schema-kit.js';
import { Account, ApiKey, CreateAccountBody, CreateApiKeyBody, CreditsBody, Plan, PlanBody, PlanParams, UpdateAccountBody } from './accounts.schemas.js';
import type { AccountsService } from './accounts.service.js';
import { principalOf } from '../../platform/http/guard.js';
import { StrictObject } from '../../platform/http/schema-kit.js';
import { CreditTransactionList, CreditTransactionsQuery, SelfAccount } from './self-service.schemas.js';
import type { SelfService } from './self-service.js';
import { feature } from '../../platform/http/feature.js';

const ops = { access: 'ops' as const };
const tags = ['Operator: accounts'];

export function accountsOpsRoutes(app: TypedApp, accounts: AccountsService): void {
  app.post(
    '/accounts',
    { config: ops, schema: { operationId: 'opsCreateAccount', summary: 'Create an account', tags, body: CreateAccountBody, response: { 201: Account } } },
    async (request, reply) => {
      return reply.code(201).send(await accounts.createAccount(request.body));
    },
  );

  app.get(
    '/accounts/:id',
    { config: ops, schema: { operationId: 'opsGetAccount', summary: 'Read an account', tags, params: IdParams, response: { 200: Account } } },
    async (request) => accounts.getAccount(request.params.id),
  );

  app.patch(
    '/accounts/:id',
    {
      config: ops,
      schema: { operationId: 'opsUpdateAccount', summary: 'Update an account', tags, params: IdParams, body: UpdateAccountBody, response: { 200: Account } },
    },
    async (request) => accounts.updateAccount(request.params.id, request.body),
  );

  app.post(
    '/accounts/:id/credits',
    {
      config: ops,
      schema: { operationId: 'opsAdjustCredits', summary: 'Add or debit credits', tags, params: IdParams, body: CreditsBody, response: { 200: Account } },
    },
    async (request) => accounts.adjustCredits(request.params.id, request.body.amount, request.body.reason ?? 'operator adjustment'),
  );

  app.get(
    '/accounts/:id/api-keys',
    {
      config: ops,
      schema: {
        operationId: 'opsListApiKeys',
        summary: 'List the API keys of an account',
        tags,
        params: IdParams,
        response: { 200: Type.Object({ object: Type.Literal('list'), data: Type.Array(ApiKey), has_more: Type.Boolean(), next_cursor: Type.Null() }) },
      },
    },
    async (request) => ({ object: 'list' as const, data: await accounts.listApiKeys(request.params.id), has_more: false, next_cursor: null }),
  );

  app.post(
    '/accounts/:id/api-keys',
    {
      config: ops,
      schema: {
        operationId: 'opsCreateApiKey',
        summary: 'Create an API key (the raw key is shown once)',
        tags,
        params: IdParams,
        body: CreateApiKeyBody,
        response: { 201: ApiKey },
      },
    },
    async (request, reply) => reply.code(201).send(await accounts.createApiKey(request.params.id, request.body)),
  );

  app.post(
    '/api-keys/:id/revoke',
    { config: ops, schema: { operationId: 'opsRevokeApiKey', summary: 'Revoke an API key', tags, params: IdParams, response: { 200: ApiKey } } },
    async (request) => accounts.revokeApiKey(request.params.id),
  );

  app.get(
    '/plans',
    {
      config: ops,
      schema: {
        operationId: 'opsListPlans',
        summary: 'List plans',
        tags,
        response: { 200: Type.Object({ object: Type.Literal('list'), data: Type.Array(Plan), has_more: Type.Boolean(), next_cursor: Type.Null() }) },
      },
    },
    async () => ({ object: 'list' as const, data: await accounts.listPlans(), has_more: false, next_cursor: null }),
  );

  app.put(
    '/plans/:name',
    {
      config: ops,
      schema: { operationId: 'opsPutPlan', summary: 'Create or replace a plan', tags, params: PlanParams, body: PlanBody, response: { 200: Plan } },
    },
    async (request) => accounts.putPlan(request.params.name, request.body),
  );
}

/** Account self-service (decisions.md): any valid key reads its own account; no scope needed. */
export function accountSelfRoutes(app: TypedApp, self: SelfService): void {
  const anyKey = { scope: [] as const };
  const selfTags = ['Account'];
  app.get(
    '/account',
    {
      config: anyKey,
      schema: {
        operationId: 'getAccount',
        tags: selfTags,
        summary: "The key's account: balance, entitlements, plan, this month's usage",
        querystring: StrictObject({}),
        response: { 200: SelfAccount },
      },
    },
    async (request) => self.account(principalOf(request).accountId),
  );
  app.get(
    '/account/credit-transactions',
    {
      config: anyKey,
      schema: {
        operationId: 'listCreditTransactions',
        tags: selfTags,
        summary: 'The credit ledger, newest first',
        querystring: CreditTransactionsQuery,
        response: { 200: CreditTransactionList },
      },
    },
    async (request) => self.creditTransactions(principalOf(request).accountId, request.query.limit, request.query.starting_after),
  );
}

/** Accounts: self-service on the public API; accounts, keys, credits and plans on the operator API. */
export const accountsFeature = (deps: { accounts: AccountsService; self: SelfService }) =>
  feature({ v1: (app) => accountSelfRoutes(app, deps.self), ops: (app) => accountsOpsRoutes(app, deps.accounts) });
