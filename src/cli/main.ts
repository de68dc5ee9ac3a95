// `evmon`: the operator command line. It works on the configured database directly (the same
// EVMON_* environment as the server) through the same services and schemas as the operator
// API, and prints JSON.
import { parseArgs } from 'node:util';
import type { TSchema } from '@sinclair/typebox';
import { ConfigError, loadConfig } from '../config.js';
import { CreateAccountBody, CreateApiKeyBody, CreditsBody, PlanBody, UpdateAccountBody } from '../modules/accounts/accounts.schemas.js';
import { PLAN_FIELDS } from '../modules/accounts/accounts.store.js';
import { CreateConsoleUserBody } from '../console/console-users.js';
import { DataDirLockedError } from '../platform/db/data-dir-lock.js';
import { isUuid } from '../platform/ids.js';
import { createLogger } from '../platform/logger.js';
import { EncryptionKeyError } from '../platform/secret-box.js';
import { RESEAL_BATCH } from '../modules/sensors/sensor-secrets.js';
import { ProblemError } from '../platform/problems.js';
import { compileBodyValidator } from '../platform/http/validation.js';
import { createRuntime, type Runtime } from '../runtime.js';
import { CORPUS_OPTIONS, CORPUS_USAGE, runCorpusCommand } from './corpus-commands.js';
import { readSecretLine } from './read-secret.js';

const USAGE = `Usage: evmon <command> [options]

  migrate                                   apply pending migrations
  accounts create [--display-name N] [--kind INDIVIDUAL|ORGANIZATION] [--plan P]
                  [--credits N] [--entitlements structured_reporting,entity_reporting,beats]
  accounts show <account-id>
  accounts update <account-id> [--display-name N] [--kind K] [--plan P] [--entitlements LIST]
  credits add <account-id> <amount> [--reason TEXT]      (a negative amount debits)
  keys create <account-id> --name N --scopes SCOPE[,SCOPE…]   (prints the raw key once)
  keys list <account-id>
  keys revoke <key-id>
  plans list
  plans set <name> --beats_max N … (every plan field)
  console-users create <account-id> --email E   (the password, 12 to 200 characters, on
                  standard input: its first line, or typed at the prompt)
  console-users delete <console-user-id>
  secrets re-encrypt [--batch-size N]        seal every webhook signing secret under
                  EVMON_ENCRYPTION_KEY again (after a key rotation; the old key in
                  EVMON_ENCRYPTION_KEY_PREVIOUS), N sensors per transaction (default 100)${CORPUS_USAGE}

The database is the one the server uses: EVMON_DATABASE_URL, or the embedded database in
EVMON_DATA_DIR (which the server must not hold open at the same time).`;

/** A command or option evmon does not know: the reason, then the usage. */
class UsageError extends Error {}

/** A value evmon refused: the reason alone, which the whole usage would bury. */
class RefusedValue extends Error {}

/** A command that ran but could not finish its work: the reason, exit code 1. */
class Incomplete extends Error {}

function validated<T>(schema: TSchema, value: unknown): T {
  const { errors, omitted } = compileBodyValidator(schema)(value);
  if (errors.length > 0) {
    const more = omitted > 0 ? [`(and ${omitted} more)`] : [];
    throw new RefusedValue([...errors.map((e) => `${e.pointer || '(body)'} ${e.detail}`), ...more].join('\n'));
  }
  return value as T;
}

function requireId(value: string | undefined, what: string): string {
  if (!value || !isUuid(value)) throw new RefusedValue(`expected ${what} (a UUID), got ${value ?? 'nothing'}`);
  return value;
}

