import type { CSSProperties, ReactNode } from 'react';
import { Loading } from './ui.tsx';

/** A column heading: its words, or the words with a tooltip, a class or a style. `false` leaves a column out. */
export type Column = string | false | { label: ReactNode; title?: string; className?: string; style?: CSSProperties };

/**
 * The console's table: headings, a last column for the row's buttons (`actions`: headed "Actions" for a
 * screen reader only, as wide as its buttons), and a box that scrolls a table too wide for it instead of
 * the page. The rows (`<tr>`) are the children.
 */
export function DataTable({
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
                <th key={i}>{column}</th>
              ) : (
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

/** The last cell of a row: its buttons, right-aligned (none for a viewer, or for a row that offers nothing). */
export function ActionsCell({ children }: { children?: ReactNode }) {
  return <td className="actions">{children}</td>;
}

/** A list's three states: loading, nothing to show (`empty`), or its rows. */
export function ListState<T>({
  pending,
  rows,
  empty,
  children,
}: {
  pending: boolean;
  rows: T[] | undefined;
  empty: ReactNode;
  children: (rows: T[]) => ReactNode;
}) {
  if (pending) return <Loading />;
  if (!rows?.length) return <>{empty}</>;
  return <>{children(rows)}</>;
}
