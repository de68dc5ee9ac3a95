// Settings → API keys (decisions.md, "Web console"): the active keys, the create form (one
// checkbox per scope), the raw key shown once after creation, revoke with a confirmation, and
// the 10-key limit stated.
import type { ApiKey } from '../../modules/accounts/accounts.schemas.js';
import { SCOPES, type Scope } from '../../platform/scopes.js';
import { Csrf, Notice, page, Problem, when, type Viewer } from './layout.js';
import { Table, type Column } from './table.js';

// What each scope allows, as the v1 document's scope table says (Authentication, point 3).
const SCOPE_HINTS: Record<Scope, string> = {
  SENSORS_READ: 'list and read sensors and their deliveries',
  SENSORS_WRITE: 'create, change, enable, disable and delete sensors; rotate the signing secret; redeliver; send test deliveries',
  EVENTS_READ: 'search events (billed)',
  REPORTS_READ: 'event types, entity search, reporting grants, and reading your reports',
  REPORTS_WRITE: 'file reports (adds REPORTS_READ); needs a reporting entitlement',
  BEATS_READ: 'read beats and their entries',
  BEATS_WRITE: 'create and change beats (BEATS_READ suggested)',
};

export interface ApiKeysPageProps {
  viewer: Viewer;
  keys: ApiKey[];
  maxKeys: number;
  reportingEntitled: boolean;
  created: ApiKey | null;
  form: { name: string; scopes: readonly string[] };
  problem: { message: string; details: string[] } | null;
  notice: string | null;
}

function CreateForm({ viewer, reportingEntitled, form }: Pick<ApiKeysPageProps, 'viewer' | 'reportingEntitled' | 'form'>) {
  return (
    <form method="post" action="/console/settings/api-keys">
      <Csrf token={viewer.csrf} />
      <label for="key-name">Name</label>
      <input id="key-name" type="text" name="name" value={form.name} required maxLength={200} aria-describedby="key-name-hint" />
      <p id="key-name-hint" class="muted">
        What the key is for, such as "newsroom alerts". You see it in this list; the service never shows it to others.
      </p>
      <fieldset>
        <legend>Scopes</legend>
        {SCOPES.map((scope) => {
          const disabled = scope === 'REPORTS_WRITE' && !reportingEntitled;
          const id = `scope-${scope}`;
          return (
            <div class="scope">
              <input
                id={id}
                type="checkbox"
                name="scopes"
                value={scope}
                checked={form.scopes.includes(scope) && !disabled}
                disabled={disabled}
                aria-describedby={`${id}-hint`}
              />
              <label for={id}>
                <code>{scope}</code>
              </label>
              <small id={`${id}-hint`}>{disabled ? 'needs a reporting entitlement, which this account does not have' : SCOPE_HINTS[scope]}</small>
            </div>
          );
        })}
      </fieldset>
      <button type="submit">Create key</button>
    </form>
  );
}

const keyColumns = (viewer: Viewer): Column<ApiKey>[] => [
  { label: 'Name', cell: (key) => key.name },
  { label: 'Prefix', cell: (key) => <span class="mono">{key.prefix}</span> },
  { label: 'Scopes', cell: (key) => key.scopes.join(', ') },
  { label: 'Created', cell: (key) => when(key.created_at) },
  { label: 'Last used', cell: (key) => (key.last_used_at === null ? 'never' : when(key.last_used_at)) },
  {
    label: 'Actions',
    screenReaderOnly: true,
    cell: (key) => (
      <form
        method="post"
        action={`/console/settings/api-keys/${key.id}/revoke`}
        data-confirm={`Revoke the key "${key.name}"? Requests with it will be refused at once.`}
      >
        <Csrf token={viewer.csrf} />
        <button type="submit" class="danger" data-testid="revoke" aria-label={`Revoke ${key.name}`}>
          Revoke
        </button>
      </form>
    ),
  },
];

export function apiKeysPage(props: ApiKeysPageProps): string {
  const { viewer, keys, maxKeys, created, problem, notice } = props;
  const atLimit = keys.length >= maxKeys;
  return page({
    title: 'API keys',
    section: '/console/settings/api-keys',
    viewer,
    children: (
      <>
        <Notice message={notice} />
        {created && (
          <div class="secret" role="status">
            <p>
              <strong>Your new key "{created.name}".</strong> Copy it now: it is shown only this once and cannot be shown again.
            </p>
            <code id="new-api-key" class="raw-key" data-testid="new-api-key">
              {created.key}
            </code>
            <button type="button" class="quiet" data-copy-from="new-api-key" hidden>
              Copy
            </button>
            <p class="muted">
              Send it as <code>Authorization: Bearer {'<key>'}</code>.
            </p>
          </div>
        )}
        <section class="card">
          <h2>Active keys</h2>
          <p class="muted" data-testid="key-limit">
            {keys.length} of {maxKeys} active keys. An account holds at most {maxKeys}; revoke one to make room.
          </p>
          {keys.length === 0 ? (
            <p>No active keys.</p>
          ) : (
            <Table columns={keyColumns(viewer)} rows={keys} rowAttributes={(key) => ({ 'data-testid': 'api-key-row', 'data-key-id': key.id })} />
          )}
        </section>
        <section class="card">
          <h2>Create a key</h2>
          <Problem message={problem?.message ?? null} details={problem?.details} />
          {atLimit ? (
            <p data-testid="key-limit-reached">This account has {maxKeys} active keys, the most it can hold. Revoke a key to create another.</p>
          ) : (
            <CreateForm {...props} />
          )}
        </section>
      </>
    ),
  });
}
