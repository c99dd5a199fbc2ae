import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';
import { errorEnvelope } from '../http/envelope.ts';
import type { AuditWriter } from './audit-writer.ts';
import type { JournalEntries } from './journal-entries.ts';
import '../http/request-context.ts';
import type { StepTracer } from '../tracing/steps.ts';

export interface AuditPluginOptions {
  writer: AuditWriter;
  entries: JournalEntries;
  /** Paths not audited here (console assets; the console API audits its own actions). */
  skipPrefixes: string[];
  /** Tracing on: the wait for the entry's group commit (`journal.commit`) gets a span. */
  trace?: StepTracer;
}

/** Retry-After of a request refused because its journal entry could not be committed. */
const UNRECORDED_RETRY_AFTER_SECONDS = 30;

export const journalUnavailable = (): ApiError =>
  new ApiError(
    'SERVICE_UNAVAILABLE',
    'Journal de auditoria indisponivel: a requisicao foi recusada sem ser servida. Tente novamente.',
    { motivo: 'journal_indisponivel' },
    { headers: { 'retry-after': String(UNRECORDED_RETRY_AFTER_SECONDS) } },
  );

/**
 * Records every request that reaches the gateway, authentication failures included. The entry is
 * committed before the response is sent (onSend), so an acknowledged request is never missing from
 * the log, even after a SIGKILL; when the commit fails the response is replaced by a 503 (fail closed).
 */
export default fp<AuditPluginOptions>(
  async function auditPlugin(app: FastifyInstance, { writer, entries, skipPrefixes, trace }) {
    app.decorateRequest('journalUnattributed', false);
    // Callback style: the response continues when the entry's commit calls back (no promise per request).
    app.addHook('onSend', (request, reply, payload, done) => {
      const url = request.raw.url ?? request.url;
      if (skipPrefixes.some((prefix) => url.startsWith(prefix))) return done(null, payload);
      const record = () => {
        let entry: ReturnType<JournalEntries['of']>;
        try {
          entry = entries.of(request, reply.statusCode, url, payload);
        } catch (error) {
          return done(error as Error);
        }
        const end = trace?.step(request, 'journal.commit');
        writer.writeThen(entry, (error) => {
          end?.(error);
          done(null, error ? refuseUnrecorded(request, reply) : payload);
        });
      };
      const lookup = entries.keyLookup(request);
      if (lookup) lookup.then(record);
      else record();
    });
  },
  { name: 'audit', dependencies: ['envelope'] },
);

/**
 * The answer of a request whose journal entry did not commit: 503 instead of what it would have
 * served, without the headers of that answer (a redirect's Location, a replay flag). Its write, if it
 * had one, is released by the idempotency store (the retry executes or is replayed by backend-sim).
 */
function refuseUnrecorded(request: FastifyRequest, reply: FastifyReply): string {
  const error = journalUnavailable();
  request.errorCode = error.code;
  reply.extraMeta = null;
  for (const name of ['location', 'idempotency-replay', 'etag', 'content-length']) reply.removeHeader(name);
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  reply.header('cache-control', 'no-store');
  reply.code(error.status).type('application/json; charset=utf-8');
  return JSON.stringify(errorEnvelope(request, reply, error));
}
