/**
 * SQLite result codes that mean the database file cannot take the write (disk full, I/O error, damage,
 * a lock held too long), as opposed to a bug in a statement: the request is refused with 503, not 500.
 */
export function isStorageFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^SQLITE_(FULL|IOERR|CORRUPT|NOTADB|READONLY|CANTOPEN|NOMEM|BUSY|LOCKED|PROTOCOL)/.test(code);
}
