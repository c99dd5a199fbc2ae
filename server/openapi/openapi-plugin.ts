import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { API_ERROR_STATUS, type ApiErrorCode } from '../../contracts/errors.ts';
import { SCOPE_DESCRIPTIONS } from '../../contracts/scopes.ts';
import { IDEMPOTENCY_KEY_PATTERN } from '../idempotency/idempotency-plugin.ts';
import type { Operation } from '../routes/operation.ts';

export interface OpenApiPluginOptions {
  release: string;
}

const SIGNING = [
  'Every /v1 call is signed with HMAC-SHA256 (no session, no bearer token).',
  '',
  '1. Send `X-API-Key`, `X-Timestamp` (Unix epoch seconds, within +/-300 s of the server clock) and `X-Signature`.',
  '2. Payload = `<timestamp>` + `.` + `<METHOD>` + one space + `<path_and_query>` + one line feed (LF) + `<raw body>`.',
  '   `path_and_query` is the request target exactly as sent, query string included; the body is the exact bytes sent',
  '   (empty for GET, so the payload ends with the LF).',
  '3. `X-Signature` = lowercase hex of HMAC-SHA256(payload, api_secret), 64 characters.',
  '',
  'Example (shell): `printf \'%s.%s %s\\n%s\' "$TS" GET "/v1/ping" "" | openssl dgst -sha256 -hmac "$SECRET" -hex`.',
  'Writes also need `Content-Type: application/json` and an `Idempotency-Key`. See docs/api/README-signing.md.',
].join('\n');

const DESCRIPTION = [
  'Multi-tenant HTTP/JSON gateway for clinic systems. Every response except the 302 file redirects is the envelope',
  '`{data, meta, error}`: `data` is null on errors, `meta.request_id` identifies the call, `error` is',
  '`{code, message, details}` with a stable `code`.',
  '',
  SIGNING,
].join('\n');

/** Codes any signed /v1 call can answer, whatever its operation. */
const SIGNED_CALL_ERRORS: ApiErrorCode[] = [
  'VAL_INVALID_PARAM',
  'AUTH_MISSING_HEADER',
  'AUTH_INVALID_API_KEY_FORMAT',
  'AUTH_INVALID_TIMESTAMP',
  'AUTH_TIMESTAMP_EXPIRED',
  'AUTH_KEY_NOT_FOUND',
  'AUTH_TENANT_OPEN_FAILED',
  'AUTH_KEY_REVOKED',
  'AUTH_KEY_LEGACY',
  'AUTH_INVALID_SIGNATURE',
  'RATE_LIMIT_EXCEEDED',
  'INTERNAL_ERROR',
];

/** Every code the operation can answer: its own, plus those its kind implies. */
export function operationErrorCodes(op: Operation): ApiErrorCode[] {
  const codes = new Set<ApiErrorCode>([...SIGNED_CALL_ERRORS, ...op.errors]);
  if (op.scope) codes.add('AUTH_INSUFFICIENT_SCOPE');
  if (op.method !== 'GET' && op.scope !== 'agenda:write' && !op.public) codes.add('OPERATION_NOT_ALLOWED');
  if (op.idempotent) {
    codes.add('CONCURRENT_REQUEST');
    codes.add('IDEMPOTENCY_CONFLICT');
  }
  if (!op.offline) {
    codes.add('SERVICE_UNAVAILABLE');
    codes.add('SERVICE_TIMEOUT');
  }
  return [...codes].sort((a, b) => API_ERROR_STATUS[a] - API_ERROR_STATUS[b] || a.localeCompare(b));
}

const metaSchema = {
  type: 'object',
  properties: { request_id: { type: 'string' }, duracao_ms: { type: 'integer' } },
  required: ['request_id'],
  additionalProperties: true,
};

const successEnvelope = (data: unknown) => ({
  type: 'object',
  properties: { data, meta: metaSchema, error: { type: 'null' } },
  required: ['data', 'meta', 'error'],
});

const errorEnvelope = (codes: string[]) => ({
  type: 'object',
  properties: {
    data: { type: 'null' },
    meta: metaSchema,
    error: {
      type: 'object',
      properties: {
        code: { type: 'string', enum: codes },
        message: { type: 'string', description: 'Portuguese, without special accents.' },
        details: { type: ['object', 'null'], additionalProperties: true },
      },
      required: ['code', 'message', 'details'],
    },
  },
  required: ['data', 'meta', 'error'],
});

