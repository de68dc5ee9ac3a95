// Operator API: console users (operations.md).
import { IdParams } from '../platform/http/schema-kit.js';
import type { TypedApp } from '../platform/http/typed-app.js';
import { ConsoleUser, CreateConsoleUserBody, type ConsoleUsers } from './console-users.js';

const ops = { access: 'ops' as const };
const tags = ['Operator: accounts'];

export function consoleUsersOpsRoutes(app: TypedApp, users: ConsoleUsers): void {
  app.post(
    '/accounts/:id/console-users',
    {
      config: ops,
      schema: {
        operationId: 'opsCreateConsoleUser',
        tags,
        summary: 'Create a console user of the account (409 when the email is taken)',
        params: IdParams,
        body: CreateConsoleUserBody,
        response: { 201: ConsoleUser },
      },
    },
    async (request, reply) => reply.code(201).send(await users.create(request.params.id, request.body)),
  );
  app.delete(
    '/console-users/:id',
    { config: ops, schema: { operationId: 'opsDeleteConsoleUser', tags, summary: 'Delete a console user; their sessions end at once', params: IdParams } },
    async (request, reply) => {
      await users.remove(request.params.id);
      return reply.code(204).send();
    },
  );
}
