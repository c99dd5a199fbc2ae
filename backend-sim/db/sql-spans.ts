import { AsyncLocalStorage } from 'node:async_hooks';
import type { TraceSpan } from '../../shared-node/otel.ts';

/**
 * SQL spans (issue 31 § 2): each statement a traced request runs gets a span under that request's server span, with
 * the statement's text (Kysely's placeholders: the bound values are never in it, nor in the span). The request's
 * span is found through this async context, entered by backend-sim/tracing.ts before the route's handler.
 */
export const statementParents = new AsyncLocalStorage<TraceSpan>();

/** `on` once a backend-sim of this process traces: until then a statement costs one boolean test, no closure. */
export const statementSpans = { on: false };

/** Longer statement texts are cut (the list queries with their optional filters stay well within it). */
const MAX_TEXT = 2048;

/** Runs `statement` (synchronous: better-sqlite3) inside a span when its request is traced (`statementSpans.on`). */
export function traceStatement<T>(sql: string, statement: () => T): T {
  const parent = statementParents.getStore();
  if (!parent) return statement();
  const operation = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? 'SQL';
  const span = parent.child(operation, {
    attributes: {
      'db.system.name': 'sqlite',
      'db.operation.name': operation,
      'db.query.text': sql.length <= MAX_TEXT ? sql : sql.slice(0, MAX_TEXT),
    },
  });
  try {
    const result = statement();
    span.end();
    return result;
  } catch (error) {
    span.end({ error });
    throw error;
  }
}