/** The operator API call that does what a command does, for when a running server holds the embedded database; null when none does. */
function operatorCall(argv: string[]): string | null {
  const [group, action, id = '<id>'] = argv.filter((arg) => !arg.startsWith('-'));
  const calls: Record<string, string> = {
    'accounts create': 'POST /ops/v1/accounts',
    'accounts show': `GET /ops/v1/accounts/${id}`,
    'accounts update': `PATCH /ops/v1/accounts/${id}`,
    'credits add': `POST /ops/v1/accounts/${id}/credits`,
    'keys create': `POST /ops/v1/accounts/${id}/api-keys`,
    'keys list': `GET /ops/v1/accounts/${id}/api-keys`,
    'keys revoke': `POST /ops/v1/api-keys/${id}/revoke`,
    'plans list': 'GET /ops/v1/plans',
    'plans set': `PUT /ops/v1/plans/${id}`,
    'console-users create': `POST /ops/v1/accounts/${id}/console-users`,
    'console-users delete': `DELETE /ops/v1/console-users/${id}`,
    'outlets create': 'POST /ops/v1/outlets',
    'entities create': 'POST /ops/v1/entities',
    'entities merge': `POST /ops/v1/entities/${id}/merge`,
    'entities delete': `DELETE /ops/v1/entities/${id}`,
    'entity-lists create': 'POST /ops/v1/entity-lists',
    'event-types create': 'POST /ops/v1/event-types',
    'event-types update': `PATCH /ops/v1/event-types/${id}`,
    'grants create': 'POST /ops/v1/reporting-grants',
    'grants revoke': `POST /ops/v1/reporting-grants/${id}/revoke`,
    'events show': `GET /ops/v1/events/${id}`,
    'events merge': `POST /ops/v1/events/${id}/merge`,
    'events delete': `DELETE /ops/v1/events/${id}`,
  };
  // `import <file>`: the file's lines as the body of one bulk call (or several, 10,000 lines each).
  if (group === 'import')
    return 'POST /ops/v1/articles/bulk (Content-Type: application/x-ndjson, the file as the body, at most 10,000 lines and 16 MiB a call)';
  if (`${group} ${action}` === 'secrets re-encrypt' || group === 'demo' || group === 'migrate') return null;
  return calls[`${group} ${action}`] ?? 'the matching call under /ops/v1';
}

const ENTITLEMENTS = ['structured_reporting', 'entity_reporting', 'beats'] as const;

function accountFields(values: Record<string, string | undefined>, forCreate: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (values['display-name'] !== undefined) body.display_name = values['display-name'];
  if (values.kind !== undefined) body.kind = values.kind;
  if (values.plan !== undefined) body.plan = values.plan;
  if (forCreate && values.credits !== undefined) body.credit_balance = Number(values.credits);
  if (values.entitlements !== undefined) {
    const granted = new Set(
      values.entitlements
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );
    for (const name of granted)
      if (!(ENTITLEMENTS as readonly string[]).includes(name)) throw new RefusedValue(`unknown entitlement ${name} (known: ${ENTITLEMENTS.join(', ')})`);
    body.entitlements = Object.fromEntries(ENTITLEMENTS.map((name) => [name, granted.has(name)]));
  }
  return body;
}

