import type { FastifyInstance, FastifyRequest } from 'fastify';
import { startTracing, type TraceSpan, type TracingSettings } from '../shared-node/otel.ts';
import { statementParents, statementSpans } from './db/sql-spans.ts';

/**
 * backend-sim's traces (issue 31 § 2), registered only when tracing is on: a server span per request continuing the
 * gateway's `traceparent` (a new trace for a call without one), named `METHOD /route`, and the SQL spans of what its
 * handler runs (backend-sim/db/sql-spans.ts). The provider is flushed and shut down when the app closes.
 */
export async function registerTracing(app: FastifyInstance, settings: TracingSettings): Promise<void> {
  const tracing = await startTracing(settings);
  const spans = new WeakMap<FastifyRequest, TraceSpan>();
  statementSpans.on = true;
  app.addHook('onRequest', (req, _reply, done) => {
    const route = req.routeOptions.url;
    const query = req.url.indexOf('?');
    spans.set(
      req,
      tracing.startServer(
        route ? `${req.method} ${route}` : req.method,
        { traceparent: req.headers.traceparent, tracestate: req.headers.tracestate },
        {
          'http.request.method': req.method,
          'url.path': query < 0 ? req.url : req.url.slice(0, query),
          ...(route ? { 'http.route': route } : {}),
        },
      ),
    );
    done();
  });
  // The handler (and the hooks after this one) run inside the request's async context: its statements find its span.
  app.addHook('preHandler', (req, _reply, done) => {
    const span = spans.get(req);
    if (span) statementParents.run(span, () => done());
    else done();
  });
  app.addHook('onResponse', (req, reply, done) => {
    const span = spans.get(req);
    if (span) {
      spans.delete(req);
      span.end({ status: reply.statusCode });
    }
    done();
  });
  app.addHook('onRequestAbort', (req, done) => {
    const span = spans.get(req);
    if (span) {
      spans.delete(req);
      span.end({ error: { code: 'CLIENT_ABORTED' } });
    }
    done();
  });
  app.addHook('onClose', async () => {
    await tracing.shutdown();
  });
}
