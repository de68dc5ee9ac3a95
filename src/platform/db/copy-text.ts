// Rows as COPY's text format reads them (one line per row, columns separated by tabs, \N for
// NULL), for Queryable.copyRows on both storage paths.

/** A value COPY can read back as any column type the corpus writes this way (a list: a one-dimensional array). */
export type CopyValue = string | number | boolean | Date | null | readonly (string | number | null)[];

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** A timestamp as PostgreSQL reads one: years before 1 AD as BC (toISOString's year 0000 is 1 BC, which PostgreSQL refuses). */
function timestamp(date: Date): string {
  const year = date.getUTCFullYear();
  if (year >= 1) return date.toISOString();
  const bc = new Date(date);
  bc.setUTCFullYear(1 - year);
  return `${bc.toISOString()} BC`;
}

const ESCAPED = /[\\\t\n\r]/g;
const NEEDS_ESCAPE = new RegExp(ESCAPED.source); // no g: test() then keeps no lastIndex

function text(value: string): string {
  return NEEDS_ESCAPE.test(value) ? value.replace(ESCAPED, (c) => ESCAPES[c]!) : value;
}

const ARRAY_QUOTED = /["\\]/g;

/** A list as an array literal ({"a",NULL,"b"}): every element quoted, so none is read as NULL or split. */
function arrayLiteral(list: readonly (string | number | null)[]): string {
  let literal = '{';
  for (let i = 0; i < list.length; i++) {
    const element = list[i]!;
    if (i > 0) literal += ',';
    literal += element === null ? 'NULL' : `"${String(element).replace(ARRAY_QUOTED, '\\$&')}"`;
  }
  return `${literal}}`;
}

export function copyText(rows: readonly (readonly CopyValue[])[]): string {
  // A load repeats its instants (an event's first report date on each of its rows, the load's
  // own time on each report): each is formatted once per call.
  const instants = new Map<number, string>();
  const field = (value: CopyValue): string => {
    if (value === null) return '\\N';
    if (typeof value === 'string') return text(value);
    if (value instanceof Date) {
      const ms = value.getTime();
      const known = instants.get(ms);
      if (known !== undefined) return known;
      const formatted = timestamp(value);
      instants.set(ms, formatted);
      return formatted;
    }
    if (typeof value === 'boolean') return value ? 't' : 'f';
    if (Array.isArray(value)) return text(arrayLiteral(value));
    return String(value); // Infinity, -Infinity and NaN as float8 spells them
  };
  let lines = '';
  for (const row of rows) {
    let line = row.length > 0 ? field(row[0]!) : '';
    for (let i = 1; i < row.length; i++) line += `\t${field(row[i]!)}`;
    lines += `${line}\n`;
  }
  return lines;
}

/** The statement that reads such rows, from `source` (STDIN, or the embedded database's '/dev/blob'). */
export const copyStatement = (table: string, columns: readonly string[], source: string) => `COPY ${table} (${columns.join(', ')}) FROM ${source}`;
