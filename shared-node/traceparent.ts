/**
 * The W3C Trace Context `traceparent` header (https://www.w3.org/TR/trace-context/#traceparent-header), read without
 * any OpenTelemetry module: the gateway journals the trace id of a valid incoming one even with tracing off.
 */

/** `version-traceid-parentid-flags`; a future version may append fields after a dash. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

export interface Traceparent {
  traceId: string;
  parentId: string;
  sampled: boolean;
}

/**
 * The parts of a valid `traceparent`, else null: lowercase hex only, ids not all zero, version `ff` invalid and
 * version `00` exactly 55 characters (what OpenTelemetry's W3CTraceContextPropagator accepts). Several headers: none.
 */
export function parseTraceparent(value: string | string[] | undefined): Traceparent | null {
  if (typeof value !== 'string' || value.length < 55 || value.length > 512) return null;
  const match = TRACEPARENT.exec(value.trim());
  if (!match) return null;
  const [, version, traceId, parentId, flags, rest] = match;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return null;
  if (traceId === ZERO_TRACE || parentId === ZERO_SPAN) return null;
  return { traceId, parentId, sampled: (Number.parseInt(flags, 16) & 1) === 1 };
}

/** The trace id of a valid `traceparent`, else null. */
export const incomingTraceId = (value: string | string[] | undefined): string | null =>
  parseTraceparent(value)?.traceId ?? null;
