import http from 'node:http';
import https from 'node:https';
import { computeSignature, signingPayload } from '../auth/signing.ts';

/**
 * One call to the upstream gateway (issue 33): the request as received, re-signed or untouched, and its answer's bytes.
 * A failure to get an answer is an UpstreamFault (connection refused, TLS, a reset, the timeout), never an exception
 * carrying the request: nothing here logs, and no fault's text names a header.
 */

export type UpstreamFaultKind = 'connection' | 'tls' | 'timeout' | 'invalid_json' | 'too_large';

export class UpstreamFault extends Error {
  constructor(
    readonly kind: UpstreamFaultKind,
    /** A short cause for the journal (an error code such as ECONNREFUSED), never a header or a body. */
    readonly cause_: string,
  ) {
    super(`upstream ${kind}: ${cause_}`);
  }
}

export interface UpstreamResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** Headers of one hop only (RFC 9110 § 7.6.1), never forwarded either way. */
export const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);

/** Above this an answer is not read on (a file is a 302, never a body): a fault. */
export const MAX_UPSTREAM_ANSWER_BYTES = 32 * 1024 * 1024;

const TLS_CODES = /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO|SELF_SIGNED|DEPTH_ZERO|ERR_OSSL|HOSTNAME_MISMATCH)/;

export interface UpstreamCall {
  /** Base URL (no trailing slash); the path as received is appended to its own path. */
  base: URL;
  method: string;
  /** Path and query as received, e.g. `/v1/pacientes?limit=5`. */
  pathAndQuery: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  timeoutMs: number;
  /** Re-sign mode: the upstream key; pass-through sends the caller's signing headers as they came. */
  resign?: { apiKey: string; apiSecret: string; now: () => number };
}

/** The path the upstream receives: its base path, then the path as sent. */
export function upstreamPath(base: URL, pathAndQuery: string): string {
  return base.pathname.replace(/\/+$/, '') + pathAndQuery;
}

/** The headers sent upstream: every end-to-end header as received; in re-sign mode, the signing three replaced. */
export function upstreamHeaders(call: UpstreamCall): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(call.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    out[name] = value;
  }
  out.host = call.base.host;
  // Answers are checked as JSON: asked for uncompressed (the one header the guard sets in pass-through mode too; it is
  // not signed, and an upstream may always answer identity).
  out['accept-encoding'] = 'identity';
  if (call.resign) {
    const timestamp = String(Math.floor(call.resign.now() / 1000));
    const payload = signingPayload(timestamp, call.method, upstreamPath(call.base, call.pathAndQuery), call.body);
    out['x-api-key'] = call.resign.apiKey;
    out['x-timestamp'] = timestamp;
    out['x-signature'] = computeSignature(call.resign.apiSecret, payload);
  }
  if (call.body.length > 0) out['content-length'] = String(call.body.length);
  else if (call.method !== 'GET' && call.method !== 'DELETE') out['content-length'] = '0';
  return out;
}

const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

/** Sends the call; resolves with the whole answer, rejects with an UpstreamFault. */
export function callUpstream(call: UpstreamCall): Promise<UpstreamResponse> {
  const secure = call.base.protocol === 'https:';
  const transport = secure ? https : http;
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (fault: UpstreamFault) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      reject(fault);
    };
    const request = transport.request(
      {
        protocol: call.base.protocol,
        hostname: call.base.hostname,
        port: call.base.port || (secure ? 443 : 80),
        method: call.method,
        path: upstreamPath(call.base, call.pathAndQuery),
        headers: upstreamHeaders(call),
        agent: secure ? agents.https : agents.http,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_UPSTREAM_ANSWER_BYTES) fail(new UpstreamFault('too_large', `more than ${size} bytes`));
          else chunks.push(chunk);
        });
        response.on('error', (error) => fail(faultOf(error)));
        response.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({ status: response.statusCode ?? 502, headers: response.headers, body: Buffer.concat(chunks) });
        });
      },
    );
    const timer = setTimeout(
      () => fail(new UpstreamFault('timeout', `no complete answer within ${call.timeoutMs} ms`)),
      call.timeoutMs,
    );
    request.on('error', (error) => fail(faultOf(error)));
    request.end(call.body.length > 0 ? call.body : undefined);
  });
}

function faultOf(error: Error): UpstreamFault {
  const code = String((error as NodeJS.ErrnoException).code ?? 'ERROR');
  return new UpstreamFault(TLS_CODES.test(code) ? 'tls' : 'connection', code.slice(0, 64));
}
