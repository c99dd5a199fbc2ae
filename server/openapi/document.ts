import { createHmac } from 'node:crypto';
import type { z } from 'zod';
import { API_ERROR_STATUS, type ApiErrorCode } from '../../contracts/errors.ts';
import { API_ERROR_CODES, ERROR_DETAILS, paginationMeta, writeMeta } from '../../contracts/schemas/envelope.ts';
import { limitQuery, offsetQuery } from '../../contracts/schemas/params.ts';
import { SCOPE_DESCRIPTIONS } from '../../contracts/scopes.ts';
import { TIMESTAMP_WINDOW_SECONDS } from '../auth/auth-plugin.ts';
import { IDEMPOTENCY_KEY_PATTERN } from '../idempotency/idempotency-plugin.ts';
import {
  CACHE_POLICIES,
  SMALL_BODY_LIMIT,
  type AnyJsonOperation,
  type Operation,
  type RegisteredOperation,
} from '../routes/operation.ts';
import { META_SCHEMAS, REQUEST_SCHEMAS, RESOURCE_SCHEMAS } from './components.ts';
import { operationId } from '../routes/operation-id.ts';

export { operationId };
import { schemaRef, toJsonSchemas, type JsonSchema } from './json-schema.ts';

/**
 * The OpenAPI 3.1 document of /v1, built from the operation definitions (server/routes/v1/*.ts) and the zod
 * schemas they validate with: closed request bodies, every format rule, `components` reused by `$ref`, the
 * response headers of each answer, and the signing scheme in `x-signing`. Served by openapi-plugin.ts.
 */

// ---------------------------------------------------------------- signing (spec 01 § Authentication)

const STRING_TO_SIGN = '{timestamp}.{method} {path_and_query}\n{body}';

/** Worked examples any implementation can check itself against (the secret is made up): a GET with a query, a POST with a body. */
function signingExamples(): Array<Record<string, string>> {
  const api_secret = '3f1a9c0e5b7d2486a1c3e5f7092b4d6f8a0c2e4b6d8f1a3c5e7092b4d6f8a0c2';
  const requests = [
    { method: 'GET', path_and_query: '/v1/pacientes?nome=SILVA&limit=10', body: '' },
    { method: 'POST', path_and_query: '/v1/ping', body: '{"teste":"ola"}' },
  ];
  return requests.map((request) => {
    const example = { api_secret, timestamp: '1767225600', ...request };
    const stringToSign = `${example.timestamp}.${example.method} ${example.path_and_query}\n${example.body}`;
    return {
      ...example,
      string_to_sign: stringToSign,
      signature: createHmac('sha256', api_secret).update(stringToSign, 'utf8').digest('hex'),
    };
  });
}

const STATIC_SIGNATURE_NOTE =
  'X-Signature is computed per request (it covers the timestamp, the method, the target and the body): a fixed value, ' +
  'such as one typed once into a documentation tool, can never work. Sign each request in code (docs/api/README-signing.md, served at /docs/signing).';

/** The signing scheme, machine-readable: what a client (or a documentation tool) needs to sign a request. */
export function signingExtension(): Record<string, unknown> {
  return {
    algorithm: 'HMAC-SHA256',
    key: 'api_secret (64 hex characters, used as the UTF-8 bytes of the text, not hex-decoded)',
    signature_encoding: 'hex, lowercase, 64 characters',
    string_to_sign: STRING_TO_SIGN,
    parts: {
      timestamp: 'the X-Timestamp header value: Unix epoch seconds, integer',
      method: 'the HTTP method, upper case',
      path_and_query: 'the request target exactly as sent (path and query string, percent-encoding as sent)',
      body: 'the exact body bytes sent; empty for GET (the string to sign then ends with the line feed)',
    },
    headers: { api_key: 'X-API-Key', timestamp: 'X-Timestamp', signature: 'X-Signature' },
    timestamp_window_seconds: TIMESTAMP_WINDOW_SECONDS,
    static_signature: false,
    note: STATIC_SIGNATURE_NOTE,
    guide: 'docs/api/README-signing.md',
    guide_url: '/docs/signing',
    examples: signingExamples(),
  };
}

