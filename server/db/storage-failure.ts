/**
 * Failures that mean the gateway's database cannot take the read or write now, as opposed to a bug in a
 * statement: the request is refused with 503, not 500.
 * - SQLite result codes: disk full, I/O error, damage, a lock held too long.
 * - PostgreSQL SQLSTATE classes 08 (connection), 53 (insufficient resources: disk full, out of memory, too many
 *   connections), 57P (operator intervention: the server shutting down or restarting), 58 (system error), and
 *   40001/40P01 (serialization failure, deadlock), 55000 (the database not accepting connections); and a pool that
 *   cannot reach the server at all.
 */
export function isStorageFailure(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (/^SQLITE_(FULL|IOERR|CORRUPT|NOTADB|READONLY|CANTOPEN|NOMEM|BUSY|LOCKED|PROTOCOL)/.test(code)) return true;
    if (/^(08|53|58)[0-9A-Z]{3}$/.test(code) || /^57P0[1-4]$/.test(code) || code === '40001' || code === '40P01')
      return true;
    // 55000 object_not_in_prerequisite_state: "database … is not currently accepting connections".
    if (code === '55000') return true;
    if (code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'ETIMEDOUT' || code === 'EPIPE') return true;
  }
  // node-postgres' own failures, without a code.
  return (
    typeof message === 'string' &&
    /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/.test(
      message,
    )
  );
}
