import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import protobuf from 'protobufjs';

/**
 * An OTLP/HTTP traces receiver on loopback, as a collector would be (https://opentelemetry.io/docs/specs/otlp/):
 * `POST /v1/traces` in `application/x-protobuf` (decoded with the minimal schema below, from
 * opentelemetry-proto's trace.proto and common.proto: only the fields the tests read) or `application/json`.
 */
const PROTO = `
syntax = "proto3";
package opentelemetry.proto;
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message InstrumentationScope { string name = 1; string version = 2; }
message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  string trace_state = 3;
  bytes parent_span_id = 4;
  string name = 5;
  int32 kind = 6;
  fixed64 start_time_unix_nano = 7;
  fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9;
  Status status = 15;
  fixed32 flags = 16;
}
message Status { string message = 2; int32 code = 3; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; }
}
`;
const ExportRequest = protobuf.parse(PROTO).root.lookupType('opentelemetry.proto.ExportTraceServiceRequest');

/** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
export const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const;

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
}

export interface OtlpReceiver {
  /** The base URL (OTEL_EXPORTER_OTLP_ENDPOINT). */
  url: string;
  spans: ReceivedSpan[];
  /** Content types of the requests received, in order. */
  contentTypes: string[];
  close(): Promise<void>;
}

type AnyValue = { stringValue?: string; boolValue?: boolean; intValue?: unknown; doubleValue?: number };
type KeyValue = { key: string; value?: AnyValue };
type WireSpan = {
  traceId: unknown;
  spanId: unknown;
  parentSpanId?: unknown;
  name: string;
  kind?: number;
  attributes?: KeyValue[];
  status?: { code?: number };
};
type WireRequest = {
  resourceSpans?: Array<{ resource?: { attributes?: KeyValue[] }; scopeSpans?: Array<{ spans?: WireSpan[] }> }>;
};

/** Bytes in protobuf, hex strings in OTLP/JSON (as OpenTelemetry JS writes them). */
const hex = (value: unknown): string => {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value.toLowerCase();
  return Buffer.from(value as Uint8Array).toString('hex');
};

const anyValue = (value: AnyValue | undefined): string | number | boolean => {
  if (!value) return '';
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(String(value.intValue));
  if (value.doubleValue !== undefined) return value.doubleValue;
  return '';
};

const attributesOf = (list: KeyValue[] | undefined) =>
  Object.fromEntries((list ?? []).map(({ key, value }) => [key, anyValue(value)]));

function spansOf(request: WireRequest): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
    for (const scope of resourceSpans.scopeSpans ?? [])
      for (const span of scope.spans ?? [])
        out.push({
          service,
          traceId: hex(span.traceId),
          spanId: hex(span.spanId),
          parentSpanId: hex(span.parentSpanId),
          name: span.name,
          kind: span.kind ?? 0,
          attributes: attributesOf(span.attributes),
          statusCode: span.status?.code ?? 0,
        });
  }
  return out;
}

const bodyOf = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server = createServer((req, res) => {
    void bodyOf(req).then((body) => {
      const type = String(req.headers['content-type'] ?? '');
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      contentTypes.push(type);
      if (type.startsWith('application/x-protobuf')) {
        const decoded = ExportRequest.toObject(ExportRequest.decode(body), { longs: String }) as WireRequest;
        spans.push(...spansOf(decoded));
        // An empty ExportTraceServiceResponse.
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      } else {
        spans.push(...spansOf(JSON.parse(body.toString('utf8')) as WireRequest));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