const SIGNING = [
  'Every /v1 call is signed with HMAC-SHA256 (no session, no bearer token); the scheme is machine-readable in `x-signing`.',
  '',
  '1. Send `X-API-Key`, `X-Timestamp` (Unix epoch seconds, within +/-300 s of the server clock) and `X-Signature`.',
  '2. Payload = `<timestamp>` + `.` + `<METHOD>` + one space + `<path_and_query>` + one line feed (LF) + `<raw body>`.',
  '   `path_and_query` is the request target exactly as sent, query string included; the body is the exact bytes sent',
  '   (empty for GET, so the payload ends with the LF).',
  '3. `X-Signature` = lowercase hex of HMAC-SHA256(payload, api_secret), 64 characters.',
  '',
  'Example (shell): `printf \'%s.%s %s\\n%s\' "$TS" GET "/v1/ping" "" | openssl dgst -sha256 -hmac "$SECRET" -hex`.',
  'Writes also need `Content-Type: application/json` and an `Idempotency-Key`. Guides served by this gateway:',
  '[signing](/docs/signing) (docs/api/README-signing.md) and [typed clients](/docs/clients) (docs/api/clients.md: TypeScript',
  'types from this document, Python, PHP, C#, Java). In development mode the /docs page signs "Try it out" itself.',
  '',
  STATIC_SIGNATURE_NOTE,
].join('\n');

const DESCRIPTION = [
  'Multi-tenant HTTP/JSON gateway for clinic systems. Every response except the 302 file redirects is the envelope',
  '`{data, meta, error}`: `data` is null on errors, `meta.request_id` identifies the call, `error` is',
  '`{code, message, details}` with a stable `code` (component `ErrorEnvelope`, `details` typed per code).',
  '',
  'Request bodies are closed: a field the schema does not name is refused with 400 `VAL_INVALID_PARAM`, except the',
  'fields the spec says are silently discarded, which are listed (`x-discarded-fields`). Fields the spec blocks are',
  'not offered (`x-blocked-fields` names them). Query strings are closed the same way: a parameter an operation does not',
  'list is a 400. Rules no JSON Schema keyword can state are given in the `description`',
  'and in `x-` keywords: `x-date-range`, `x-normalized-length`, `x-equal-ignoring-case`, `x-not-before`, `x-tenant-required`.',
  '',
  SIGNING,
].join('\n');

// ---------------------------------------------------------------- tags

const TAG_DESCRIPTIONS: Record<string, string> = {
  Saude: 'Ping e capacidades: qualquer chave valida, sem escopo.',
  Pacientes: 'Pacientes: lista, detalhe, criacao, atualizacao parcial, unificacao. Sem filtro de medico.',
  Catalogos: 'Catalogos somente leitura (cacheaveis 5 minutos) e leitura de medicos.',
  Medicos: 'Criacao e atualizacao de medicos (usuarios do sistema).',
  Exames: 'Exames: lista, detalhe, arquivo (302), criacao com aliases e defaults, exclusao.',
  Laudos: 'Laudos: lista, detalhe, arquivo (302), recebimento do laudo assinado.',
  Agenda: 'Agendamentos de um paciente, horarios livres, agendas; criar, cancelar, reagendar.',
  Prontuarios: 'Registros de prontuario e anexos de um paciente.',
};

// ---------------------------------------------------------------- error codes

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

