// Rows as COPY's text format reads them (one line per row, columns separated by tabs, \N for
// NULL), for Queryable.copyRows on both storage paths.

/** A value COPY can read back as any column type the corpus writes this way. */
export type CopyValue = string | number | boolean | Date | null;

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** A timestamp as PostgreSQL reads one: years before 1 AD as BC (toISOString's year 0000 is 1 BC, which PostgreSQL refuses). */
function timestamp(date: Date): string {
  const year = date.getUTCFullYear();
  if (year >= 1) return date.toISOString();
  const bc = new Date(date);
  bc.setUTCFullYear(1 - year);
  return `${bc.toISOString()} BC`;
}

function field(value: CopyValue): string {
  if (value === null) return '\\N';
  if (value instanceof Date) return timestamp(value);
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (typeof value === 'number') return String(value); // Infinity, -Infinity and NaN as float8 spells them
  return value.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!);
}

export function copyText(rows: readonly (readonly CopyValue[])[]): string {
  let text = '';
  for (const row of rows) text += `${row.map(field).join('\t')}\n`;
  return text;
}

/** The statement that reads such rows, from `source` (STDIN, or the embedded database's '/dev/blob'). */
export const copyStatement = (table: string, columns: readonly string[], source: string) => `COPY ${table} (${columns.join(', ')}) FROM ${source}`;
