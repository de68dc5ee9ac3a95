// Settings → API keys (decisions.md, "Web console"): the active keys, the create form (one
// checkbox per scope), the raw key shown once after creation, revoke with a confirmation, and
// the 10-key limit stated.
import type { ApiKey } from '../../modules/accounts/accounts.schemas.js';
import { SCOPES, type Scope } from '../../platform/scopes.js';
import { Csrf, Notice, page, Table, Problem, when, type Viewer } from './layout.js';

const SCOPE_HINTS: Record<Scope, string> = {
  SENSORS_READ: 'read sensors and their deliveries',
  SENSORS_WRITE: 'create, change and delete sensors; redeliver',
  EVENTS_READ: 'search events (billed) and read reference data',
  REPORTS_READ: 'read your reports and reporting grants',
  REPORTS_WRITE: 'file reports (adds REPORTS_READ); needs a reporting entitlement',
  BEATS_READ: 'read beats and their entries',
  BEATS_WRITE: 'create, change and delete beats (BEATS_READ suggested)',
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
            <Table columns={['Name', 'Prefix', 'Scopes', 'Created', 'Last used', { label: 'Actions', screenReaderOnly: true }]}>
              {keys.map((key) => (
                <tr data-testid="api-key-row" data-key-id={key.id}>
                  <td>{key.name}</td>
                  <td class="mono">{key.prefix}</td>
                  <td>{key.scopes.join(', ')}</td>
                  <td>{when(key.created_at)}</td>
                  <td>{key.last_used_at === null ? 'never' : when(key.last_used_at)}</td>
                  <td>
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
                  </td>
                </tr>
              ))}
            </Table>
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