/** `ErrorEnvelope`, `Error` (one variant per `details` shape) and the details components. */
function errorComponents(details: Record<string, JsonSchema>): Record<string, JsonSchema> {
  const variants = ERROR_DETAILS.map((group) => ({
    type: 'object',
    properties: {
      code: { type: 'string', enum: group.codes },
      message: { type: 'string', description: 'Portugues, sem acentos.' },
      details: { $ref: schemaRef(group.name) },
    },
    required: ['code', 'message', 'details'],
  }));
  return {
    ...details,
    Error: {
      description: '`code` e o identificador estavel (codigos da spec); `details` tem a forma do seu codigo.',
      oneOf: variants,
    },
    ErrorCode: {
      type: 'string',
      enum: API_ERROR_CODES,
      description: 'Todos os codigos de erro da API v1, com o status HTTP em `x-http-status`.',
      'x-http-status': API_ERROR_STATUS,
    },
    ErrorEnvelope: {
      type: 'object',
      properties: { data: { type: 'null' }, meta: { $ref: schemaRef('Meta') }, error: { $ref: schemaRef('Error') } },
      required: ['data', 'meta', 'error'],
    },
  };
}

// ---------------------------------------------------------------- headers

const header = (description: string, schema: JsonSchema) => ({ description, required: true, schema });

const HEADERS: Record<string, JsonSchema> = {
  'X-Api-Version': header('Contrato: sempre `v1`.', { type: 'string', const: 'v1' }),
  'X-Api-Release': header('Release semantica do gateway.', { type: 'string' }),
  'X-Content-Type-Options': header('Sempre `nosniff`.', { type: 'string', const: 'nosniff' }),
  'Cache-Control-NoStore': header('Nao guardar em cache.', { type: 'string', const: CACHE_POLICIES['no-store'] }),
  'Cache-Control-Private5min': header('Cacheavel 5 minutos pelo cliente (config e catalogos).', {
    type: 'string',
    const: CACHE_POLICIES['private-5min'],
  }),
  'X-Request-Id': header('Em escritas: o mesmo `meta.request_id`.', { type: 'string', pattern: '^[0-9a-f]+$' }),
  'Idempotency-Key': header('A Idempotency-Key da requisicao, ecoada.', {
    type: 'string',
    pattern: IDEMPOTENCY_KEY_PATTERN.source,
  }),
  'Idempotency-Replay': header('`true` numa repeticao guardada (mesma chave e corpo), `false` na primeira execucao.', {
    type: 'string',
    enum: ['true', 'false'],
  }),
  'X-RateLimit-Limit': header('Requisicoes por minuto da chave.', { type: 'string', pattern: '^[0-9]+$' }),
  'X-RateLimit-Remaining': header('Requisicoes restantes agora.', { type: 'string', pattern: '^[0-9]+$' }),
  'Retry-After': header('Segundos a esperar antes de tentar de novo.', { type: 'string', pattern: '^[0-9]+$' }),
  Location: header('Caminho do recurso criado (ver `links`).', { type: 'string', pattern: '^/v1/' }),
  'Location-Presigned': header(
    'URL pre-assinada do arquivo, valida 300 s, de uso unico: nao guardar, nao assinar com HMAC.',
    { type: 'string', format: 'uri' },
  ),
};

type HeaderUse = [name: string, component: string, required: boolean];

const headerRef = (component: string, required: boolean) =>
  required ? { $ref: `#/components/headers/${component}` } : { ...HEADERS[component], required: false };

function headersOf(uses: HeaderUse[]): Record<string, JsonSchema> {
  // Components are declared required; an optional use repeats the header inline with `required: false`.
  return Object.fromEntries(uses.map(([name, component, required]) => [name, headerRef(component, required)]));
}

const isWrite = (op: Operation) => op.method !== 'GET';

function commonHeaders(op: Operation, cacheable: boolean): HeaderUse[] {
  return [
    ['X-Api-Version', 'X-Api-Version', true],
    ['X-Api-Release', 'X-Api-Release', true],
    ['X-Content-Type-Options', 'X-Content-Type-Options', true],
    [
      'Cache-Control',
      cacheable && op.cache === 'private-5min' ? 'Cache-Control-Private5min' : 'Cache-Control-NoStore',
      true,
    ],
    ...(isWrite(op) ? ([['X-Request-Id', 'X-Request-Id', true]] as HeaderUse[]) : []),
  ];
}

