// A browser-like console client over HTTPS: it keeps the console's cookies, reads each page's
// CSRF token, and posts forms as a browser does (application/x-www-form-urlencoded).
import type { HttpClient, HttpResponse } from './http.js';
import { unique } from './corpus.js';
import type { OpsClient } from './server.js';

export const CONSOLE_PASSWORD = 'correct horse battery staple';

export interface ConsoleClient {
  cookies: Map<string, string>;
  get(path: string): Promise<HttpResponse>;
  /** Posts a form with the CSRF token of the last page read (unless `_csrf` is given). */
  post(path: string, form?: Record<string, string | string[]>): Promise<HttpResponse>;
  signIn(email: string, password?: string): Promise<HttpResponse>;
  /** The CSRF token of the last page read. */
  csrf: string | null;
}

export function consoleClient(http: HttpClient): ConsoleClient {
  const cookies = new Map<string, string>();
  const remember = (response: HttpResponse) => {
    // Values never hold ';' or ','; a cleared cookie comes back empty (with an Expires in the past).
    for (const [, name, value] of (response.headers['set-cookie'] ?? '').matchAll(/(?:^|, )([\w-]+)=([^;,]*)/g)) {
      if (value === '') cookies.delete(name!);
      else cookies.set(name!, value!);
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(response.text)?.[1];
    if (token) client.csrf = token;
    return response;
  };
  const cookieHeader = (): Record<string, string> => (cookies.size === 0 ? {} : { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') });

  const client: ConsoleClient = {
    cookies,
    csrf: null,
    get: async (path) => remember(await http.request('GET', path, { headers: cookieHeader() })),
    async post(path, form = {}) {
      const params = new URLSearchParams();
      if (!('_csrf' in form) && client.csrf) params.append('_csrf', client.csrf);
      for (const [name, value] of Object.entries(form)) for (const v of [value].flat()) params.append(name, v);
      // As a browser posts a form: from the page's origin, which is the server's.
      const headers = { ...cookieHeader(), origin: new URL(http.baseUrl).origin, 'content-type': 'application/x-www-form-urlencoded' };
      return remember(await http.request('POST', path, { rawBody: params.toString(), headers }));
    },
    async signIn(email, password = CONSOLE_PASSWORD) {
      await client.get('/console/sign-in');
      return client.post('/console/sign-in', { email, password });
    },
  };
  return client;
}

/** An account with a console user; answers both. */
export async function consoleAccount(ops: OpsClient, account: Record<string, unknown> = {}) {
  const created = await ops.createAccount({ credit_balance: 100, ...account });
  const email = `owner.${unique()}@example.com`;
  const user = await ops.post(`/accounts/${created.id}/console-users`, { email, password: CONSOLE_PASSWORD });
  return { account: created, email, userId: user.id as string };
}
