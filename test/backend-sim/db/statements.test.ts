import SQLite from 'better-sqlite3';
import { CompiledQuery } from 'kysely';
import { describe, expect, it } from 'vitest';
import { executeCompiled, prepared } from '../../../backend-sim/db/statements.ts';

describe('per-connection statement cache', () => {
  it('prepares a SQL text once per connection and keeps the recently used ones', () => {
    const a = new SQLite(':memory:');
    const b = new SQLite(':memory:');
    try {
      const first = prepared(a, 'SELECT 1 AS x');
      expect(prepared(a, 'SELECT 1 AS x')).toBe(first);
      expect(prepared(b, 'SELECT 1 AS x')).not.toBe(first);
      // Hundreds of other texts push out the least recently used, not one in use all along.
      for (let i = 0; i < 400; i++) {
        prepared(a, `SELECT ${i} AS x`);
        expect(prepared(a, 'SELECT 1 AS x')).toBe(first);
      }
      const evicted = prepared(a, 'SELECT 5 AS x');
      expect(prepared(a, 'SELECT 5 AS x')).toBe(evicted);
    } finally {
      a.close();
      b.close();
    }
  });

  it('runs compiled queries as Kysely does: rows for readers, changes and insert id for writes', () => {
    const db = new SQLite(':memory:');
    try {
      executeCompiled(db, CompiledQuery.raw('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)'));
      const insert = executeCompiled(db, CompiledQuery.raw('INSERT INTO t (v) VALUES (?)', ['a']));
      expect(insert).toEqual({ numAffectedRows: 1n, insertId: 1n, rows: [] });
      executeCompiled(db, CompiledQuery.raw('INSERT INTO t (v) VALUES (?)', ['b']));
      expect(executeCompiled(db, CompiledQuery.raw('SELECT v FROM t WHERE id > ? ORDER BY id', [0])).rows).toEqual([
        { v: 'a' },
        { v: 'b' },
      ]);
      expect(executeCompiled(db, CompiledQuery.raw('UPDATE t SET v = ? RETURNING id', ['c'])).rows).toEqual([
        { id: 1 },
        { id: 2 },
      ]);
    } finally {
      db.close();
    }
  });
});
