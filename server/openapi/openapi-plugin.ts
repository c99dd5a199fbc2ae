import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import swagger, { type SwaggerTransformObject } from '@fastify/swagger';
import { buildOpenApiDocument } from './document.ts';
import { registerDocsUi, type DocsUiOptions } from './docs-ui.ts';

export interface OpenApiPluginOptions extends DocsUiOptions {
  release: string;
}

/**
 * OpenAPI 3.1 generated from the same zod schemas the routes validate with, served unsigned at
 * /openapi.json and /openapi.yaml and rendered at /docs with assets from npm (no CDN).
 * Registered before the /v1 routes so @fastify/swagger sees them all.
 */
export default fp<OpenApiPluginOptions>(
  async function openApiPlugin(app: FastifyInstance, options) {
    await app.register(swagger, {
      openapi: { openapi: '3.1.0', info: { title: 'Clinic Exams Gateway API', version: options.release } },
      // The document is built from the registered /v1 operations as a whole (document.ts), not route by route:
      // every route is hidden from @fastify/swagger's own walk, which only serves and caches the result.
      transform: ({ url }) => ({ schema: { hide: true }, url }),
      transformObject: (() =>
        buildOpenApiDocument({ release: options.release, operations: app.operations })) as SwaggerTransformObject,
    });
    await registerDocsUi(app, { appEnv: options.appEnv });
    app.get('/openapi.json', { schema: { hide: true } }, async (_request, reply) =>
      reply.type('application/json; charset=utf-8').send(JSON.stringify(app.swagger())),
    );
    app.get('/openapi.yaml', { schema: { hide: true } }, async (_request, reply) =>
      reply.type('application/yaml; charset=utf-8').send(app.swagger({ yaml: true })),
    );
  },
  { name: 'openapi', dependencies: ['envelope'] },
);
