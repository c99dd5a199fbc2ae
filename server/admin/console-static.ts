import { existsSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

/** Serves the built console (console/dist) at /console/, and sends `/` there. */
export async function registerConsoleStatic(app: FastifyInstance, consoleDir: string): Promise<void> {
  app.get('/', (_request, reply) => reply.redirect('/console/', 302));
  app.get('/console', (_request, reply) => reply.redirect('/console/', 302));
  if (!existsSync(path.join(consoleDir, 'index.html'))) {
    app.get('/console/', (_request, reply) =>
      reply.status(503).type('text/plain; charset=utf-8').send('Console not built: run `npm run build:console`.\n'),
    );
    return;
  }
  await app.register(fastifyStatic, {
    root: consoleDir,
    prefix: '/console/',
    index: ['index.html'],
    wildcard: true,
    setHeaders(res, filePath) {
      res.setHeader('content-security-policy', CONSOLE_CSP);
      res.setHeader('x-frame-options', 'DENY');
      res.setHeader('referrer-policy', 'no-referrer');
      // Hashed asset names change with their content; index.html must always be fresh.
      res.setHeader(
        'cache-control',
        filePath.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
    },
  });
}
