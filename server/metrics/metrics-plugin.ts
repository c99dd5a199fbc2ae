import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { GatewayDb } from '../db/database.ts';
import { syncHook } from '../http/sync-hooks.ts';
import { OperatorTokenStore } from '../operators/operator-tokens.ts';
import { tokenOperatorRole } from '../operators/operators.service.ts';
import { authenticateOperatorToken } from '../admin/operator-token-auth.ts';
import { CORS_PREFLIGHT_OPERATION, UNKNOWN_OPERATION, type GatewayMetrics } from './gateway-metrics.ts';
import '../http/request-context.ts';
import '../admin/context.ts';

export const METRICS_PATH = '/metrics';
/** A scrape is a GET: anything it carries past this is refused (413) before it is read. */
const METRICS_BODY_LIMIT = 1024;

declare module 'fastify' {
  interface FastifyInstance {
    /** This gateway's Prometheus metrics (server/metrics/gateway-metrics.ts); others register theirs on its registry. */
    metrics: GatewayMetrics;
  }
}

export interface MetricsPluginOptions {
  metrics: GatewayMetrics;
  /** The gateway's database: the operator tokens a scrape is authenticated by. */
  db: GatewayDb;
}

/** /v1 and everything below it (the API surface a path no route matched is counted on too). */
const isV1 = (url: string | undefined): boolean =>
  url?.startsWith('/v1') === true && (url.length === 3 || url[3] === '/' || url[3] === '?');

/**
 * Counts every answer of the API surface in one root onResponse hook (no hook per route, no label set built per
 * request: the series are cached per operation and status), and serves `GET /metrics` in Prometheus text format to
 * an operator token (`Authorization: Bearer`, any valid, unexpired token of an enabled account: its clinics do not
 * restrict a scrape). docs/observability.md § Metrics; docs/decisions.md § Issue 31 M.
 */
export default fp<MetricsPluginOptions>(
  async function metricsPlugin(app: FastifyInstance, { metrics, db }) {
    app.decorate('metrics', metrics);
    const unknown = metrics.named(UNKNOWN_OPERATION);
    const preflight = metrics.named(CORS_PREFLIGHT_OPERATION);

    app.addHook(
      'onResponse',
      syncHook((request, reply) => {
        const config = request.routeOptions.config;
        const operation = config?.operation;
        const series = operation
          ? metrics.seriesOf(operation)
          : config?.corsPreflight
            ? preflight
            : request.is404 || isV1(request.raw.url)
              ? unknown
              : null;
        if (series === null) return;
        const replay = config?.idempotent === true && reply.getHeader('idempotency-replay') === 'true';
        metrics.answered(series, reply.statusCode, reply.elapsedTime / 1000, request.errorCode, replay);
      }),
    );

    const tokens = new OperatorTokenStore(db);
    app.get(
      METRICS_PATH,
      {
        bodyLimit: METRICS_BODY_LIMIT,
        // Before the body is read: a refused scrape costs a header check and, for a well-formed token, one lookup.
        onRequest: async (request: FastifyRequest) => {
          await authenticateOperatorToken(request, tokens);
          // A token acts as its operator: a disabled account's tokens are refused, as on the automation API.
          await tokenOperatorRole(db, request.adminAuditOperatorId);
        },
      },
      async (_request, reply) => {
        const text = await metrics.scrape();
        return reply.header('cache-control', 'no-store').type(metrics.contentType).send(text);
      },
    );
  },
  { name: 'metrics', dependencies: ['envelope'] },
);