async function run(argv: string[], runtime: () => Promise<Runtime>): Promise<unknown> {
  // parseArgs reads "-9" as an option; a leading marker keeps negative numbers positional.
  const NEGATIVE = '\u0000';
  const { values, positionals: marked } = parseArgs({
    args: argv.map((arg) => (/^-\d+$/.test(arg) ? `${NEGATIVE}${arg}` : arg)),
    allowPositionals: true,
    strict: true,
    options: {
      'display-name': { type: 'string' },
      kind: { type: 'string' },
      plan: { type: 'string' },
      credits: { type: 'string' },
      entitlements: { type: 'string' },
      reason: { type: 'string' },
      name: { type: 'string' },
      scopes: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' }, // refused with the reason: see console-users create
      'batch-size': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      ...CORPUS_OPTIONS,
      ...Object.fromEntries(PLAN_FIELDS.map((field) => [field, { type: 'string' as const }])),
    },
  });
  const positionals = marked.map((arg) => (arg.startsWith(NEGATIVE) ? arg.slice(1) : arg));
  const [group, action, ...rest] = positionals;
  const v = values as Record<string, string | undefined>;
  if (values.help) return { help: USAGE };
  if (!group) throw new UsageError('');

  switch (`${group} ${action ?? ''}`.trim()) {
    case 'migrate': {
      await runtime(); // opening the runtime applies pending migrations
      return { object: 'migrations', status: 'up to date' };
    }
    case 'accounts create':
      return (await runtime()).accounts.createAccount(validated(CreateAccountBody, accountFields(v, true)));
    case 'accounts show':
      return (await runtime()).accounts.getAccount(requireId(rest[0], 'an account id'));
    case 'accounts update':
      return (await runtime()).accounts.updateAccount(requireId(rest[0], 'an account id'), validated(UpdateAccountBody, accountFields(v, false)));
    case 'credits add': {
      const id = requireId(rest[0], 'an account id');
      const body = validated<{ amount: number; reason?: string }>(CreditsBody, { amount: Number(rest[1]), ...(v.reason ? { reason: v.reason } : {}) });
      return (await runtime()).accounts.adjustCredits(id, body.amount, body.reason ?? 'operator adjustment');
    }
    case 'keys create': {
      const id = requireId(rest[0], 'an account id');
      const body = validated<{ name: string; scopes: never[] }>(CreateApiKeyBody, {
        name: v.name,
        scopes: (v.scopes ?? '')
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      });
      return (await runtime()).accounts.createApiKey(id, body);
    }
    case 'keys list':
      return { object: 'list', data: await (await runtime()).accounts.listApiKeys(requireId(rest[0], 'an account id')), has_more: false, next_cursor: null };
    case 'keys revoke':
      return (await runtime()).accounts.revokeApiKey(requireId(rest[0], 'a key id'));
    case 'console-users create': {
      const id = requireId(rest[0], 'an account id');
      if (v.password !== undefined) {
        throw new RefusedValue(
          "--password is not taken: a password on the command line is seen by the machine's other users and kept in shell history. " +
            'Send it on standard input instead (printf \'%s\\n\' "$PASSWORD" | evmon console-users create …), or type it at the prompt.',
        );
      }
      const password = await readSecretLine(`Password for ${v.email ?? 'the console user'} (12 to 200 characters, not shown): `);
      if (password === null) throw new RefusedValue('expected the password on standard input (its first line)');
      return (await runtime()).consoleUsers.create(id, validated(CreateConsoleUserBody, { email: v.email, password }));
    }
    case 'console-users delete':
      await (await runtime()).consoleUsers.remove(requireId(rest[0], 'a console user id'));
      return { object: 'console_user', id: rest[0], deleted: true };
    case 'secrets re-encrypt': {
      const batchSize = Number(v['batch-size'] ?? RESEAL_BATCH);
      if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000) throw new RefusedValue('--batch-size must be a whole number from 1 to 10000');
      const result = await (await runtime()).sensorSecrets.reencrypt(batchSize);
      if (result.remaining > 0) {
        throw new Incomplete(
          `${result.remaining} sensors still have a secret sealed under another key than ${result.key_id} (${result.resealed} re-encrypted): ` +
            'a process running with the previous EVMON_ENCRYPTION_KEY wrote them meanwhile; restart it with the new key, then run this again',
        );
      }
      return { object: 'secrets_reencryption', ...result };
    }
    case 'plans list':
      return { object: 'list', data: await (await runtime()).accounts.listPlans(), has_more: false, next_cursor: null };
    case 'plans set': {
      const name = rest[0];
      if (!name) throw new RefusedValue('expected a plan name');
      const body = Object.fromEntries(PLAN_FIELDS.filter((f) => v[f] !== undefined).map((f) => [f, Number(v[f])]));
      return (await runtime()).accounts.putPlan(name, validated(PlanBody, body));
    }
    default: {
      const tools = { validated, requireId, usage: (message: string) => new RefusedValue(message) };
      const key = positionals[0] === 'import' || positionals[0] === 'demo' ? positionals[0] : `${group} ${action ?? ''}`.trim();
      const args = key === 'import' || key === 'demo' ? positionals.slice(1) : rest;
      const result = await runCorpusCommand(key, v, args, runtime, tools);
      if (result === undefined) throw new UsageError(`unknown command: ${positionals.join(' ')}`);
      return result;
    }
  }
}

async function main(): Promise<number> {
  let opened: Runtime | null = null;
  try {
    const config = loadConfig();
    const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
    const result = await run(process.argv.slice(2), async () => (opened ??= await createRuntime(config, logger)));
    if (result && typeof result === 'object' && 'help' in result) process.stdout.write(`${USAGE}\n`);
    else process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(error.message ? `evmon: ${error.message}\n\n${USAGE}\n` : `${USAGE}\n`);
      return 2;
    }
    if (error instanceof RefusedValue) {
      process.stderr.write(`evmon: ${error.message}\n(evmon --help lists every command and option.)\n`);
      return 2;
    }
    if (error instanceof DataDirLockedError) {
      const call = operatorCall(process.argv.slice(2));
      process.stderr.write(
        `evmon: ${error.message}\n` +
          (call === null
            ? 'Stop the server first: this command has no operator API call.\n'
            : `While the server runs, make this change through its operator API instead: ${call} ` +
              'with Authorization: Bearer <EVMON_OPS_TOKEN>; the operator API exists only when the server was started with EVMON_OPS_TOKEN set ' +
              '(README, "The operator\'s path"; every call in the API reference at /docs).\n'),
      );
      return 1;
    }
    if (error instanceof EncryptionKeyError || error instanceof Incomplete) {
      process.stderr.write(`evmon: ${error.message}\n`);
      return 1;
    }
    if (error instanceof ProblemError) {
      const pointers = error.extras.errors?.map((e) => `\n  ${e.pointer} ${e.detail}`).join('') ?? '';
      process.stderr.write(`evmon: ${error.slug}: ${error.detail}${pointers}\n`);
      return 1;
    }
    if (error instanceof ConfigError) {
      process.stderr.write(`evmon: ${error.message}\n`);
      return 1;
    }
    if (error instanceof TypeError && (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`evmon: ${error.message}\n\n${USAGE}\n`);
      return 2;
    }
    throw error;
  } finally {
    if (opened) await (opened as Runtime).close();
  }
}

process.exitCode = await main();
