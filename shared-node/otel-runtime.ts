import {
  type Context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { SpanAttributes, TraceSpan, Tracing, TracingSettings } from './otel-types.ts';

// Loaded only by startTracing's dynamic import (shared-node/otel.ts): this is the one file that imports OpenTelemetry.
(globalThis as Record<symbol, unknown>)[Symbol.for('clinic-gateway.otel-runtime.loaded')] = true;

const propagator = new W3CTraceContextPropagator();

/**
 * The provider is the service's own, never registered as the global one: a test process builds many gateways and
 * backend-sims, each exporting where its own settings say. Spans are parented explicitly (no context manager):
 * each request keeps its span, and what it calls is started under it.
 */
export async function openTracing(settings: TracingSettings): Promise<Tracing> {
  const exporter = await exporterFor(settings);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ ...settings.resource, 'service.name': settings.serviceName }),
    // Batched off the request path (OTEL_BSP_* tune it); the sampler follows OTEL_TRACES_SAMPLER (parent-based by default).
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('clinic-exams-gateway');
  return {
    settings,
    startServer(name, incoming, attributes) {
      const parent = propagator.extract(ROOT_CONTEXT, incoming, defaultTextMapGetter);
      const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
      return new SdkSpan(tracer, span, trace.setSpan(parent, span), 'server');
    },
    shutdown: () => provider.shutdown(),
  };
}

/** The OTLP/HTTP exporter of the protocol: only that one is loaded. */
async function exporterFor(settings: TracingSettings): Promise<SpanExporter> {
  if (settings.protocol === 'http/json') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter({ url: settings.url });
  }
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter({ url: settings.url });
}

const KINDS = { server: SpanKind.SERVER, client: SpanKind.CLIENT, internal: SpanKind.INTERNAL } as const;

class SdkSpan implements TraceSpan {
  constructor(
    private readonly tracer: Tracer,
    private readonly span: Span,
    private readonly context: Context,
    private readonly kind: keyof typeof KINDS,
  ) {}

  get traceId(): string {
    return this.span.spanContext().traceId;
  }

  child(name: string, options: { kind?: 'internal' | 'client'; attributes?: SpanAttributes } = {}): TraceSpan {
    const kind = options.kind ?? 'internal';
    const span = this.tracer.startSpan(name, { kind: KINDS[kind], attributes: options.attributes }, this.context);
    return new SdkSpan(this.tracer, span, trace.setSpan(this.context, span), kind);
  }

  headers(): { traceparent: string; tracestate?: string } {
    const carrier: { traceparent: string; tracestate?: string } = { traceparent: '' };
    propagator.inject(this.context, carrier, defaultTextMapSetter);
    return carrier;
  }

  setAttribute(name: string, value: string | number | boolean): void {
    this.span.setAttribute(name, value);
  }

  end(outcome: { error?: unknown; status?: number } = {}): void {
    const { error, status } = outcome;
    if (status !== undefined) this.span.setAttribute('http.response.status_code', status);
    // An error's type, never its message: a message may quote what a caller sent (the journal's redaction rules).
    if (error !== undefined && error !== null) {
      this.span.setAttribute('error.type', errorType(error));
      this.span.setStatus({ code: SpanStatusCode.ERROR });
    } else if (status !== undefined && status >= (this.kind === 'server' ? 500 : 400)) {
      this.span.setAttribute('error.type', String(status));
      this.span.setStatus({ code: SpanStatusCode.ERROR });
    }
    this.span.end();
  }
}

/** The spec's error code of an ApiError (or a backend error), else the error's class name. */
function errorType(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,63}$/.test(code)) return code;
  const name = (error as { name?: unknown }).name;
  return typeof name === 'string' && name ? name.slice(0, 64) : 'Error';
}
