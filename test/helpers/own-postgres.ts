// A PostgreSQL server of a test's own (initdb into a fresh folder, the server on a free port),
// for faults a shared server must never see: its backends terminated, the server itself
// stopped and started again. The server runs in the foreground as an owned process
// (test/helpers/processes.ts), so it ends with its test whatever happens. Run as root, it runs
// as the postgres user, which initdb requires.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './ports.js';
import { type OwnedProcess, type Owner, spawnOwned } from './processes.js';

const POSTGRES_ROOT = '/usr/lib/postgresql';

/** The newest PostgreSQL installed, or null (the test is then skipped). */
export function postgresBinDir(): string | null {
  if (!fs.existsSync(POSTGRES_ROOT)) return null;
  const versions = fs
    .readdirSync(POSTGRES_ROOT)
    .filter((name) => fs.existsSync(path.join(POSTGRES_ROOT, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(POSTGRES_ROOT, versions[0], 'bin') : null;
}

export interface OwnPostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  /** Statements as the superuser on a connection of their own. */
  admin<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Terminates every backend but the caller's (what a restart does to each connection); answers how many. */
  terminateAll(): Promise<number>;
  /** Terminates one backend of the servers under test, picked by `pick` from their pids; answers whether one was found. */
  terminateOne(pick: (count: number) => number): Promise<boolean>;
  /** Stops the server: `fast` rolls back open transactions and closes every connection. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Starts it again on the same port and folder, once it accepts connections. */
  start(): Promise<void>;
  /** The server's processes now: its postmaster first, then the postmaster's children. */
  processes(): number[];
  /**
   * Stops every process of the server (SIGSTOP) or lets them go on (SIGCONT): a server that
   * keeps its connections open and answers nothing, as a machine that hangs does.
   */
  freeze(frozen: boolean): void;
}

const asRoot = process.getuid?.() === 0;
/** The command as the postgres user when this process is root. */
const asPostgres = (command: string, args: string[]): [string, string[]] =>
  asRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];

/**
 * `standbyOf`: a hot standby of that server instead of a server of its own, made as an
 * operator makes one (`pg_basebackup -R`: its data copied, then streaming from it).
 */
export async function ownPostgres(owner: Owner, bin: string, { standbyOf }: { standbyOf?: OwnPostgres } = {}): Promise<OwnPostgres> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'evmon-pg-'));
  const remove = () => fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  process.once('exit', remove);
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
    fs.chownSync(dir, uid, gid);
  }
  const data = path.join(dir, 'data');
  const primaryPort = standbyOf ? new URL(standbyOf.url).port : null;
  const [initCommand, initArgs] = primaryPort
    ? asPostgres(path.join(bin, 'pg_basebackup'), ['-D', data, '-R', '-X', 'stream', '-h', '127.0.0.1', '-p', primaryPort, '-U', 'postgres', '--no-sync'])
    : asPostgres(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
  const init = spawnSync(initCommand, initArgs, { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`${path.basename(initCommand === 'runuser' ? initArgs[3]! : initCommand)} failed: ${init.stderr}`);
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;

  let server: OwnedProcess | null = null;
  let log = '';
  async function start(): Promise<void> {
    // No fsync: the test is about connections, not the disk; the socket in the test's folder.
    const [command, args] = asPostgres(path.join(bin, 'postgres'), [
      '-D',
      data,
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'max_connections=200',
    ]);
    server = spawnOwned(owner, command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    server.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
    const deadline = Date.now() + 60_000;
    for (;;) {
      const client = new pg.Client({ connectionString: url });
      try {
        await client.connect();
        await client.end();
        return;
      } catch {
        await client.end().catch(() => undefined);
        if (Date.now() > deadline) throw new Error(`own PostgreSQL did not start:\n${log}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  async function admin<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(sql, params)).rows as T[];
    } finally {
      await client.end();
    }
  }
  function processes(): number[] {
    const postmaster = Number(fs.readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const children = fs.readdirSync('/proc').filter((entry) => {
      if (!/^\d+$/.test(entry)) return false;
      try {
        return Number(fs.readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]) === postmaster;
      } catch {
        return false; // it ended meanwhile
      }
    });
    return [postmaster, ...children.map(Number)];
  }
  const others = `FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = current_database() AND backend_type = 'client backend'`;

  owner.signal.addEventListener('abort', () => void server?.stop('SIGQUIT').then(remove), { once: true });
  await start();
  return {
    url,
    admin,
    async terminateAll() {
      const rows = await admin<{ ok: boolean }>(`SELECT pg_terminate_backend(pid) AS ok ${others}`);
      return rows.filter((row) => row.ok).length;
    },
    async terminateOne(pick) {
      const pids = await admin<{ pid: number }>(`SELECT pid ${others} ORDER BY pid`);
      if (pids.length === 0) return false;
      await admin('SELECT pg_terminate_backend($1)', [pids[pick(pids.length)]!.pid]);
      return true;
    },
    async stop(mode = 'fast') {
      // SIGINT is the fast shutdown, SIGQUIT the immediate one (as after a crash).
      await server?.stop(mode === 'fast' ? 'SIGINT' : 'SIGQUIT');
      server = null;
    },
    start,
    processes,
    freeze(frozen) {
      for (const pid of processes()) process.kill(pid, frozen ? 'SIGSTOP' : 'SIGCONT');
    },
  };
}
