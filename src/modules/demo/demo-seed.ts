// On an empty database with EVMON_SEED=demo: a demo account with every entitlement, a key with
// every scope and a console user with a generated password, made before the server listens and
// printed once; then the demo corpus (news articles about some 20,000 events over the past
// year, through bulk ingest), generated in the background while the server already serves,
// its progress in the log and, at the end, the clustering's B-cubed against its ground truth
// and copy detection's pairwise precision and recall against the true stories ("copies" in
// the "demo corpus seeded" line, demo-corpus.ts).
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import { SCOPES } from '../../platform/scopes.js';
import { settings } from '../../platform/settings.js';
import type { AccountsService } from '../accounts/accounts.service.js';
import { RECENT_DAYS } from './demo-articles.js';
import { type DemoDeps, generateDemoCorpus } from './demo-corpus.js';

export const DEMO_CREDITS = 10_000;
export const DEMO_CONSOLE_EMAIL = 'demo@example.com';

// The settings row that claims the seeding: 'corpus-pending' from the account's creation until
// the corpus is complete, then 'yes'. A process stopped in between leaves 'corpus-pending'.
const SEEDED = 'demo_seeded';

/** What seeding uses: the services it goes through and where it reports. */
export interface DemoSeedDeps extends DemoDeps {
  config: Pick<Config, 'publicBaseUrl' | 'demoEvents'>;
  logger: Logger;
  accounts: Pick<AccountsService, 'createAccount' | 'createApiKey'>;
  consoleUsers: DemoConsoleUsers;
}

/**
 * The one thing seeding asks of the console's users (console/console-users.ts, which the
 * runtime passes): declared here, since the console stands above the features it shows.
 */
export interface DemoConsoleUsers {
  create(accountId: string, input: { email: string; password: string }): Promise<unknown>;
}

export interface DemoAccountSeed {
  /** What to print once the server listens: the raw key and password exist only here. */
  banner: string;
}

/** The demo account, key and console user, on an empty database only; null otherwise. */
export async function seedDemoAccount(deps: DemoSeedDeps): Promise<DemoAccountSeed | null> {
  const existing = await deps.db.query<{ n: number }>('SELECT count(*)::int AS n FROM accounts');
  if ((existing[0]?.n ?? 0) > 0) {
    await warnIfCorpusIncomplete(deps);
    return null;
  }
  // Of several processes starting together on one empty database, only the one that records
  // the seeding seeds.
  if (!(await settings.claim(deps.db, SEEDED, 'corpus-pending'))) return null;
  const account = await deps.accounts.createAccount({
    display_name: 'Demo Newsroom',
    kind: 'ORGANIZATION',
    credit_balance: DEMO_CREDITS,
    entitlements: { structured_reporting: true, entity_reporting: true, beats: true },
  });
  const key = await deps.accounts.createApiKey(account.id, { name: 'demo', scopes: [...SCOPES] });
  const consolePassword = randomBytes(15).toString('base64url');
  await deps.consoleUsers.create(account.id, { email: DEMO_CONSOLE_EMAIL, password: consolePassword });
  return {
    banner:
      `\nDemo account ${account.id} seeded with ${DEMO_CREDITS} credits.\nDemo API key (all scopes, shown once): ${key.key}\n` +
      `Web console: ${deps.config.publicBaseUrl}/console, email ${DEMO_CONSOLE_EMAIL}, password (shown once): ${consolePassword}\n` +
      // Worded without the completion line's own words: a script waiting for that line in the
      // output must not find it here, before the corpus is loaded.
      `Demo corpus: ${deps.config.demoEvents} events, loading in the background now; searches see what is loaded so far. ` +
      `Progress is logged, and a last log line says when every event is in (README, "Set-up").\n\n`,
  };
}

export interface DemoCorpusSeeding {
  /** Settles when the corpus is complete, or when seeding stopped (stop, or an error, logged). */
  readonly settled: Promise<void>;
  /** Stops between two batches and waits: the batches written stay, the corpus stays incomplete. */
  stop(): Promise<void>;
}

/** Generates the demo corpus in the background, logging progress about every quarter. */
export function seedDemoCorpusInBackground(deps: DemoSeedDeps): DemoCorpusSeeding {
  const { logger } = deps;
  const total = deps.config.demoEvents;
  const abort = new AbortController();
  let quartersLogged = 0;
  const settled = (async () => {
    logger.info({ events: total }, 'demo corpus: seeding in the background');
    try {
      const corpus = await generateDemoCorpus(deps, {
        events: total,
        // Smaller batches (of articles) than a bulk load's, so a request waits for one batch at most briefly.
        batchSize: 100,
        signal: abort.signal,
        progress: (done) => {
          const quarters = Math.floor((done * 4) / total);
          if (quarters <= quartersLogged || done === total) return; // the end is "demo corpus seeded"
          quartersLogged = quarters;
          logger.info({ done, total }, 'demo corpus: events loaded');
        },
        recentLoaded: (events) =>
          logger.info({ events, days: RECENT_DAYS }, `demo corpus: the last ${RECENT_DAYS} days are loaded and searchable; the rest of the year follows`),
      });
      await settings.set(deps.db, SEEDED, 'yes');
      logger.info(corpus, 'demo corpus seeded');
    } catch (error) {
      if (abort.signal.aborted) logger.warn('demo corpus: seeding stopped before it was complete');
      else logger.error({ err: error }, 'demo corpus: seeding failed');
    }
  })();
  return {
    settled,
    async stop() {
      abort.abort();
      await settled;
    },
  };
}

async function warnIfCorpusIncomplete(deps: DemoSeedDeps): Promise<void> {
  if ((await settings.get(deps.db, SEEDED)) !== 'corpus-pending') return;
  const events = await deps.db.query<{ n: number }>('SELECT count(*)::int AS n FROM events');
  deps.logger.warn(
    { events: events[0]?.n ?? 0 },
    'demo corpus incomplete: another process is seeding it, or an earlier start stopped before it was complete (start on an empty database for the whole corpus)',
  );
}