function successHeaders(op: Operation): HeaderUse[] {
  const uses = commonHeaders(op, true);
  uses.push(['X-RateLimit-Limit', 'X-RateLimit-Limit', true], ['X-RateLimit-Remaining', 'X-RateLimit-Remaining', true]);
  if (op.idempotent)
    uses.push(['Idempotency-Key', 'Idempotency-Key', true], ['Idempotency-Replay', 'Idempotency-Replay', true]);
  if (op.response.status === 201) uses.push(['Location', 'Location', true]);
  if (op.response.status === 302) uses.push(['Location', 'Location-Presigned', true]);
  return uses;
}

/** Codes always answered with `Retry-After`, and codes that may carry it (a backend or storage 503). */
const RETRY_AFTER_ALWAYS = new Set<ApiErrorCode>(['CONCURRENT_REQUEST', 'RATE_LIMIT_EXCEEDED']);
const RETRY_AFTER_SOMETIMES = new Set<ApiErrorCode>(['SERVICE_UNAVAILABLE']);

function errorHeaders(op: Operation, status: number, codes: ApiErrorCode[]): HeaderUse[] {
  const uses = commonHeaders(op, false);
  if (codes.every((code) => RETRY_AFTER_ALWAYS.has(code))) uses.push(['Retry-After', 'Retry-After', true]);
  else if (codes.some((code) => RETRY_AFTER_ALWAYS.has(code) || RETRY_AFTER_SOMETIMES.has(code)))
    uses.push(['Retry-After', 'Retry-After', false]);
  if (status === 429)
    uses.push(
      ['X-RateLimit-Limit', 'X-RateLimit-Limit', false],
      ['X-RateLimit-Remaining', 'X-RateLimit-Remaining', false],
    );
  return uses;
}

// ---------------------------------------------------------------- operations

/** `/v1/pacientes/:id` → `/v1/pacientes/{id}`. */
export const openApiPath = (path: string): string => path.replace(/:(\w+)/g, '{$1}');

function describe(op: Operation, codes: ApiErrorCode[]): string {
  const access = op.public
    ? 'Scope: none (any valid key).'
    : `Scope: \`${op.scope}\` (${SCOPE_DESCRIPTIONS[op.scope!]}).`;
  const lines = [access];
  if (op.idempotent)
    lines.push(
      'Write under the idempotency contract: `Idempotency-Key` required, replay with the original status for 24 h.',
    );
  if (op.description) lines.push('', op.description);
  lines.push('', `Error codes: ${codes.map((c) => `\`${c}\``).join(', ')}.`);
  return lines.join('\n');
}

const json = (op: Operation) => (op.response.status === 302 ? null : (op as AnyJsonOperation));

/** Schemas named by identity: a schema listed in components is a `$ref`, any other one gets a private name. */
class SchemaNames {
  readonly named = new Map<z.ZodType, string>();
  readonly schemas = new Map<string, z.ZodType>();
  private counter = 0;
  constructor(entries: ReadonlyArray<[string, z.ZodType]>) {
    for (const [name, schema] of entries) this.add(name, schema);
  }
  private add(name: string, schema: z.ZodType): string {
    this.named.set(schema, name);
    this.schemas.set(name, schema);
    return name;
  }
  nameOf(schema: z.ZodType): string {
    return this.named.get(schema) ?? this.add(`__private${this.counter++}`, schema);
  }
}

const isPrivate = (name: string) => name.startsWith('__private');

/** A named schema by `$ref`; a private one (an operation's own list, query or path object) inline. */
const use = (name: string, converted: Record<string, JsonSchema>): JsonSchema =>
  isPrivate(name) ? converted[name] : { $ref: schemaRef(name) };

interface Converted {
  input: Record<string, JsonSchema>;
  output: Record<string, JsonSchema>;
}

/** A property schema as a parameter: its description on the parameter, arrays as repeated parameters. */
function parameter(name: string, location: 'path' | 'query', schema: JsonSchema, required: boolean): JsonSchema {
  const { description, ...rest } = schema;
  return {
    name,
    in: location,
    required,
    ...(description ? { description } : {}),
    schema: rest,
    ...(rest.type === 'array' ? { style: 'form', explode: true } : {}),
  };
}

function parametersOf(op: Operation, names: { input: SchemaNames }, converted: Converted): JsonSchema[] {
  const out: JsonSchema[] = [];
  if (op.params) {
    const schema = converted.input[names.input.nameOf(op.params)];
    for (const [name, property] of Object.entries<JsonSchema>(schema.properties ?? {}))
      out.push(parameter(name, 'path', property, true));
  }
  if (op.query) {
    const schema = converted.input[names.input.nameOf(op.query)];
    const shape = (op.query as unknown as { _zod: { def: { shape: Record<string, unknown> } } })._zod.def.shape;
    const notBefore: Record<string, string> = schema['x-not-before'] ?? {};
    for (const [name, property] of Object.entries<JsonSchema>(schema.properties ?? {})) {
      if (shape[name] === limitQuery) out.push({ $ref: '#/components/parameters/limit' });
      else if (shape[name] === offsetQuery) out.push({ $ref: '#/components/parameters/offset' });
      else {
        const param = parameter(name, 'query', property, (schema.required ?? []).includes(name));
        if (notBefore[name]) {
          param['x-not-before'] = notBefore[name];
          param.description =
            `${param.description ?? ''} Igual ou posterior a \`${notBefore[name]}\` quando os dois sao enviados (x-not-before).`.trim();
        }
        out.push(param);
      }
    }
  }
  if (op.idempotent) out.push({ $ref: '#/components/parameters/Idempotency-Key' });
  return out;
}

