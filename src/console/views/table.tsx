// A table of rows, one column definition per heading. On a wide screen a plain table (that
// scrolls inside its box if it must); on a phone each row becomes a card of "label: value"
// lines (console.css), so nothing is squeezed to a letter per line or pushed off-screen. Each
// cell carries its column's label for that; explicit roles keep the table's meaning for screen
// readers once the CSS changes how the cells are laid out. A cell's content sits in one element,
// so that on a card it is one piece beside its label however many parts it has.
import type { ComponentChildren } from 'preact';

export interface Column<Row> {
  label: string;
  /** Right-aligned, tabular figures. */
  numeric?: boolean;
  /** A heading read only by screen readers (a column of buttons). */
  screenReaderOnly?: boolean;
  cell: (row: Row) => ComponentChildren;
}

export function Table<Row>({
  columns,
  rows,
  rowAttributes = () => ({}),
}: {
  columns: readonly Column<Row>[];
  rows: readonly Row[];
  /** Attributes of each row's <tr>: its test hooks. */
  rowAttributes?: (row: Row) => Record<string, string>;
}) {
  return (
    <div class="table-wrap">
      <table class="stack" role="table">
        <thead role="rowgroup">
          <tr role="row">
            {columns.map(({ label, numeric = false, screenReaderOnly = false }) => (
              <th scope="col" role="columnheader" class={numeric ? 'num' : undefined}>
                {screenReaderOnly ? <span class="sr-only">{label}</span> : label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody role="rowgroup">
          {rows.map((row) => (
            <tr role="row" {...rowAttributes(row)}>
              {columns.map(({ label, numeric = false, screenReaderOnly = false, cell }) => (
                <td role="cell" class={numeric ? 'num' : undefined} data-label={screenReaderOnly ? undefined : label}>
                  <div class="value">{cell(row)}</div>
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
