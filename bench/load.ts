import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

/**
 * The load generator, in its own process (pinned to another core than the server by bench/run.ts),
 * so signing, JSON and autocannon's own work never run on the server's CPU. Every request is made
 * before the run: a fixed signed request (a signed GET may be replayed within the 300 s window) or a
 * pool of pre-signed unique writes, taken in order, one per request. Prints one JSON line.
 */
export interface LoadSpec {
  url: string;
  method: 'GET' | 'POST';
  path: string;
  connections: number;
  durationS: number;
  headers?: Record<string, string>;
  body?: string;
  /** The body read from a file (bodies above the 128 KB a command-line argument can carry). */
  bodyFile?: string;
  /** A JSON file with `{ body, headers }[]`: each used once (unique idempotency keys and bodies). */
  poolFile?: string;
}

export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** Requests beyond the pool, had it run out (they would replay earlier writes). */
  poolExhausted: boolean;
}

const spec = JSON.parse(process.argv[2]) as LoadSpec;
const pool = spec.poolFile
  ? (JSON.parse(readFileSync(spec.poolFile, 'utf8')) as Array<{ body: string; headers: Record<string, string> }>)
  : null;
let next = 0;
let poolExhausted = false;

const result = await autocannon({
  url: spec.url + spec.path,
  method: spec.method,
  connections: spec.connections,
  duration: spec.durationS,
  headers: spec.headers,
  body: spec.bodyFile ? readFileSync(spec.bodyFile, 'utf8') : spec.body,
  requests: pool
    ? [
        {
          method: spec.method,
          path: spec.path,
          setupRequest: (req: Record<string, unknown>) => {
            if (next >= pool.length) poolExhausted = true;
            const r = pool[next++ % pool.length];
            return { ...req, body: r.body, headers: r.headers };
          },
        },
      ]
    : undefined,
} as autocannon.Options);

const out: LoadResult = {
  requests: result.requests.total,
  rps: result.requests.average,
  p50: result.latency.p50,
  p99: result.latency.p99,
  non2xx: result.non2xx,
  errors: result.errors + result.timeouts,
  poolExhausted,
};
process.stdout.write(`${JSON.stringify(out)}\n`);
