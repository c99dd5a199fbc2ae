import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

/**
 * What a plugin needs to trace one step of a request (authentication, the idempotency reservation, the journal
 * commit) as a span under the request's span. Handed to a plugin only when tracing is on: with it off the plugin
 * registers its hooks as they are, so the hot path does not even test for it (server/tracing/gateway-tracing.ts).
 */
export interface StepTracer {
  /** Starts the step's span; the function returned ends it (failed when given an error). */
  step(request: FastifyRequest, name: string): (error?: unknown) => void;
}

type CallbackHook = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;

/** A callback-style hook timed as the span `name`: from its call to its `done`. */
export function tracedHook(tracer: StepTracer, name: string, hook: CallbackHook): CallbackHook {
  return function traced(request, reply, done) {
    const end = tracer.step(request, name);
    hook(request, reply, (error?: Error) => {
      end(error);
      done(error);
    });
  };
}

/** An async hook (or preHandler) timed as the span `name`, until its promise settles. */
export function tracedAsyncHook<R>(
  tracer: StepTracer,
  name: string,
  hook: (request: FastifyRequest, reply: FastifyReply) => Promise<R>,
): (request: FastifyRequest, reply: FastifyReply) => Promise<R> {
  return async function traced(request, reply) {
    const end = tracer.step(request, name);
    try {
      const result = await hook(request, reply);
      end();
      return result;
    } catch (error) {
      end(error);
      throw error;
    }
  };
}
