import fp from 'fastify-plugin';
import { syncHook } from '../http/sync-hooks.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';
import { bodyTooLarge, MAX_BODY_BYTES, parseJsonBody } from '../http/body.ts';
import type { KeysService, ResolvedKey } from '../keys/keys.service.ts';
import { API_KEY_PATTERN, maskApiKey } from '../keys/keys.service.ts';
import { computeSignature, signaturesMatch, signingPayload } from './signing.ts';
import { explainSignatureMismatch, type SignatureMismatch } from './signature-debug.ts';
import { AddressLimiter } from '../rate-limit/address-limiter.ts';
import { formatDuration } from '../clock.ts';
import { KEY_EXPIRED_MESSAGE } from '../keys/key-expiry.ts';
import { tracedHook, type StepTracer } from '../tracing/steps.ts';
import '../http/request-context.ts';

export const TIMESTAMP_WINDOW_SECONDS = 300;

export interface AuthPluginOptions {
  keys: KeysService;
  /** For tests of the timestamp window. */
  now?: () => number;
  /** Development mode: AUTH_INVALID_SIGNATURE explains what the server signed (server/auth/signature-debug.ts). */
  explainSignatures?: boolean;
  /** The unauthenticated refusals' limiter: an address past its quota gets no explanation computed. */
  refusals?: AddressLimiter;
  /** Computes an explanation (explainSignatureMismatch by default; tests wrap it to count what is computed). */
  explain?: (input: SignatureMismatch) => Record<string, unknown>;
  /** Tracing on: the key check (`auth.key`) and the signature check (`auth.signature`) each get a span. */
  trace?: StepTracer;
}

/**
 * Explanations are rationed (issue 20): each costs tens of HMACs, so a key or an address gets at most
 * this many a minute; past it, the refusal is the plain AUTH_INVALID_SIGNATURE.
 */
export const EXPLANATIONS_PER_MINUTE = 60;

const unauthorized = (
  code: ConstructorParameters<typeof ApiError>[0],
  message: string,
  details: Record<string, unknown> | null = null,
) => new ApiError(code, message, details);

/**
 * HMAC request signing, scope check and JSON body parsing for the /v1 subtree.
 * The headers are checked as soon as the request arrives, before its body is read, so a request
 * without a valid key never makes the gateway buffer a body. The signature over the raw bytes is
 * checked once the body has arrived (within the route's limit); JSON is parsed only after that.
 */
export default fp<AuthPluginOptions>(
  async function authPlugin(app: FastifyInstance, options) {
    const now = options.now ?? (() => Date.now());
    const explainer = options.explainSignatures
      ? {
          perKey: new AddressLimiter({ perMinute: EXPLANATIONS_PER_MINUTE }),
          perAddress: new AddressLimiter({ perMinute: EXPLANATIONS_PER_MINUTE }),
          refusals: options.refusals,
          explain: options.explain ?? explainSignatureMismatch,
        }
      : null;

    // Callback style: synchronous when the key is cached or gateway.db answers, asynchronous only when
    // the key source does (PostgreSQL, on a cache miss).
    const checkKey: Parameters<typeof tracedHook>[2] = (request, _reply, done) => {
      if (request.routeOptions.config?.corsPreflight) return done();
      let checked: ResolvedKey | Promise<ResolvedKey>;
      try {
        refuseAboveCeiling(request);
        checked = checkHeaders(request, options.keys, now);
      } catch (error) {
        return done(error as Error);
      }
      if (checked instanceof Promise) checked.then(() => done(), done);
      else done();
    };
    const checkSignature = syncHook((request) => {
      if (request.routeOptions.config?.corsPreflight) return;
      verifySignature(request, explainer);
      authorize(request);
      parseJsonBody(request);
    });
    // Traced or not is chosen here, once: with tracing off the hooks are the plain ones.
    const { trace } = options;
    app.addHook('onRequest', trace ? tracedHook(trace, 'auth.key', checkKey) : checkKey);
    // Between the two: the body arrives (within the route's limit), which is neither span's time.
    app.addHook('preValidation', trace ? tracedHook(trace, 'auth.signature', checkSignature) : checkSignature);
  },
  { name: 'auth', dependencies: ['envelope'] },
);

/** The largest body any route takes: above it, refused from Content-Length alone, before authentication. */
function refuseAboveCeiling(request: FastifyRequest): void {
  const length = Number(request.headers['content-length'] ?? 0);
  if (length > MAX_BODY_BYTES) throw bodyTooLarge(MAX_BODY_BYTES);
}

