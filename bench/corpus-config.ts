// The configuration of a benchmark that reads a corpus loaded beforehand: on PostgreSQL at
// BENCH_DATABASE_URL (with the benches' encryption key), else the embedded database in
// BENCH_DATA_DIR; no demo corpus, warnings only. `extra` adds or overrides variables.
import { loadConfig } from '../src/config.js';
import { benchKeyEnv } from './encryption-key.js';

export function corpusConfig(extra: Record<string, string> = {}) {
  return loadConfig({
    EVMON_DATABASE_URL: process.env.BENCH_DATABASE_URL ?? '',
    ...benchKeyEnv(process.env.BENCH_DATABASE_URL ?? ''),
    EVMON_DATA_DIR: process.env.BENCH_DATA_DIR ?? '/tmp/evbench/pglite-data',
    EVMON_SEED: 'none',
    EVMON_LOG_LEVEL: 'warn',
    ...extra,
  });
}
