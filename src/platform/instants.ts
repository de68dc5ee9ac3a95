// Which instants the service stores: both JavaScript and PostgreSQL read and write the years 1
// to 9999 alike; PostgreSQL refuses year 0 (decisions.md, "HTTP hardening").

/** Does the ISO 8601 text read as an instant in the years 1 to 9999? */
export function storableInstant(iso: string): boolean {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return false;
  const year = new Date(ms).getUTCFullYear();
  return year >= 1 && year <= 9999;
}