function checkHeaders(
  request: FastifyRequest,
  keys: KeysService,
  now: () => number,
): ResolvedKey | Promise<ResolvedKey> {
  const apiKey = header(request, 'x-api-key');
  const timestamp = header(request, 'x-timestamp');
  const signature = header(request, 'x-signature');
  const missing = [
    ['X-API-Key', apiKey],
    ['X-Timestamp', timestamp],
    ['X-Signature', signature],
  ]
    .filter(([, value]) => value === undefined)
    .map(([name]) => name as string);
  if (missing.length > 0) {
    throw unauthorized('AUTH_MISSING_HEADER', `Cabecalho obrigatorio ausente: ${missing.join(', ')}.`, {
      field: missing[0],
      ausentes: missing,
    });
  }
  if (!API_KEY_PATTERN.test(apiKey!)) {
    throw unauthorized('AUTH_INVALID_API_KEY_FORMAT', 'Formato de X-API-Key invalido.', { field: 'X-API-Key' });
  }
  // The key first: every refusal below is journaled under the key it names (issue 19), so the console's
  // "Calls" of a key show why its integrator fails (clock, revocation, signature).
  const resolved = keys.resolve(apiKey!);
  if (resolved instanceof Promise) return resolved.then((found) => checkPresentedKey(request, found, timestamp!, now));
  return checkPresentedKey(request, resolved, timestamp!, now);
}

/** The checks that need the key: every refusal from here on names it in the journal. */
function checkPresentedKey(
  request: FastifyRequest,
  resolved: ResolvedKey | undefined,
  timestamp: string,
  now: () => number,
): ResolvedKey {
  if (!resolved) throw unauthorized('AUTH_KEY_NOT_FOUND', 'Chave de API nao encontrada.');
  request.presentedKey = resolved;
  if (!/^\d{1,12}$/.test(timestamp)) {
    throw unauthorized('AUTH_INVALID_TIMESTAMP', 'X-Timestamp deve ser um inteiro em segundos (epoch Unix).', {
      field: 'X-Timestamp',
    });
  }
  const serverNow = now();
  const serverSeconds = Math.floor(serverNow / 1000);
  const skew = Number(timestamp) - serverSeconds;
  if (Math.abs(skew) > TIMESTAMP_WINDOW_SECONDS) {
    // Both modes: the server time is no secret (the Date header carries it); the skew says which way to fix the clock.
    const offsetSeconds = applianceOffsetSeconds(request);
    throw unauthorized('AUTH_TIMESTAMP_EXPIRED', timestampExpiredMessage(skew, offsetSeconds), {
      field: 'X-Timestamp',
      server_time: new Date(serverNow).toISOString(),
      server_timestamp: serverSeconds,
      skew_seconds: skew,
      window_seconds: TIMESTAMP_WINDOW_SECONDS,
      // How far the appliance clock was moved ahead of real time (`clock advance`, development mode); 0 at real time.
      appliance_offset_seconds: offsetSeconds,
    });
  }
  const { key, tenant, secret } = resolved;
  if (tenant?.status !== 'active') {
    throw unauthorized('AUTH_TENANT_OPEN_FAILED', 'Falha ao abrir o ambiente da clinica.');
  }
  if (key.status !== 'active') throw unauthorized('AUTH_KEY_REVOKED', 'Chave de API revogada ou inativa.');
  // Judged now, by the appliance clock, never when the key was cached: a cached key expires on time too.
  if (key.expires_at !== null && Date.parse(key.expires_at) <= serverNow) {
    throw unauthorized('AUTH_KEY_REVOKED', `${KEY_EXPIRED_MESSAGE} ${key.expires_at}.`, {
      expires_at: key.expires_at,
      server_time: new Date(serverNow).toISOString(),
    });
  }
  if (key.format === 'legacy' || secret === null) {
    throw unauthorized(
      'AUTH_KEY_LEGACY',
      'Chave em formato legado sem segredo compativel. Solicite a rotacao ao suporte.',
    );
  }
  return resolved;
}

/** The appliance clock's offset from real time, in whole seconds (server/clock.ts; 0 in production or without one). */
function applianceOffsetSeconds(request: FastifyRequest): number {
  const clock = request.server.applianceClock as { offsetMs(): number } | undefined;
  return clock ? Math.floor(clock.offsetMs() / 1000) : 0;
}

/**
 * A moved appliance clock is the usual cause in development (issue 21 § 4): a client signing with its own
 * correct clock (`date +%s`) falls outside the window by the offset, and "sync your clock" would mislead it.
 */
