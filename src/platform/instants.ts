// Which instants the service stores: both JavaScript and PostgreSQL read and write the years 1
// to 9999 alike; PostgreSQL refuses year 0 (decisions.md, "HTTP hardening").

/** Is the instant (a Date, or ISO 8601 text) one in the years 1 to 9999, UTC? */
export function storableInstant(instant: Date | string): boolean {
  const ms = typeof instant === 'string' ? Date.parse(instant) : instant.getTime();
  if (Number.isNaN(ms)) return false;
  const year = new Date(ms).getUTCFullYear();
  return year >= 1 && year <= 9999;
}
