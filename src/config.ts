// The only module that reads process.env: the environment is parsed once, validated,
// frozen and passed down (operations.md, "Configuration").
import { isIP } from 'node:net';
import path from 'node:path';

export type DatabaseTarget =
  | { kind: 'pglite'; dataDir: string }
  | { kind: 'pglite-memory' }
  /** `replicaUrls`: hot standbys streaming from `url` (EVMON_DATABASE_REPLICA_URLS), for reads. */
  | { kind: 'postgres'; url: string; replicaUrls?: string[] };

/** What a process does: `api` serves requests, `worker` runs background work, `all` both. */
export type ProcessRole = 'all' | 'api' | 'worker';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly database: DatabaseTarget;
  readonly dataDir: string;
  readonly publicBaseUrl: string;
  readonly docsUrl: string;
  readonly tls: { readonly certFile: string; readonly keyFile: string } | null;
  readonly opsToken: string | null;
  readonly seed: 'demo' | 'none';
  /** Events of the demo corpus: 20,000; test-only override EVMON_TEST_DEMO_EVENTS (needs EVMON_TEST_CLOCK=1). */
  readonly demoEvents: number;
  readonly testClock: boolean;
  readonly webhookAllowPrivate: boolean;
  readonly edgeMaxPerMinute: number;
  readonly edgeBanSeconds: number;
  readonly trustedProxies: readonly string[];
  readonly secret: string | null;
  /**
   * EVMON_ENCRYPTION_KEY, which seals webhook signing secrets at rest. Null: the embedded
   * database's key file in the data folder (a key of the process for memory://); PostgreSQL
   * refuses to start without it.
   */
  readonly encryptionKey: Buffer | null;
  /** EVMON_ENCRYPTION_KEY_PREVIOUS: during a key rotation, the key secrets not yet re-encrypted are sealed under. */
  readonly previousEncryptionKey: Buffer | null;
  readonly logLevel: string;
  /** EVMON_ROLE; `api` and `worker` need PostgreSQL (the embedded database is one process's alone). */
  readonly role: ProcessRole;
  /**
   * Slow-client defence (decisions.md, "HTTP hardening"): a request's headers within 15 s, its
   * whole body within 30 s of its start, an idle keep-alive connection closed after 75 s.
   * Test-only override (needs EVMON_TEST_CLOCK=1): EVMON_TEST_HTTP_TIMEOUTS_MS=headers,body,keep-alive.
   */
  readonly httpTimeouts: SlowClientTimeouts;
  /** Test-only (needs EVMON_TEST_CLOCK=1): where a search waits, so a test can kill the process there. */
  readonly testSearchPause: 'before-charge' | 'after-charge' | null;
  /** EVMON_TEST_ANSWER_PAUSE: every POST with an Idempotency-Key waits after its effect, before its answer is sent. */
  readonly testAnswerPause: boolean;
}

/** The slow-client limits (platform/http/slow-clients.ts applies them). */
export interface SlowClientTimeouts {
  readonly headersMs: number;
  readonly bodyMs: number;
  readonly keepAliveMs: number;
}

/** An encryption key's length: AES-256 (platform/secret-box.ts seals with it). */
export const KEY_BYTES = 32;

/**
 * 32 bytes written as 64 hex digits or in base64 (standard or URL-safe alphabet, padding
 * optional), or null. Only the canonical spelling is taken, so one key has one base64 form.
 * Here rather than beside the secret box: the configuration refuses a key so written before
 * anything opens, and the embedded database's key file is read the same way.
 */