function timestampExpiredMessage(skew: number, offsetSeconds: number): string {
  const base = 'X-Timestamp fora da janela de 300 segundos.';
  if (offsetSeconds <= 0) return `${base} Sincronize o relogio (NTP).`;
  const shifted = `O relogio do appliance foi adiantado de proposito em ${formatDuration(offsetSeconds * 1000)} (appliance_offset_seconds: ${offsetSeconds})`;
  const fix =
    'assine com o horario do appliance (server_timestamp), isto e, o tempo real mais appliance_offset_seconds; ou volte o relogio com `npm run cli -- clock reset`.';
  // Within the window of real time: the client's clock is right, only the appliance's was moved.
  if (Math.abs(skew + offsetSeconds) <= TIMESTAMP_WINDOW_SECONDS)
    return `${base} ${shifted} e o seu X-Timestamp segue o tempo real: ${fix}`;
  return `${base} ${shifted}: ${fix}`;
}

interface Explainer {
  perKey: AddressLimiter;
  perAddress: AddressLimiter;
  refusals?: AddressLimiter;
  explain: (input: SignatureMismatch) => Record<string, unknown>;
}

/** Whether this refusal may have its (costly) explanation: development mode, and the key's and address's rations. */
function mayExplain(explainer: Explainer, request: FastifyRequest, keyId: number): boolean {
  if (explainer.refusals && !explainer.refusals.hasRoom(request.ip)) return false;
  return explainer.perKey.take(String(keyId)).ok && explainer.perAddress.take(request.ip).ok;
}

function verifySignature(request: FastifyRequest, explainer: Explainer | null): void {
  const { key, tenant, secret, scopes } = request.presentedKey!;
  const timestamp = header(request, 'x-timestamp')!;
  const pathAndQuery = request.raw.url ?? request.url;
  const payload = signingPayload(timestamp, request.method, pathAndQuery, request.rawBody);
  const sent = header(request, 'x-signature')!;
  if (!signaturesMatch(computeSignature(secret!, payload), sent)) {
    const details =
      explainer && mayExplain(explainer, request, key.id)
        ? explainer.explain({
            secret: secret!,
            timestamp,
            method: request.method,
            pathAndQuery,
            rawBody: request.rawBody,
            sentSignature: sent,
            host: header(request, 'host'),
            unreadBody: unreadBody(request),
          })
        : null;
    throw unauthorized('AUTH_INVALID_SIGNATURE', 'Assinatura invalida.', details);
  }
  request.auth = {
    chaveId: key.id,
    apiKey: key.api_key,
    tenantId: tenant!.id,
    tenantSlug: tenant!.slug,
    sandbox: tenant!.is_sandbox === 1,
    medicoId: key.medico_id,
    scopes,
  };
}

/**
 * A body sent with a GET (or HEAD): never read, so never part of what the gateway signs; its announced size
 * (`null` when chunked). Undefined when there is none.
 */
function unreadBody(request: FastifyRequest): { announcedBytes: number | null } | undefined {
  if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
  const length = Number(request.headers['content-length'] ?? 0);
  if (length > 0) return { announcedBytes: length };
  return request.headers['transfer-encoding'] ? { announcedBytes: null } : undefined;
}

/** Spec § Sandbox: every GET, POST /v1/ping and the agenda writes; no other write, whatever the key's scopes. */
const SANDBOX_WRITE_SCOPES = new Set(['agenda:write']);

function authorize(request: FastifyRequest): void {
  const scope = request.routeOptions.config?.scope;
  // Fail closed: only an operation marked public has `scope: null` (the /v1 route guard enforces it).
  if (scope === undefined)
    throw new ApiError('INTERNAL_ERROR', 'Erro interno do gateway. Informe o request_id ao suporte.');
  if (scope && !request.auth!.scopes.includes(scope)) {
    const held = request.auth!.scopes;
    throw new ApiError(
      'AUTH_INSUFFICIENT_SCOPE',
      `Chave sem o escopo necessario: ${scope}. Escopos desta chave: ${held.length > 0 ? held.join(', ') : 'nenhum'}. Peca ao operador uma chave com ${scope}.`,
      { escopo_necessario: scope, escopos_da_chave: held },
    );
  }
  if (scope && request.auth!.sandbox && !scope.endsWith(':read') && !SANDBOX_WRITE_SCOPES.has(scope)) {
    throw new ApiError('OPERATION_NOT_ALLOWED', 'Operacao de escrita nao habilitada no sandbox.', { escopo: scope });
  }
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  if (Array.isArray(value)) return value[0];
  return value === undefined || value === '' ? undefined : value;
}

export { maskApiKey };
