import type { IncomingMessage, Server, ServerResponse } from 'node:http';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/** Methods that write nothing, unless the request carries an Idempotency-Key (which a replay answers from). */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether a request waits for the start-time idempotency check: every write, and whatever names a key. */
export function waitsForCheck(req: IncomingMessage): boolean {
  return !READS.has(req.method ?? '') || req.headers['idempotency-key'] !== undefined;
}

export interface HeldWrites {
  /** Requests that waited so far (the log's and the tests' count). */
  readonly held: number;
}

/**
 * Until `check` settles, the requests that may write or replay (`waitsForCheck`) reach the server's request
 * listeners present now (the framework's) only once it has: decision T32-3, the start-time idempotency check runs
 * after the gateway listens, and no write nor replay is served before it has flagged the orphans. Reads are served
 * at once. Once the check succeeds the listeners are put back as they were, so nothing runs per request afterwards.
 * If it fails, the held requests and every later one that would wait are refused (503, `Connection: close`): the
 * start has failed and the process ends (appliance/main.ts).
 *
 * Listeners added after this call (the drain's, which counts a request from its arrival) are left alone.
 */
export function holdWritesUntil(server: Server, check: Promise<unknown>): HeldWrites {
  const listeners = server.listeners('request') as RequestListener[];
  let held = 0;
  let failed = false;
  const dispatch = (req: IncomingMessage, res: ServerResponse) => {
    for (const listener of listeners) listener.call(server, req, res);
  };
  const refuse = (res: ServerResponse) => {
    if (res.headersSent || res.destroyed) return;
    res.writeHead(503, { 'content-type': 'application/json', connection: 'close', 'retry-after': '5' });
    res.end(
      JSON.stringify({
        error: { code: 'SERVICE_UNAVAILABLE', message: 'the gateway did not start: its idempotency check failed' },
      }),
    );
  };
  const gate: RequestListener = (req, res) => {
    if (!waitsForCheck(req)) return dispatch(req, res);
    if (failed) return refuse(res);
    held++;
    check.then(
      () => dispatch(req, res),
      () => refuse(res),
    );
  };
  for (const listener of listeners) server.removeListener('request', listener);
  server.on('request', gate);
  check.then(
    () => {
      const now = server.listeners('request');
      const at = now.indexOf(gate);
      // Back in the gate's place: after what was added meanwhile ahead of it, before what was added after it.
      const after = now.slice(at + 1) as RequestListener[];
      for (const listener of [gate, ...after]) server.removeListener('request', listener);
      for (const listener of [...listeners, ...after]) server.on('request', listener);
    },
    () => {
      failed = true;
    },
  );
  return {
    get held() {
      return held;
    },
  };
}
