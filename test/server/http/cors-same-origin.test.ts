import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

/**
 * Issue 21 § 2: in development mode the /docs page signs "Try it out" itself, and a browser sends `Origin` on its
 * writes; the gateway's own origin is then accepted like the development origin. Production keeps the spec's rule
 * (the portal only), and a page of another origin stays refused in both modes.
 */
for (const mode of ['development', 'production'] as const) {
  describe(`${mode} mode`, () => {
    let stack: TestStack;
    let own: string;
    beforeAll(async () => {
      stack = await startTestStack({ APP_ENV: mode });
      own = new URL(stack.gatewayUrl).origin;
    });
    afterAll(async () => stack?.stop());

    test(`a signed browser write from the gateway's own origin (/docs) is ${mode === 'development' ? 'accepted' : 'refused 403'}`, async () => {
      const res = await stack.call({
        method: 'POST',
        path: '/v1/ping',
        body: { teste: 'docs' },
        headers: { origin: own },
      });
      if (mode === 'development') {
        expect(res.status).toBe(200);
        expect(res.headers['access-control-allow-origin']).toBe(own);
      } else {
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe('OPERATION_NOT_ALLOWED');
      }
    });

    test('the same host on another port or scheme is another origin, refused', async () => {
      const url = new URL(stack.gatewayUrl);
      for (const origin of [`http://${url.hostname}:1`, `https://${url.host}`]) {
        const res = await stack.call({ method: 'POST', path: '/v1/ping', body: {}, headers: { origin } });
        expect(res.status, origin).toBe(403);
      }
    });
  });
}
