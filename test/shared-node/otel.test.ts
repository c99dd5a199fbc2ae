import { describe, expect, it } from 'vitest';
import { backendSimServiceName, tracingSettingsFrom, TracingConfigError } from '../../shared-node/otel.ts';
import { parseTraceparent } from '../../shared-node/traceparent.ts';

const defaults = { serviceName: 'clinic-gateway' };

describe('tracingSettingsFrom (the standard OTEL_* variables)', () => {
  it('is off without an endpoint, with OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none', () => {
    expect(tracingSettingsFrom({}, defaults)).toBeNull();
    expect(tracingSettingsFrom({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, defaults)).toBeNull();
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(tracingSettingsFrom({ ...endpoint, OTEL_SDK_DISABLED: 'true' }, defaults)).toBeNull();
    expect(tracingSettingsFrom({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' }, defaults)).toBeNull();
  });

  it('appends /v1/traces to the general endpoint, takes the traces endpoint as given; protobuf by default', () => {
    expect(tracingSettingsFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }, defaults)).toEqual({
      url: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
      serviceName: 'clinic-gateway',
    });
    expect(
      tracingSettingsFrom(
        {
          OTEL_EXPORTER_OTLP_ENDPOINT: 'http://ignored:4318',
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector/custom/path',
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
          OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
          OTEL_SERVICE_NAME: 'acme',
        },
        defaults,
      ),
    ).toEqual({ url: 'https://collector/custom/path', protocol: 'http/json', serviceName: 'acme' });
  });

  it('refuses grpc, another exporter and a URL that is not http(s)', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(() => tracingSettingsFrom({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, defaults)).toThrow(
      TracingConfigError,
    );
    expect(() => tracingSettingsFrom({ ...endpoint, OTEL_TRACES_EXPORTER: 'zipkin' }, defaults)).toThrow(/otlp/);
    expect(() => tracingSettingsFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, defaults)).toThrow(/http/);
  });

  it("names backend-sim after the gateway's service", () => {
    expect(backendSimServiceName('clinic-gateway')).toBe('clinic-backend-sim');
    expect(backendSimServiceName('acme')).toBe('acme-backend-sim');
  });
});

describe('parseTraceparent', () => {
  it('reads a valid header and a future version with more fields', () => {
    expect(parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')).toEqual({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      parentId: '00f067aa0ba902b7',
      sampled: true,
    });
    expect(parseTraceparent('01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00-more')?.sampled).toBe(false);
    expect(parseTraceparent(['00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'])).toBeNull();
  });
});
