import net from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

export interface DrainResult {
  /** Requests answered during the drain (in flight when it began, or arriving on a connection already open). */
  answered: number;
  /** Requests still unanswered at the deadline: their connections were cut. */
  cut: number;
  ms: number;
}

export interface Drainable {
  /** Idempotent: a second call returns the first call's drain. */
  drain(deadline: number): Promise<DrainResult>;
}

/**
 * Graceful shutdown of an HTTP server, as Node's `server.close()` does not do it: that one destroys at
 * once every connection without a request in progress, so a request the client has just sent on a
 * keep-alive connection is lost to a reset, and it then waits for the busy connections' keep-alive
 * (72 s in Fastify) after their last answer.
 *
 * Here, from `drain(deadline)` on:
 * - the listening socket is closed (a new connection is refused);
 * - every request already received, in flight or arriving on a connection already open, is answered
 *   with `Connection: close`, so its connection ends with its answer;
 * - once no request is in flight the idle connections are closed;
 * - at the deadline whatever is left is cut (`cut` counts the requests that got no answer).
 *
 * Must be called before the server receives requests (it watches them from their arrival).
 */
export function drainable(server: Server): Drainable {
  const inFlight = new Set<ServerResponse>();
  let draining = false;
  let answered = 0;
  let drained: Promise<DrainResult> | null = null;
  let settleIfIdle: () => void = () => undefined;

  const closeWithAnswer = (res: ServerResponse) => {
    if (!res.headersSent) {
      res.setHeader('connection', 'close');
      return;
    }
    // Headers already out with keep-alive: the connection is ended once the answer is.
    res.once('finish', () => res.socket?.end());
  };

  // Ahead of the framework's listener, so the header is set before any answer can start.
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    inFlight.add(res);
    if (draining) closeWithAnswer(res);
    res.once('close', () => {
      inFlight.delete(res);
      if (draining) {
        answered += res.writableFinished ? 1 : 0;
        settleIfIdle();
      }
    });
  });

  const drain = (deadline: number): Promise<DrainResult> =>
    new Promise<DrainResult>((resolve) => {
      const started = Date.now();
      draining = true;
      for (const res of inFlight) closeWithAnswer(res);
      let timer: NodeJS.Timeout | undefined;
      let finished = false;
      const finish = (cut: number) => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        settleIfIdle = () => undefined;
        resolve({ answered, cut, ms: Date.now() - started });
      };
      if (!server.listening) {
        server.closeAllConnections();
        finish(0);
        return;
      }
      // net.Server's close, not http.Server's: stop accepting without closing the idle connections yet.
      net.Server.prototype.close.call(server, () => finish(0));
      settleIfIdle = () => {
        if (inFlight.size === 0) server.closeIdleConnections();
      };
      settleIfIdle();
      timer = setTimeout(
        () => {
          const cut = inFlight.size;
          server.closeAllConnections();
          finish(cut);
        },
        Math.max(0, deadline - Date.now()),
      );
    });

  return {
    drain: (deadline) => (drained ??= drain(deadline)),
  };
}