function requestBodyOf(op: Operation, names: { input: SchemaNames }, converted: Converted): JsonSchema | undefined {
  const limit = op.bodyLimit ?? SMALL_BODY_LIMIT;
  if (op.body) {
    return {
      required: true,
      content: {
        'application/json': {
          schema: use(names.input.nameOf(op.body), converted.input),
          ...(op.example?.body !== undefined ? { example: op.example.body } : {}),
        },
      },
      'x-max-body-bytes': limit,
    };
  }
  if (op.method === 'GET') return undefined;
  // A write without a body schema (POST /v1/ping): any JSON value, or no body at all.
  return {
    required: false,
    description: `Qualquer valor JSON de ate ${limit} bytes (acima: 413 VAL_INVALID_PARAM), ou nenhum corpo.`,
    content: {
      'application/json': {
        schema: { description: `Qualquer valor JSON (ate ${limit} bytes).` },
        ...(op.example?.body !== undefined ? { example: op.example.body } : {}),
      },
    },
    'x-max-body-bytes': limit,
  };
}

function metaOf(op: AnyJsonOperation, metaNames: Map<z.ZodType, string>): JsonSchema {
  const parts = [schemaRef('Meta')];
  const extra = [
    ...(op.response.paginated ? [paginationMeta] : []),
    ...(op.idempotent ? [writeMeta] : []),
    ...(op.response.meta ?? []),
  ];
  for (const schema of extra) {
    const name = metaNames.get(schema);
    if (!name) throw new Error(`${op.method} ${op.url}: meta schema not named in META_SCHEMAS`);
    parts.push(schemaRef(name));
  }
  return parts.length === 1 ? { $ref: parts[0] } : { allOf: parts.map(($ref) => ({ $ref })) };
}

