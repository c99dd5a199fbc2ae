import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

/**
 * A synchronous hook in Fastify's callback style: no promise and no microtask per hook and request
 * (an `async` hook costs both, on every request, even when it does nothing). A throw becomes the
 * request's error, as it would from an async hook.
 */
export function syncHook(body: (request: FastifyRequest, reply: FastifyReply) => void) {
  return function hook(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    try {
      body(request, reply);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  };
}

/** The same for hooks that receive and may replace the payload (preSerialization, onSend). */
export function syncPayloadHook<P>(body: (request: FastifyRequest, reply: FastifyReply, payload: P) => unknown) {
  return function hook(
    request: FastifyRequest,
    reply: FastifyReply,
    payload: P,
    done: (error: Error | null, payload?: unknown) => void,
  ): void {
    let result: unknown;
    try {
      result = body(request, reply, payload);
    } catch (error) {
      done(error as Error);
      return;
    }
    done(null, result);
  };
}