export function decodeKey(text: string): Buffer | null {
  const written = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(written)) return Buffer.from(written, 'hex');
  if (!/^[A-Za-z0-9+/]{43}=?$/.test(written) && !/^[A-Za-z0-9_-]{43}=?$/.test(written)) return null;
  const key = Buffer.from(written, 'base64');
  const canonical = written.replace(/=$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  return key.length === KEY_BYTES && key.toString('base64url') === canonical ? key : null;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const problems: string[] = [];
  const str = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = str(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return Number(raw);
  };
  const flag = (name: string): boolean => {
    const raw = str(name);
    if (raw === undefined || raw === '0') return false;
    if (raw === '1') return true;
    problems.push(`${name} must be 0 or 1 (got "${raw}")`);
    return false;
  };
  const url = (name: string, value: string): string => {
    try {
      const parsed = new URL(value);
      if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new Error('scheme');
      return value.replace(/\/+$/, '');
    } catch {
      problems.push(`${name} must be an absolute http(s) URL (got "${value}")`);
      return value;
    }
  };

  const port = int('EVMON_PORT', 8443, 0, 65535);
  const host = str('EVMON_HOST') ?? '0.0.0.0';
  const dataDir = path.resolve(cwd, str('EVMON_DATA_DIR') ?? './data');

  let database: DatabaseTarget = { kind: 'pglite', dataDir: path.join(dataDir, 'pglite') };
  const databaseUrl = str('EVMON_DATABASE_URL');
  if (databaseUrl === 'memory://') database = { kind: 'pglite-memory' };
  else if (databaseUrl !== undefined) {
    if (!/^postgres(ql)?:\/\//.test(databaseUrl)) {
      problems.push('EVMON_DATABASE_URL must be postgres://… or memory://');
    }
    database = { kind: 'postgres', url: databaseUrl };
  }
  const replicaUrls = (str('EVMON_DATABASE_REPLICA_URLS') ?? '')
    .split(',')
    .map((url) => url.trim())
    .filter(Boolean);
  if (replicaUrls.length > 0) {
    if (database.kind !== 'postgres')
      problems.push('EVMON_DATABASE_REPLICA_URLS needs EVMON_DATABASE_URL=postgres://… (standbys stream from a PostgreSQL primary)');
    else if (replicaUrls.some((url) => !/^postgres(ql)?:\/\//.test(url)))
      problems.push('EVMON_DATABASE_REPLICA_URLS must be postgres://… URLs separated by commas');
    else database.replicaUrls = replicaUrls;
  }

  const publicBaseUrl = url('EVMON_PUBLIC_BASE_URL', str('EVMON_PUBLIC_BASE_URL') ?? `https://localhost:${port}`);
  const docsUrl = url('EVMON_DOCS_URL', str('EVMON_DOCS_URL') ?? `${publicBaseUrl}/docs`);

  const certFile = str('EVMON_TLS_CERT');
  const keyFile = str('EVMON_TLS_KEY');
  if ((certFile === undefined) !== (keyFile === undefined)) {
    problems.push('EVMON_TLS_CERT and EVMON_TLS_KEY must be set together');
  }
  const tls = certFile && keyFile ? { certFile: path.resolve(cwd, certFile), keyFile: path.resolve(cwd, keyFile) } : null;

  const seed = str('EVMON_SEED') ?? 'demo';
  if (seed !== 'demo' && seed !== 'none') problems.push(`EVMON_SEED must be demo or none (got "${seed}")`);

  const logLevel = str('EVMON_LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`EVMON_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  const secret = str('EVMON_SECRET') ?? null;

  // Keys are secrets: a refusal names the variable and the expected form, never the value.
  const key = (name: string): Buffer | null => {
    const raw = str(name);
    if (raw === undefined) return null;
    const decoded = decodeKey(raw);
    if (!decoded) {
      problems.push(
        `${name} must be 32 bytes written as 64 hex digits or in base64 (44 characters; make one with: openssl rand -base64 32); got ${raw.length} characters that are neither`,
      );
    }
    return decoded;
  };
  const encryptionKey = key('EVMON_ENCRYPTION_KEY');
  const previousEncryptionKey = key('EVMON_ENCRYPTION_KEY_PREVIOUS');
  if (database.kind === 'postgres' && str('EVMON_ENCRYPTION_KEY') === undefined) {
    problems.push(
      'EVMON_ENCRYPTION_KEY is required with PostgreSQL: it encrypts webhook signing secrets at rest, and every process sharing the database needs the same one (make one with: openssl rand -base64 32, and keep it apart from the database and its backups)',
    );
  }
  const role = str('EVMON_ROLE') ?? 'all';
  if (role !== 'all' && role !== 'api' && role !== 'worker') problems.push(`EVMON_ROLE must be all, api or worker (got "${role}")`);
  else if (role !== 'all' && database.kind !== 'postgres') {
    problems.push(
      `EVMON_ROLE=${role} needs PostgreSQL (EVMON_DATABASE_URL=postgres://…): the embedded database belongs to one process, which must be both api and worker`,
    );
  }

  const opsToken = str('EVMON_OPS_TOKEN') ?? null;

  const trustedProxies = (str('EVMON_TRUSTED_PROXIES') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const entry of trustedProxies) {
    const [address, bits, ...rest] = entry.split('/');
    const family = isIP(address ?? '');
    const maxBits = family === 6 ? 128 : 32;
    if (family === 0 || rest.length > 0 || (bits !== undefined && (!/^\d+$/.test(bits) || Number(bits) > maxBits))) {
      problems.push(`EVMON_TRUSTED_PROXIES must list IP addresses or CIDR ranges, comma-separated (got "${entry}")`);
    }
  }

  const testSearchPause = str('EVMON_TEST_SEARCH_PAUSE') ?? null;
  if (testSearchPause !== null && testSearchPause !== 'before-charge' && testSearchPause !== 'after-charge') {
    problems.push(`EVMON_TEST_SEARCH_PAUSE must be before-charge or after-charge (got "${testSearchPause}")`);
  }
  if (testSearchPause !== null && !flag('EVMON_TEST_CLOCK')) problems.push('EVMON_TEST_SEARCH_PAUSE needs EVMON_TEST_CLOCK=1');
  const testAnswerPause = flag('EVMON_TEST_ANSWER_PAUSE');
  if (testAnswerPause && !flag('EVMON_TEST_CLOCK')) problems.push('EVMON_TEST_ANSWER_PAUSE needs EVMON_TEST_CLOCK=1');

  let httpTimeouts = { headersMs: 15_000, bodyMs: 30_000, keepAliveMs: 75_000 };
  const testTimeouts = str('EVMON_TEST_HTTP_TIMEOUTS_MS');
  if (testTimeouts !== undefined) {
    const [headersMs, bodyMs, keepAliveMs] = testTimeouts.split(',').map(Number);
    if (!flag('EVMON_TEST_CLOCK')) problems.push('EVMON_TEST_HTTP_TIMEOUTS_MS needs EVMON_TEST_CLOCK=1');
    else if ([headersMs, bodyMs, keepAliveMs].every((ms) => Number.isInteger(ms) && ms! > 0) && headersMs! < bodyMs!)
      httpTimeouts = { headersMs: headersMs!, bodyMs: bodyMs!, keepAliveMs: keepAliveMs! };
    else problems.push(`EVMON_TEST_HTTP_TIMEOUTS_MS must be three positive millisecond counts, headers below body (got "${testTimeouts}")`);
  }

  // Test-only: a smaller demo corpus, so a test can watch seeding finish in seconds.
  const demoEvents = int('EVMON_TEST_DEMO_EVENTS', 20_000, 1, 20_000);
  if (str('EVMON_TEST_DEMO_EVENTS') !== undefined && !flag('EVMON_TEST_CLOCK')) problems.push('EVMON_TEST_DEMO_EVENTS needs EVMON_TEST_CLOCK=1');

  const config: Config = {
    port,
    host,
    database,
    dataDir,
    publicBaseUrl,
    docsUrl,
    tls,
    opsToken,
    seed: seed === 'none' ? 'none' : 'demo',
    demoEvents,
    testClock: flag('EVMON_TEST_CLOCK'),
    webhookAllowPrivate: flag('EVMON_WEBHOOK_ALLOW_PRIVATE'),
    edgeMaxPerMinute: int('EVMON_EDGE_MAX_PER_MINUTE', 300, 0, 1_000_000),
    edgeBanSeconds: int('EVMON_EDGE_BAN_SECONDS', 600, 1, 86_400 * 30),
    trustedProxies,
    httpTimeouts,
    secret,
    encryptionKey,
    previousEncryptionKey,
    logLevel,
    role: role as ProcessRole,
    testSearchPause: testSearchPause as Config['testSearchPause'],
    testAnswerPause,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}
