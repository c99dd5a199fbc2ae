import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Backend, BackendCall, BackendResult, BackendTransfer } from '../backend/client.ts';
import { operationId } from '../openapi/document.ts';
import type { Operation } from '../routes/operation.ts';
import type { RelayedJson } from '../http/schemas.ts';
import { incomingTraceId } from '../../shared-node/traceparent.ts';
import { startTracing, type TraceSpan, type Tracing, type TracingSettings } from '../../shared-node/otel.ts';
import type { StepTracer } from './steps.ts';
import '../http/request-context.ts';

/** Requests whose span is not worth its export: the console's files and the API reference's assets. */
const UNTRACED_PREFIXES = ['/console', '/docs'];

const NO_STEP = (): void => undefined;

/**
 * The gateway's traces (issue 31 § 2), made only when tracing is on (buildApp): a server span per request named by
 * its operation id (`getPacientesById`; `METHOD /route` outside /v1), continuing a valid incoming `traceparent`;
 * under it the steps the plugins report (StepTracer) and a client span per backend call, whose `traceparent`
 * backend-sim continues. Attributes carry no personal data: the path without its query (the journal keeps the
 * same path), the route, the status, the error code, the clinic's slug and the key's id.
 */
export class GatewayTracing implements StepTracer {
  private readonly spans = new WeakMap<FastifyRequest, TraceSpan>();
  private readonly names = new WeakMap<Operation, string>();

  private constructor(private readonly tracing: Tracing) {}

  static async start(settings: TracingSettings): Promise<GatewayTracing> {
    return new GatewayTracing(await startTracing(settings));
  }

  /** The request span's hooks, at the root (first, so the span covers every other hook); the provider flushed on close. */
  register(app: FastifyInstance): void {
    app.addHook('onRequest', (request, _reply, done) => {
      const url = request.raw.url ?? request.url;
      if (!UNTRACED_PREFIXES.some((prefix) => url.startsWith(prefix))) this.startRequest(request, url);
      done();
    });
    app.addHook('onResponse', (request, reply, done) => {
      this.endRequest(request, reply);
      done();
    });
    app.addHook('onRequestAbort', (request, done) => {
      const span = this.spans.get(request);
      if (span) {
        this.spans.delete(request);
        span.end({ error: { code: 'CLIENT_ABORTED' } });
      }
      done();
    });
    app.addHook('onClose', async () => {
      await this.tracing.shutdown();
    });
  }

  step(request: FastifyRequest, name: string): (error?: unknown) => void {
    const parent = this.spans.get(request);
    if (!parent) return NO_STEP;
    const span = parent.child(name);
    return (error) => span.end(error === undefined || error === null ? {} : { error });
  }

  /** What the journal entry stores: the request span's trace id, else a valid incoming `traceparent`'s. */
  traceIdOf(request: FastifyRequest): string | null {
    return this.spans.get(request)?.traceId ?? incomingTraceId(request.headers.traceparent);
  }

  /** `backend` with a client span around each call of `request`, its `traceparent` sent to backend-sim. */
  backendFor(request: FastifyRequest, backend: Backend): Backend {
    const parent = this.spans.get(request);
    return parent ? new TracedBackend(backend, parent) : backend;
  }

  private startRequest(request: FastifyRequest, url: string): void {
    const route = request.routeOptions.url;
    const query = url.indexOf('?');
    const span = this.tracing.startServer(
      this.spanName(request),
      { traceparent: request.headers.traceparent, tracestate: request.headers.tracestate },
      {
        'http.request.method': request.method,
        'url.path': query < 0 ? url : url.slice(0, query),
        'url.scheme': 'http',
        ...(route ? { 'http.route': route } : {}),
        'gateway.request_id': request.id,
      },
    );
    this.spans.set(request, span);
  }

  private endRequest(request: FastifyRequest, reply: FastifyReply): void {
    const span = this.spans.get(request);
    if (!span) return;
    this.spans.delete(request);
    const auth = request.auth;
    if (auth) {
      span.setAttribute('clinic.tenant_slug', auth.tenantSlug);
      span.setAttribute('gateway.chave_id', auth.chaveId);
    }
    if (request.errorCode) span.setAttribute('gateway.error_code', request.errorCode);
    span.end({ status: reply.statusCode });
  }

  private spanName(request: FastifyRequest): string {
    const operation = request.routeOptions.config?.operation;
    if (operation) {
      let name = this.names.get(operation);
      if (name === undefined) {
        name = operationId(operation.method, `/v1${operation.url}`);
        this.names.set(operation, name);
      }
      return name;
    }
    const route = request.routeOptions.url;
    return route ? `${request.method} ${route}` : request.method;
  }
}

/** A client span per call (`backend GET`), its context sent along as `traceparent`. */
class TracedBackend implements Backend {
  constructor(
    private readonly inner: Backend,
    private readonly parent: TraceSpan,
  ) {}

  call<S extends z.ZodType>(call: BackendCall, schema: S): Promise<BackendResult<z.output<S>>> {
    return this.traced(call, (traced) => this.inner.call(traced, schema));
  }

  relay<S extends z.ZodType>(call: BackendCall, schema: S): Promise<BackendResult<z.output<S> | RelayedJson>> {
    return this.traced(call, (traced) => this.inner.relay(traced, schema));
  }

  transfer(call: BackendTransfer): ReturnType<Backend['transfer']> {
    return this.inner.transfer(call);
  }

  private async traced<R extends { status: number }>(
    call: BackendCall,
    run: (call: BackendCall) => Promise<R>,
  ): Promise<R> {
    const span = this.parent.child(`backend ${call.method}`, {
      kind: 'client',
      attributes: { 'http.request.method': call.method, 'url.path': call.path },
    });
    const { traceparent } = span.headers();
    const context = call.context ? { ...call.context, traceparent } : undefined;
    try {
      const result = await run(context ? { ...call, context } : call);
      span.end({ status: result.status });
      return result;
    } catch (error) {
      span.end({ error });
      throw error;
    }
  }
}