function describe(op: Operation, codes: ApiErrorCode[]): string {
  const access = op.public ? 'Scope: none (any valid key).' : `Scope: \`${op.scope}\` (${SCOPE_DESCRIPTIONS[op.scope!]}).`;
  const lines = [access];
  if (op.idempotent) lines.push('Write under the idempotency contract: `Idempotency-Key` required, replay with the original status for 24 h.');
  if (op.description) lines.push('', op.description);
  lines.push('', `Error codes: ${codes.map((c) => `\`${c}\``).join(', ')}.`);
  return lines.join('\n');
}

const capitalize = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

/** `PATCH /v1/pacientes/:id` → `patchPacientesById`. */
export function operationId(method: string, url: string): string {
  const words = url
    .replace(/^\/v1\//, '')
    .split('/')
    .map((segment) => (segment.startsWith(':') ? `By${capitalize(segment.slice(1))}` : segment.split('-').map(capitalize).join('')));
  return method.toLowerCase() + words.join('');
}

type TransformInput = Parameters<typeof jsonSchemaTransform>[0];

/** Turns a route's zod schemas into its OpenAPI operation: envelope, scope, security, errors, examples. */
function transform(input: TransformInput) {
  const operation = (input.route.config as { operation?: Operation } | undefined)?.operation;
  if (!operation || !input.url.startsWith('/v1/')) return { schema: { hide: true }, url: input.url };
  const { schema } = jsonSchemaTransform(input) as { schema: Record<string, any> };
  const codes = operationErrorCodes(operation);
  const responses: Record<string, unknown> = {};
  const status = operation.response.status;
  if (status === 302) {
    responses['302'] = {
      description: 'Redirect to a presigned object-storage URL valid 300 seconds. Empty body; do not cache, do not re-sign.',
      type: 'null',
      headers: { location: { type: 'string', description: 'Presigned GET URL' }, 'cache-control': { type: 'string', const: 'no-store' } },
    };
  } else {
    const data = schema.response?.[status];
    responses[String(status)] = {
      description: status === 201 ? 'Created (`Location` header)' : 'Success',
      content: { 'application/json': { schema: successEnvelope(data) } },
      ...(status === 201 ? { headers: { location: { type: 'string', description: 'Path of the new resource' } } } : {}),
    };
  }
  const byStatus = new Map<number, string[]>();
  for (const code of codes) byStatus.set(API_ERROR_STATUS[code], [...(byStatus.get(API_ERROR_STATUS[code]) ?? []), code]);
  if (operation.body || operation.method !== 'GET') byStatus.set(413, ['VAL_INVALID_PARAM']);
  for (const [httpStatus, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(httpStatus)] = {
      description: list.join(', '),
      content: { 'application/json': { schema: errorEnvelope(list) } },
    };
  }
  const out: Record<string, unknown> = {
    ...schema,
    summary: operation.summary,
    description: describe(operation, codes),
    tags: operation.tags,
    operationId: operationId(operation.method, input.url),
    security: [{ ApiKey: [], Timestamp: [], Signature: [] }],
    response: responses,
    'x-scope': operation.public ? null : operation.scope,
    'x-error-codes': codes,
    'x-idempotent': operation.idempotent ?? false,
  };
  if (operation.idempotent) {
    out.headers = {
      type: 'object',
      properties: {
        'idempotency-key': {
          type: 'string',
          minLength: 1,
          maxLength: 64,
          pattern: IDEMPOTENCY_KEY_PATTERN.source.replace('{1,64}', '+'),
          description: 'One key per logical write (UUID v4 recommended); same key and body replay the first outcome for 24 h.',
        },
      },
      required: ['idempotency-key'],
    };
  }
  if (operation.example?.body !== undefined && out.body) {
    out.body = { ...(out.body as object), examples: [operation.example.body] };
  }
  return { schema: out, url: input.url };
}

/**
 * OpenAPI 3.1 generated from the same zod schemas the routes validate with, served unsigned at
 * /openapi.json and /openapi.yaml and rendered at /docs with assets from npm (no CDN).
 * Registered before the /v1 routes so @fastify/swagger sees them all.
 */
export default fp<OpenApiPluginOptions>(
  async function openApiPlugin(app: FastifyInstance, options) {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: { title: 'Clinic Exams Gateway API', version: options.release, description: DESCRIPTION },
        components: {
          securitySchemes: {
            ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Public key id: `<prefix>_live_` + 32 lowercase hex.' },
            Timestamp: { type: 'apiKey', in: 'header', name: 'X-Timestamp', description: 'Unix epoch seconds; +/-300 s window.' },
            Signature: { type: 'apiKey', in: 'header', name: 'X-Signature', description: SIGNING },
          },
        },
      },
      transform,
    });
    await app.register(swaggerUi, {
      routePrefix: '/docs',
      uiConfig: { deepLinking: true, validatorUrl: null, defaultModelsExpandDepth: 0 } as Record<string, unknown>,
      staticCSP: false,
    });
    app.get('/openapi.json', { schema: { hide: true } }, async (_request, reply) => reply.type('application/json; charset=utf-8').send(JSON.stringify(app.swagger())));
    app.get('/openapi.yaml', { schema: { hide: true } }, async (_request, reply) => reply.type('application/yaml; charset=utf-8').send(app.swagger({ yaml: true })));
  },
  { name: 'openapi', dependencies: ['envelope'] },
);
