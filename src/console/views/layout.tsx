// The page frame every console page shares: one stylesheet, one deferred script, a skip link,
// the navigation, and sign-out as a form (a state change, so POST with its CSRF token).
import type { ComponentChildren } from 'preact';
import { renderToString } from 'preact-render-to-string';

export const NAV = [
  { href: '/console/settings/api-keys', label: 'API keys' },
  { href: '/console/credits', label: 'Credits' },
  { href: '/console/sensors', label: 'Sensors' },
  { href: '/console/beats', label: 'Beats' },
] as const;

export interface Viewer {
  email: string;
  csrf: string;
}

export interface PageProps {
  title: string;
  /** The nav entry this page belongs to. */
  section?: (typeof NAV)[number]['href'];
  viewer: Viewer | null;
  children: ComponentChildren;
}

export function Csrf({ token }: { token: string }) {
  return <input type="hidden" name="_csrf" value={token} />;
}

export function Layout({ title, section, viewer, children }: PageProps) {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · Event Monitoring console`}</title>
        <link rel="icon" href="/console/assets/favicon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href="/console/assets/console.css" />
        <script src="/console/assets/console.js" defer />
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <div class="bar">
            <a class="brand" href="/console">
              Event Monitoring console
            </a>
            {viewer && (
              <nav aria-label="Console">
                <ul>
                  {NAV.map((item) => (
                    <li>
                      <a href={item.href} aria-current={item.href === section ? 'page' : undefined}>
                        {item.label}
                      </a>
                    </li>
                  ))}
                </ul>
              </nav>
            )}
            {viewer && (
              <form class="who" method="post" action="/console/sign-out">
                <span>{viewer.email}</span>
                <Csrf token={viewer.csrf} />
                <button type="submit" data-testid="sign-out">
                  Sign out
                </button>
              </form>
            )}
          </div>
        </header>
        <main id="main">
          <h1>{title}</h1>
          {children}
        </main>
      </body>
    </html>
  );
}

/** A whole HTML document. */
export function page(props: PageProps): string {
  return `<!doctype html>\n${renderToString(<Layout {...props} />)}`;
}

/** A message box: what went wrong, each field's reason under it. */
export function Problem({ message, details = [] }: { message: string | null; details?: readonly string[] }) {
  if (message === null) return null;
  return (
    <div class="error" role="alert">
      <p>{message}</p>
      {details.length > 0 && (
        <ul>
          {details.map((detail) => (
            <li>{detail}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function Notice({ message }: { message: string | null }) {
  return message === null ? null : (
    <div class="notice" role="status">
      {message}
    </div>
  );
}

/**
 * An instant as "2026-11-28 09:33:12 UTC": the date and the time each unbroken (a narrow column
 * may put the time under the date, never "2026-11-" over "28").
 */
export function when(iso: string | null) {
  if (iso === null) return '—';
  const [date, time] = iso.replace(/\.\d+Z$|Z$/, '').split('T');
  return (
    <time dateTime={iso}>
      <span class="nowrap">{date}</span>
      {time !== undefined && (
        <>
          {' '}
          <span class="nowrap">{time} UTC</span>
        </>
      )}
    </time>
  );
}

/** A URL that breaks, when it must, after a slash, a dot or a hyphen, not mid-word (a phone's width). */
export function Url({ url }: { url: string }) {
  const parts = url.split(/(?<=[/.?&=_-])/);
  return (
    <span class="mono">
      {parts.map((part, i) => (
        <>
          {i > 0 && <wbr />}
          {part}
        </>
      ))}
    </span>
  );
}

/** A day, "2026-11-28", never broken at its hyphens. */
export const Day = ({ day }: { day: string }) => <span class="nowrap">{day}</span>;

/** A row of figures, each a label over its value (balance, spend, counts). */
export function Stats({ items }: { items: readonly { label: string; value: ComponentChildren; testid?: string }[] }) {
  return (
    <dl class="stats">
      {items.map(({ label, value, testid }) => (
        <div>
          <dt>{label}</dt>
          <dd data-testid={testid}>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
