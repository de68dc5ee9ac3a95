// EVMON_ENCRYPTION_KEY for a benchmark's server on PostgreSQL, which refuses to start without
// one: the caller's own, else a fixed key, so that runs on one schema agree (bench data is
// thrown away). The embedded database keeps its key file, or a key of its process.
export function benchKeyEnv(databaseUrl: string): Record<string, string> {
  if (!/^postgres(ql)?:/.test(databaseUrl)) return {};
  return { EVMON_ENCRYPTION_KEY: process.env.EVMON_ENCRYPTION_KEY ?? Buffer.alloc(32, 'evmon-bench-encryption-key').toString('base64') };
}
