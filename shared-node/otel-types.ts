/** The shapes of shared-node/otel.ts, apart so that its runtime (otel-runtime.ts) imports them without a circle. */

export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** What a service exports its spans with: parsed from the standard OTEL_* variables (`tracingSettingsFrom`). */
export interface TracingSettings {
  /** The OTLP/HTTP traces URL: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, or OTEL_EXPORTER_OTLP_ENDPOINT + `/v1/traces`. */
  url: string;
  protocol: OtlpProtocol;
  /** `service.name` of the resource. */
  serviceName: string;
  /** More resource attributes (`service.version`, `service.instance.id`). */
  resource?: Record<string, string>;
}

export type SpanAttributes = Record<string, string | number | boolean>;

/** One span, whatever the SDK: what the services do with a span. */
export interface TraceSpan {
  /** 32 lowercase hex digits. */
  readonly traceId: string;
  /** A span under this one (`internal` by default; `client` for a call to another service). */
  child(name: string, options?: { kind?: 'internal' | 'client'; attributes?: SpanAttributes }): TraceSpan;
  /** The W3C `traceparent` (and `tracestate` when the trace has one) naming this span as the parent of a call it makes. */
  headers(): { traceparent: string; tracestate?: string };
  setAttribute(name: string, value: string | number | boolean): void;
  /** Ends the span: failed with `error`, or with an HTTP `status` a server span counts as failed (5xx) or a client one (4xx too). */
  end(outcome?: { error?: unknown; status?: number }): void;
}

/** A service's tracer: its server spans, and its provider's shutdown (what is buffered is exported first). */
export interface Tracing {
  readonly settings: TracingSettings;
  /** A server span continuing `traceparent` when it is valid (its trace id kept), a new trace otherwise. */
  startServer(
    name: string,
    incoming: { traceparent?: string | string[]; tracestate?: string | string[] },
    attributes?: SpanAttributes,
  ): TraceSpan;
  shutdown(): Promise<void>;
}
