import Fastify, { type FastifyInstance } from 'fastify';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { GatewayConfig } from './config.ts';
import type { GatewayDb } from './db/database.ts';
import type { KeysService } from './keys/keys.service.ts';
import type { TenantsService } from './tenants/tenants.service.ts';
import type { BackendClient } from './backend/client.ts';
import envelopePlugin from './http/envelope-plugin.ts';
import { newRequestId } from './http/envelope.ts';
import { registerRawBodyParsers } from './http/body.ts';
import { envelopeSerializerCompiler } from './http/schemas.ts';
import corsPlugin from './http/cors-plugin.ts';
import authPlugin from './auth/auth-plugin.ts';
import pingRoutes from './routes/v1/ping.ts';
import configRoutes from './routes/v1/config.ts';

export interface AppDeps {
  db: GatewayDb;
  keys: KeysService;
  tenants: TenantsService;
  backend: BackendClient;
  /** Clock override for tests of the timestamp window. */
  now?: () => number;
}

/** Builds the gateway; never listens (main.ts and tests do). */
export async function buildApp(config: GatewayConfig, deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger:
      config.logLevel === 'silent'
        ? false
        : {
            level: config.logLevel,
            // Signing headers and cookies never reach the log.
            redact: ['req.headers["x-signature"]', 'req.headers.cookie', 'req.headers["x-internal-token"]'],
          },
    genReqId: newRequestId,
    exposeHeadRoutes: false,
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(envelopeSerializerCompiler);
  registerRawBodyParsers(app);

  await app.register(envelopePlugin, { release: config.release, passthroughPrefixes: ['/console'] });

  await app.register(
    async (v1) => {
      await v1.register(corsPlugin, {
        allowedOrigins: [config.portalOrigin, ...(config.appEnv === 'development' ? [config.devOrigin] : [])],
      });
      await v1.register(authPlugin, { keys: deps.keys, now: deps.now });
      await v1.register(pingRoutes);
      await v1.register(configRoutes, { backend: deps.backend, release: config.release });
    },
    { prefix: '/v1' },
  );

  return app;
}
