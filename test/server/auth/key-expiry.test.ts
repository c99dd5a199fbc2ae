import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { journalEntry } from '../../helpers/journal.ts';
import { KeyServiceError } from '../../../server/keys/keys.service.ts';

/**
 * Issue 31 § 4: keys that expire. A key past its expiry (appliance clock) is refused with 401 AUTH_KEY_REVOKED,
 * the message saying it expired and when, and the refusal is journaled under the key. Real signed HTTP requests;
 * runs on SQLite and PostgreSQL (the `postgres` project takes test/server/auth/**).
 */

const DAY_MS = 86_400_000;
let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => stack?.stop());

/** A signed ping at appliance time (the clock may have been moved ahead). */
const ping = (creds: Awaited<ReturnType<TestStack['newKey']>>) =>
  stack.call({ path: '/v1/ping', timestamp: Math.floor(stack.clock.now() / 1000) }, creds);

async function keyExpiringIn(days: number) {
  const issued = await stack.keys.create({
    tenantSlug: stack.tenantSlug,
    scopes: ['pacientes:read'],
    expiresInDays: days,
  });
  return { apiKey: issued.api_key, apiSecret: issued.api_secret, chaveId: issued.chave_id };
}

describe('expiry is set by the appliance clock and shown on the key', () => {
  test('expires_in_days: appliance now + n days; expires_at: that instant; none: null', async () => {
    const before = stack.clock.now();
    const inDays = await keyExpiringIn(3);
    const view = await stack.keys.get(inDays.chaveId);
    const at = Date.parse(view.expires_at!);
    expect(at).toBeGreaterThanOrEqual(before + 3 * DAY_MS);
    expect(at).toBeLessThanOrEqual(stack.clock.now() + 3 * DAY_MS);
    expect(view.expired).toBe(false);

    const exact = new Date(stack.clock.now() + 10 * DAY_MS).toISOString();
    const onDate = await stack.keys.create({
      tenantSlug: stack.tenantSlug,
      scopes: ['pacientes:read'],
      expiresAt: exact,
    });
    expect((await stack.keys.get(onDate.chave_id)).expires_at).toBe(exact);
    // Another zone is the same instant, stored in UTC.
    const zoned = await stack.keys.create({
      tenantSlug: stack.tenantSlug,
      scopes: ['pacientes:read'],
      expiresAt: '2030-01-31T18:00:00-03:00',
    });
    expect((await stack.keys.get(zoned.chave_id)).expires_at).toBe('2030-01-31T21:00:00.000Z');

    expect((await stack.keys.get(stack.creds.chaveId)).expires_at).toBeNull();
  });

  test('refused: in the past, more than 5 years ahead, not a date-time, both forms, days out of range', async () => {
    const now = stack.clock.now();
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ expiresAt: new Date(now - 1000).toISOString() }, 'expires_at', /not in the future/],
      [{ expiresAt: new Date(now + 1826 * DAY_MS).toISOString() }, 'expires_at', /5 years/],
      [{ expiresAt: '2030-01-31' }, 'expires_at', /ISO 8601/],
      [{ expiresAt: '2030-01-31T18:00:00' }, 'expires_at', /with a zone/],
      [{ expiresAt: new Date(now + DAY_MS).toISOString(), expiresInDays: 2 }, 'expires_in_days', /not both/],
      [{ expiresInDays: 0 }, 'expires_in_days', /1 to 1825/],
      [{ expiresInDays: 1826 }, 'expires_in_days', /1 to 1825/],
    ];
    for (const [input, field, message] of cases) {
      const error = await stack.keys
        .create({ tenantSlug: stack.tenantSlug, scopes: ['pacientes:read'], ...input })
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(error, JSON.stringify(input)).toBeInstanceOf(KeyServiceError);
      expect((error as KeyServiceError).code).toBe('invalid_input');
      expect((error as KeyServiceError).field).toBe(field);
      expect((error as Error).message).toMatch(message);
    }
  });
});

describe('an expired key is refused', () => {
  test('a key whose expiry passed: 401 AUTH_KEY_REVOKED "Chave de API expirada em <ISO>.", journaled under it', async () => {
    const key = await keyExpiringIn(1);
    // Its expiry set in the past behind the service's back (plain SQL, as another instance or an operator could).
    const past = new Date(stack.clock.now() - 60_000).toISOString();
    await stack.database.db.updateTable('api_keys').set({ expires_at: past }).where('id', '=', key.chaveId).execute();
    stack.keys.invalidate();
    const res = await ping(key);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('AUTH_KEY_REVOKED');
    expect(res.body.error.message).toBe(`Chave de API expirada em ${past}.`);
    expect(res.body.error.details).toMatchObject({ expires_at: past });
    const row = await journalEntry(stack, res.body.meta.request_id);
    expect(row).toMatchObject({ chave_id: key.chaveId, error_code: 'AUTH_KEY_REVOKED', status: 401, verified: 0 });
    expect(row?.error_message).toContain('expirada');
    const view = await stack.keys.get(key.chaveId);
    expect(view).toMatchObject({ expired: true, status: 'active' });
  });

  test('rotation keeps the expiry; changing it and clearing it (null) take effect at once', async () => {
    const key = await keyExpiringIn(30);
    const expiresAt = (await stack.keys.get(key.chaveId)).expires_at;
    const rotated = await stack.keys.rotate(key.chaveId);
    expect((await stack.keys.get(key.chaveId)).expires_at).toBe(expiresAt);
    const creds = { apiKey: rotated.api_key, apiSecret: rotated.api_secret, chaveId: key.chaveId };
    expect((await ping(creds)).status).toBe(200);

    const later = new Date(stack.clock.now() + 90 * DAY_MS).toISOString();
    expect((await stack.keys.update(key.chaveId, { expiresAt: later })).expires_at).toBe(later);
    expect((await stack.keys.update(key.chaveId, { expiresAt: null })).expires_at).toBeNull();
    expect((await stack.keys.update(key.chaveId, { expiresInDays: 2 })).expires_at).not.toBeNull();
    expect((await ping(creds)).status).toBe(200);
  });

  // Last in the file: it moves this stack's clock ahead.
  test('a key with a future expiry works, and once the appliance clock passes it (even cached) it is refused', async () => {
    const key = await keyExpiringIn(1);
    const never = await stack.newKey({ scopes: ['pacientes:read'] });
    expect((await ping(key)).status).toBe(200);
    // The key is in the cache now: expiry is judged per request against the clock, not when the key was loaded.
    expect((await ping(key)).status).toBe(200);
    await stack.clock.advance(DAY_MS + 60_000);
    const res = await ping(key);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('AUTH_KEY_REVOKED');
    expect(res.body.error.message).toMatch(/^Chave de API expirada em \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\.$/);
    const row = await journalEntry(stack, res.body.meta.request_id);
    expect(row).toMatchObject({ chave_id: key.chaveId, error_code: 'AUTH_KEY_REVOKED' });
    // A key without expiry is not affected by the move.
    expect((await ping(never)).status).toBe(200);
    // The key's view says so too, by the same clock.
    expect((await stack.keys.get(key.chaveId)).expired).toBe(true);
  });
});
