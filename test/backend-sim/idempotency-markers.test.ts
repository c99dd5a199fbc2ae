import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyMarkersPath, MARKER_LOOKUP_MAX_TOKENS } from '../../contracts/backend/idempotency-markers.ts';
import { IDEMPOTENCY_TOKEN_HEADER } from '../../backend-sim/idempotency.ts';
import { createTenant, startHarness, type Harness } from './helpers.ts';

// The gateway's start-time consistency check asks backend-sim which of its acknowledged writes a clinic
// database still holds (server/integrity/idempotency-consistency.ts): the lookup answers the tokens that
// have a marker, only behind the internal credential, only for a valid list.
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await createTenant(h, 'demo');
  await createTenant(h, 'outra');
});
afterAll(() => h?.close());

const newToken = () => createHash('sha256').update(randomUUID()).digest('hex');

async function createWith(token: string, slug = 'demo'): Promise<number> {
  const res = await h.call(
    'POST',
    `/tenants/${slug}/pacientes`,
    { nome: `marcador ${randomUUID().slice(0, 8)}`, data_nascimento: '1985-02-03' },
    { [IDEMPOTENCY_TOKEN_HEADER]: token },
  );
  expect(res.status).toBe(201);
  return res.body.data.id;
}

describe('POST /tenants/:slug/idempotency-markers/lookup', () => {
  it('answers exactly the tokens whose write this clinic committed', async () => {
    const written = [newToken(), newToken()];
    for (const token of written) await createWith(token);
    const elsewhere = newToken();
    await createWith(elsewhere, 'outra');
    const never = newToken();
    const res = await h.call('POST', idempotencyMarkersPath('demo'), { tokens: [...written, elsewhere, never] });
    expect(res.status).toBe(200);
    expect([...res.body.data.known].sort()).toEqual([...written].sort());
  });

  it('refuses a caller without the internal credential, a malformed token and an oversized list', async () => {
    const unauthenticated = await h.call(
      'POST',
      idempotencyMarkersPath('demo'),
      { tokens: [newToken()] },
      { 'x-internal-token': 'wrong' },
    );
    expect(unauthenticated.status).toBe(401);
    expect((await h.call('POST', idempotencyMarkersPath('demo'), { tokens: ['not-a-token'] })).status).toBe(400);
    expect((await h.call('POST', idempotencyMarkersPath('demo'), { tokens: [] })).status).toBe(400);
    const tooMany = Array.from({ length: MARKER_LOOKUP_MAX_TOKENS + 1 }, newToken);
    expect((await h.call('POST', idempotencyMarkersPath('demo'), { tokens: tooMany })).status).toBe(400);
    expect((await h.call('POST', idempotencyMarkersPath('nao-existe'), { tokens: [newToken()] })).status).toBe(404);
  });
});
