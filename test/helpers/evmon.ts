// The operator command line as a real process, on the database the test names.
import { spawnSync } from 'node:child_process';
import { prepareDataDir, programArgs, ROOT } from './server.js';

export interface EvmonResult {
  status: number | null;
  /** stdout parsed, when the command succeeded. */
  json: any;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: Record<string, string>): EvmonResult {
  prepareDataDir(env);
  const result = spawnSync(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8' });
  return { status: result.status, json: result.status === 0 ? JSON.parse(result.stdout) : null, stdout: result.stdout, stderr: result.stderr };
}

/** `evmon …`, from the build the test run made (or the sources, through tsx). */
export function evmon(env: Record<string, string>, ...args: string[]): EvmonResult {
  return run([...programArgs('src/cli/main.ts'), ...args], env);
}

/** `evmon …` exactly as installed: bin/evmon.js, which runs the sources through tsx. */
export function evmonBin(env: Record<string, string>, ...args: string[]): EvmonResult {
  return run(['bin/evmon.js', ...args], env);
}