function responsesOf(
  op: Operation,
  codes: ApiErrorCode[],
  names: { output: SchemaNames },
  converted: Converted,
  metaNames: Map<z.ZodType, string>,
  byUrl: Map<string, Operation>,
): JsonSchema {
  const responses: Record<string, JsonSchema> = {};
  const success = json(op);
  if (!success) {
    responses['302'] = {
      description:
        'Redireciona para a URL pre-assinada do arquivo (valida 300 s). Corpo vazio; nao guardar em cache, nao reassinar.',
      headers: headersOf(successHeaders(op)),
    };
  } else {
    const { status, data, read } = success.response;
    const response: JsonSchema = {
      description: status === 201 ? 'Criado: `Location` aponta o recurso (ver `links`).' : 'Sucesso.',
      headers: headersOf(successHeaders(op)),
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: {
              data: use(names.output.nameOf(data), converted.output),
              meta: metaOf(success, metaNames),
              error: { type: 'null' },
            },
            required: ['data', 'meta', 'error'],
          },
        },
      },
    };
    if (read) {
      const target = byUrl.get(`GET ${read.url}`);
      if (!target) throw new Error(`${op.method} ${op.url}: read.url ${read.url} is not a GET operation`);
      response.links = {
        read: {
          operationId: operationId('GET', `/v1${read.url}`),
          parameters: read.parameters,
          description: 'Le o recurso criado.',
        },
      };
    }
    responses[String(status)] = response;
  }
  const byStatus = new Map<number, ApiErrorCode[]>();
  for (const code of codes)
    byStatus.set(API_ERROR_STATUS[code], [...(byStatus.get(API_ERROR_STATUS[code]) ?? []), code]);
  if (op.body || op.method !== 'GET') byStatus.set(413, ['VAL_INVALID_PARAM']);
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description:
        status === 413
          ? `VAL_INVALID_PARAM: corpo acima de ${op.bodyLimit ?? SMALL_BODY_LIMIT} bytes.`
          : list.join(', '),
      headers: headersOf(errorHeaders(op, status, list)),
      content: {
        'application/json': {
          schema: {
            allOf: [
              { $ref: schemaRef('ErrorEnvelope') },
              { type: 'object', properties: { error: { type: 'object', properties: { code: { enum: list } } } } },
            ],
          },
        },
      },
    };
  }
  return responses;
}

/**
 * Error answers shared by several operations (same status, codes and headers) move to `components.responses`:
 * `Error401`, `Error401Write` (writes add X-Request-Id), `Error404_2` for a second distinct variant, and so on.
 */
function shareErrorResponses(paths: Record<string, Record<string, JsonSchema>>): Record<string, JsonSchema> {
  const uses = new Map<string, { status: string; write: boolean; response: JsonSchema; count: number }>();
  const each = (
    visit: (status: string, write: boolean, response: JsonSchema, key: string, holder: JsonSchema) => void,
  ) => {
    for (const item of Object.values(paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [status, response] of Object.entries<JsonSchema>(operation.responses)) {
          if (Number(status) >= 400)
            visit(status, method !== 'get', response, JSON.stringify(response), operation.responses);
        }
      }
    }
  };
  each((status, write, response, key) => {
    const use = uses.get(key) ?? { status, write, response, count: 0 };
    use.count++;
    uses.set(key, use);
  });
  const names = new Map<string, string>();
  const taken = new Map<string, number>();
  for (const [key, use] of uses) {
    if (use.count < 2) continue;
    const base = `Error${use.status}${use.write ? 'Write' : ''}`;
    const n = (taken.get(base) ?? 0) + 1;
    taken.set(base, n);
    names.set(key, n === 1 ? base : `${base}_${n}`);
  }
  each((status, _write, _response, key, holder) => {
    const name = names.get(key);
    if (name) holder[status] = { $ref: `#/components/responses/${name}` };
  });
  return Object.fromEntries(
    [...uses].filter(([key]) => names.has(key)).map(([key, use]) => [names.get(key)!, use.response]),
  );
}

export interface DocumentOptions {
  release: string;
  operations: readonly RegisteredOperation[];
}

