// Settings → API keys: the same service and rules as the operator API (the 10-key limit,
// REPORTS_WRITE needing a reporting entitlement and bringing REPORTS_READ), for the signed-in
// user's own account only.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CreateApiKeyBody } from '../modules/accounts/accounts.schemas.js';
import type { ApiKey } from '../modules/accounts/accounts.schemas.js';
import { MAX_ACTIVE_KEYS, type AccountsService } from '../modules/accounts/accounts.service.js';
import { sessionOf } from '../platform/http/guard.js';
import { IdParams } from '../platform/http/schema-kit.js';
import { compileBodyValidator } from '../platform/http/validation.js';
import { ProblemError } from '../platform/problems.js';
import type { Scope } from '../platform/scopes.js';
import { describeField, field, fields, noticeOf, problemMessage, sendHtml, viewerOf, type FormBody } from './console-replies.js';
import { apiKeysPage, type ApiKeysPageProps } from './views/api-keys.js';

const checkKeyBody = compileBodyValidator(CreateApiKeyBody);
const PATH = '/settings/api-keys';

export function consoleKeysRoutes(app: FastifyInstance, { accounts }: { accounts: AccountsService }): void {
  const config = { access: 'session' as const };

  async function render(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    extra: Partial<Pick<ApiKeysPageProps, 'created' | 'form' | 'problem' | 'notice'>> = {},
  ): Promise<FastifyReply> {
    const { accountId } = sessionOf(request);
    const account = await accounts.getAccount(accountId);
    const active = (await accounts.listApiKeys(accountId)).filter((key) => key.revoked_at === null);
    return sendHtml(
      reply,
      status,
      apiKeysPage({
        viewer: viewerOf(request, reply),
        keys: active,
        maxKeys: MAX_ACTIVE_KEYS,
        reportingEntitled: account.entitlements.structured_reporting || account.entitlements.entity_reporting,
        created: null,
        form: { name: '', scopes: [] },
        problem: null,
        notice: noticeOf(request),
        ...extra,
      }),
    );
  }

  app.get(PATH, { config }, (request, reply) => render(request, reply, 200));

  app.post(PATH, { config }, async (request, reply) => {
    const body = request.body as FormBody;
    const form = { name: field(body, 'name').trim(), scopes: fields(body, 'scopes') };
    const refuse = (status: number, problem: { message: string; details: string[] }) => render(request, reply, status, { form, problem });
    if (form.name === '') return refuse(400, { message: 'The key was not created.', details: ['Name: enter a name for the key.'] });
    if (form.scopes.length === 0) return refuse(400, { message: 'The key was not created.', details: ['Scopes: tick at least one scope.'] });
    const { errors } = checkKeyBody(form);
    if (errors.length > 0) return refuse(400, { message: 'The key was not created.', details: errors.map(describeField) });
    let created: ApiKey;
    try {
      created = await accounts.createApiKey(sessionOf(request).accountId, { name: form.name, scopes: form.scopes as Scope[] });
    } catch (error) {
      if (error instanceof ProblemError) return refuse(error.status, problemMessage(error));
      throw error;
    }
    request.log.info({ api_key_id: created.id, account_id: created.account_id }, 'console created an API key');
    return render(request, reply, 201, { created });
  });

  app.post(`${PATH}/:id/revoke`, { config, schema: { params: IdParams } }, async (request, reply) => {
    const { id } = request.params as { id: string };
    const view = await accounts.revokeApiKey(id.toLowerCase(), sessionOf(request).accountId);
    request.log.info({ api_key_id: view.id, account_id: view.account_id }, 'console revoked an API key');
    return reply.redirect(`/console${PATH}?notice=revoked`, 303);
  });
}
