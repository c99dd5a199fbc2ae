import type { CSSProperties, HTMLAttributes, Key, ReactNode } from 'react';
import { Loading } from './ui.tsx';

/** A column heading: its words, or the words with a tooltip, a class or a style. `false` leaves a column out. */
export type Column = string | false | { label: ReactNode; title?: string; className?: string; style?: CSSProperties };

/**
 * The console's table: headings, a last column for the row's buttons (`actions`: headed "Actions" for a
 * screen reader only, as wide as its buttons), and a box that scrolls a table too wide for it instead of
 * the page. The rows (`<tr>`) are the children.
 */
function DataTable({
  columns,
  actions,
  testId,
  className,
  children,
}: {
  columns: Column[];
  actions?: boolean;
  testId?: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className="table-wrap">
      <table className={className ? `data ${className}` : 'data'} data-testid={testId}>
        <thead>
          <tr>
            {columns.map((column, i) =>
              column === false ? null : typeof column === 'string' ? (
                // biome-ignore lint/suspicious/noArrayIndexKey: the columns are fixed; the position is the column
                <th key={i}>{column}</th>
              ) : (
                // biome-ignore lint/suspicious/noArrayIndexKey: as above
                <th key={i} title={column.title} className={column.className} style={column.style}>
                  {column.label}
                </th>
              ),
            )}
            {actions && (
              <th className="col-actions">
                <span className="sr-only">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** A row's own attributes: a class, a click, `aria-selected`, the `data-*` a test finds it by. */
export type RowAttributes = HTMLAttributes<HTMLTableRowElement> & {
  [data: `data-${string}`]: string | number | undefined;
};

/**
 * A list shown as a table, in its three states: loading, nothing to show (`empty`), or its rows. Each row
 * is a `<tr>` of `cells`; a list whose rows offer buttons gives `actions`, which adds the actions column and
 * each row's last cell (empty for a row that offers nothing). `footer` follows the table when there are rows
 * (a pager).
 */
export function ListTable<T>({
  pending = false,
  rows,
  empty,
  columns,
  testId,
  className,
  rowKey,
  row,
  cells,
  actions,
  footer,
}: {
  pending?: boolean;
  rows: T[] | undefined;
  empty: ReactNode;
  columns: Column[];
  testId?: string;
  className?: string;
  rowKey: (item: T) => Key;
  row?: (item: T) => RowAttributes;
  cells: (item: T) => ReactNode;
  actions?: (item: T) => ReactNode;
  footer?: ReactNode;
}) {
  if (pending) return <Loading />;
  if (!rows?.length) return <>{empty}</>;
  return (
    <>
      <DataTable columns={columns} actions={actions !== undefined} testId={testId} className={className}>
        {rows.map((item) => (
          <tr key={rowKey(item)} {...row?.(item)}>
            {cells(item)}
            {/* Its buttons, right-aligned: none for a viewer, or for a row that offers nothing. */}
            {actions && <td className="actions">{actions(item)}</td>}
          </tr>
        ))}
      </DataTable>
      {footer}
    </>
  );
}
