// Runs PRAGMA quick_check on each database named in workerData.files, each on its own read-only
// connection, off the main thread: better-sqlite3 is synchronous, and a large tenant database takes
// seconds to check. Plain JavaScript, loaded as a file by server/integrity/quick-check.ts.
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';

for (const file of workerData.files) {
  const started = performance.now();
  let problems;
  try {
    const db = new SQLite(file, { readonly: true, fileMustExist: true });
    try {
      problems = db
        .pragma(`quick_check(${workerData.maxProblems})`)
        .map((row) => row.quick_check)
        .filter((line) => line !== 'ok');
    } finally {
      db.close();
    }
  } catch (error) {
    // Not even readable as a database (SQLITE_CORRUPT, SQLITE_NOTADB…): that is damage too.
    problems = [error instanceof Error ? error.message : String(error)];
  }
  parentPort.postMessage({ file, problems, ms: Math.round(performance.now() - started) });
}