export function buildOpenApiDocument({ release, operations }: DocumentOptions): JsonSchema {
  const names = { input: new SchemaNames(REQUEST_SCHEMAS), output: new SchemaNames(RESOURCE_SCHEMAS) };
  const metaNames = new Map(META_SCHEMAS.map(([name, schema]) => [schema, name]));
  // Name every schema the operations use first, then convert each direction at once.
  for (const { operation: op } of operations) {
    if (op.params) names.input.nameOf(op.params);
    if (op.query) names.input.nameOf(op.query);
    if (op.body) names.input.nameOf(op.body);
    const success = json(op);
    if (success) names.output.nameOf(success.response.data);
  }
  const converted: Converted = {
    input: toJsonSchemas(names.input.schemas, 'input'),
    output: toJsonSchemas(names.output.schemas, 'output'),
  };
  const pagination = toJsonSchemas(
    new Map<string, z.ZodType>([
      ['limit', limitQuery],
      ['offset', offsetQuery],
    ]),
    'input',
  );
  const envelope = toJsonSchemas(
    new Map([...META_SCHEMAS, ...ERROR_DETAILS.map((g) => [g.name, g.details] as [string, z.ZodType])]),
    'input',
  );
  const leaked = JSON.stringify({ ...converted.input, ...converted.output }).match(
    /#\/components\/schemas\/__private\d+/,
  );
  if (leaked) throw new Error(`OpenAPI: a private schema is referenced (${leaked[0]})`);

  const byUrl = new Map(operations.map(({ operation }) => [`${operation.method} ${operation.url}`, operation]));
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const tags: string[] = [];
  for (const { path, operation: op } of operations) {
    const codes = operationErrorCodes(op);
    for (const tag of op.tags) if (!tags.includes(tag)) tags.push(tag);
    const requestBody = requestBodyOf(op, names, converted);
    const pathItem = openApiPath(path);
    paths[pathItem] ??= {};
    paths[pathItem][op.method.toLowerCase()] = {
      operationId: operationId(op.method, path),
      summary: op.summary,
      description: describe(op, codes),
      tags: op.tags,
      security: [{ ApiKey: [], Timestamp: [], Signature: [] }],
      parameters: parametersOf(op, names, converted),
      ...(requestBody ? { requestBody } : {}),
      responses: responsesOf(op, codes, names, converted, metaNames, byUrl),
      'x-scope': op.public ? null : op.scope,
      'x-error-codes': codes,
      'x-idempotent': op.idempotent ?? false,
    };
  }

  const responses = shareErrorResponses(paths);
  const publicSchemas = (all: Record<string, JsonSchema>) =>
    Object.fromEntries(Object.entries(all).filter(([name]) => !isPrivate(name)));
  return {
    openapi: '3.1.0',
    info: { title: 'Clinic Exams Gateway API', version: release, description: DESCRIPTION },
    servers: [
      { url: '/', description: 'Este appliance: a mesma origem que serve este documento.' },
      { url: 'http://localhost:8080', description: 'Appliance local com a porta padrao (npm start).' },
    ],
    tags: tags.map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? name })),
    security: [{ ApiKey: [], Timestamp: [], Signature: [] }],
    paths,
    components: {
      schemas: { ...publicSchemas(converted.input), ...publicSchemas(converted.output), ...errorComponents(envelope) },
      responses,
      parameters: {
        limit: parameter('limit', 'query', pagination.limit, false),
        offset: parameter('offset', 'query', pagination.offset, false),
        'Idempotency-Key': {
          name: 'Idempotency-Key',
          in: 'header',
          required: true,
          description:
            'Uma chave por escrita logica (UUID v4 recomendado): mesma chave e mesmo corpo repetem o primeiro resultado por 24 h.',
          schema: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' },
        },
      },
      headers: HEADERS,
      securitySchemes: {
        ApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description: 'Public key id: `<prefix>_live_` + 32 lowercase hex.',
        },
        Timestamp: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Timestamp',
          description: 'Unix epoch seconds; +/-300 s window. A fresh value per request.',
        },
        Signature: { type: 'apiKey', in: 'header', name: 'X-Signature', description: SIGNING },
      },
    },
    'x-signing': signingExtension(),
  };
}
