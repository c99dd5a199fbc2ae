// Audit batches are written here, on a worker thread with its own SQLite connection, so the
// index maintenance of the audit table never runs on the request thread.
// Plain JavaScript on purpose: worker threads do not go through the TypeScript loader.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const db = new Database(workerData.file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 10000');

const columns = workerData.columns;
const insert = db.prepare(`INSERT INTO audit_log (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
const touchKey = db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)');
const chaveIndex = columns.indexOf('chave_id');
const tsIndex = columns.indexOf('ts');
const sourceIndex = columns.indexOf('source');
const statusIndex = columns.indexOf('status');

const writeBatch = db.transaction((rows) => {
  const lastUse = new Map();
  for (const row of rows) {
    insert.run(row);
    if (row[chaveIndex] !== null && row[sourceIndex] === 'api' && row[statusIndex] < 400) lastUse.set(row[chaveIndex], row[tsIndex]);
  }
  // "Last used" rides on the audit batch instead of costing a write per request.
  for (const [id, ts] of lastUse) touchKey.run(ts, id, ts);
});

const done = new Int32Array(workerData.signal);

parentPort.on('message', (message) => {
  try {
    if (message.rows.length > 0) writeBatch(message.rows);
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message ? error.message : error), lost: message.rows.length });
  }
  // Committed (or failed and reported): the waiting requests may now answer.
  Atomics.store(done, 0, message.ack);
  Atomics.notify(done, 0);
  parentPort.postMessage({ committed: message.ack });
});
