// The console's one table: columns declared once (header, alignment, cell), rows keyed, wrapped so
// a narrow screen scrolls it sideways rather than the page.
import type { ReactNode } from "react";

export interface Column<Row> {
  header: string;
  /** Numbers align right. */
  numeric?: boolean;
  /** A header read out to screen readers only (an actions column). */
  hiddenHeader?: boolean;
  cell(row: Row): ReactNode;
}

export function DataTable<Row>({
  columns,
  rows,
  rowKey,
  rowProps,
  live,
}: {
  columns: readonly Column<Row>[];
  rows: readonly Row[];
  rowKey(row: Row): string;
  /** Attributes of a row (data-* for tests and scripts). */
  rowProps?(row: Row): Record<`data-${string}`, string>;
  /** Rows change while the page is open: announce them politely. */
  live?: boolean;
}) {
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.header} scope="col" className={c.numeric ? "num" : undefined}>
                {c.hiddenHeader ? <span className="visually-hidden">{c.header}</span> : c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody aria-live={live ? "polite" : undefined}>
          {rows.map((row) => (
            <tr key={rowKey(row)} {...rowProps?.(row)}>
              {columns.map((c) => (
                <td key={c.header} className={c.numeric ? "num" : undefined}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
