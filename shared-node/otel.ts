/**
 * OpenTelemetry traces for both services (issue 31 § 2), behind an interface of our own so that nothing of the SDK
 * is loaded, or costs anything, unless OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set:
 * the SDK, the exporter and the API are imported by shared-node/otel-runtime.ts only, and that file only through
 * the dynamic import in `startTracing` (a dependency-cruiser rule keeps it so). docs/observability.md § Tracing.
 */

import type { Tracing, TracingSettings } from './otel-types.ts';

export type { OtlpProtocol, SpanAttributes, TraceSpan, Tracing, TracingSettings } from './otel-types.ts';

export class TracingConfigError extends Error {}

/** The standard variables read here (docs/configuration.md); the SDK reads its others itself (OTEL_BSP_*, headers…). */
export const OTEL_VARIABLES = [
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_PROTOCOL',
  'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
  'OTEL_SERVICE_NAME',
  'OTEL_SDK_DISABLED',
  'OTEL_TRACES_EXPORTER',
] as const;
export type OtelEnvironment = { readonly [name in (typeof OTEL_VARIABLES)[number]]?: string };

/** The gateway's `service.name` when OTEL_SERVICE_NAME is unset. */
export const GATEWAY_SERVICE_NAME = 'clinic-gateway';
/** backend-sim's when the appliance starts it and OTEL_SERVICE_NAME is unset; with it set, `<name>-backend-sim`. */
export const BACKEND_SIM_SERVICE_NAME = 'clinic-backend-sim';

/** backend-sim's service name when the appliance starts it beside a gateway named `gatewayServiceName`. */
export const backendSimServiceName = (gatewayServiceName: string): string =>
  gatewayServiceName === GATEWAY_SERVICE_NAME ? BACKEND_SIM_SERVICE_NAME : `${gatewayServiceName}-backend-sim`;

const nonEmpty = (value: string | undefined): string | undefined => {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
};

/**
 * The OTEL_* variables a service reads (https://opentelemetry.io/docs/specs/otel/protocol/exporter/): null (tracing
 * off) unless an endpoint is set, or when OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none. The signal-specific
 * TRACES_ variables win over the general ones. `grpc` is refused (only the OTLP/HTTP exporters are shipped).
 */
export function tracingSettingsFrom(
  env: OtelEnvironment,
  defaults: { serviceName: string; resource?: Record<string, string> },
): TracingSettings | null {
  if (nonEmpty(env.OTEL_SDK_DISABLED)?.toLowerCase() === 'true') return null;
  const exporters = nonEmpty(env.OTEL_TRACES_EXPORTER)?.toLowerCase();
  if (exporters === 'none') return null;
  if (exporters !== undefined && !exporters.split(',').some((name) => name.trim() === 'otlp'))
    throw new TracingConfigError(
      `Invalid configuration:\n  OTEL_TRACES_EXPORTER: only "otlp" (or "none") is supported, not "${exporters}"`,
    );
  const tracesEndpoint = nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  const endpoint = nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (!tracesEndpoint && !endpoint) return null;
  // The general endpoint is a base URL the signal's path is appended to; the signal's own is used as given.
  const url = tracesEndpoint ?? `${endpoint!.replace(/\/+$/, '')}/v1/traces`;
  const variable = tracesEndpoint ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TracingConfigError(`Invalid configuration:\n  ${variable}: not a URL: ${url}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new TracingConfigError(`Invalid configuration:\n  ${variable}: an http:// or https:// URL, not ${url}`);
  const protocol =
    nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) ?? nonEmpty(env.OTEL_EXPORTER_OTLP_PROTOCOL) ?? 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json')
    throw new TracingConfigError(
      `Invalid configuration:\n  OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf" (the default) or "http/json", not "${protocol}"`,
    );
  return {
    url,
    protocol,
    serviceName: nonEmpty(env.OTEL_SERVICE_NAME) ?? defaults.serviceName,
    ...(defaults.resource ? { resource: defaults.resource } : {}),
  };
}

/** Loads the SDK and the exporter the protocol names (dynamic import: nothing is loaded while tracing is off). */
export async function startTracing(settings: TracingSettings): Promise<Tracing> {
  const runtime = await import('./otel-runtime.ts');
  return runtime.openTracing(settings);
}

/** True once this process has loaded the OpenTelemetry runtime (tests: tracing off loads nothing). */
export const openTelemetryLoaded = (): boolean =>
  // Set by shared-node/otel-runtime.ts when it is evaluated (the same registered symbol).
  (globalThis as Record<symbol, unknown>)[Symbol.for('clinic-gateway.otel-runtime.loaded')] === true;
