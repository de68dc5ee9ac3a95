// The operator command line as a real process, on the database the test names. Each run is a
// process that ends with the test that started it (test/helpers/processes.ts); a test sizes its
// time limit by its runs (RUN_BUDGET_MS in test/helpers/server.ts).
import { type OwnedProcess, type Owner, runOwned, spawnOwned } from './processes.js';
import { prepareDataDir, programArgs, ROOT, withTestKey } from './server.js';

export interface EvmonResult {
  status: number | null;
  /** stdout parsed, when the command succeeded. */
  json: any;
  stdout: string;
  stderr: string;
}

async function run(owner: Owner, args: string[], env: Record<string, string>, input?: string): Promise<EvmonResult> {
  prepareDataDir(env);
  const result = await runOwned(owner, process.execPath, args, { cwd: ROOT, env: { ...process.env, ...withTestKey(env) }, input });
  return { ...result, json: result.status === 0 ? JSON.parse(result.stdout) : null };
}

/** `evmon …`, from the build the test run made (or the sources, through tsx). */
export function evmon(owner: Owner, env: Record<string, string>, ...args: string[]): Promise<EvmonResult> {
  return run(owner, [...programArgs('src/cli/main.ts'), ...args], env);
}

/** `evmon …` with `input` on its standard input (a password, say). */
export function evmonWithInput(owner: Owner, env: Record<string, string>, input: string, ...args: string[]): Promise<EvmonResult> {
  return run(owner, [...programArgs('src/cli/main.ts'), ...args], env, input);
}

/** `evmon …` exactly as installed: bin/evmon.js, which runs the sources through tsx. */
export function evmonBin(owner: Owner, env: Record<string, string>, ...args: string[]): Promise<EvmonResult> {
  return run(owner, ['bin/evmon.js', ...args], env);
}

/** `evmon …` started and left running, its standard error gathered, for a test that stops it midway. */
export function spawnEvmon(owner: Owner, env: Record<string, string>, ...args: string[]): OwnedProcess & { stderr(): string } {
  prepareDataDir(env);
  const run = spawnOwned(owner, process.execPath, [...programArgs('src/cli/main.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...withTestKey(env) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  run.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return { ...run, stderr: () => stderr };
}
