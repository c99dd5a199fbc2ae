import type { z } from 'zod';
import { API_ERROR_STATUS, type ApiErrorCode } from '../../contracts/errors.ts';
import { emptyQuery } from '../../contracts/schemas/params.ts';
import { ERROR_DETAILS, meta, paginationMeta, writeMeta } from '../../contracts/schemas/envelope.ts';
import { operationErrorCodes } from '../openapi/document.ts';
import { CACHE_POLICIES, SMALL_BODY_LIMIT, type AnyJsonOperation, type Operation } from '../routes/operation.ts';
import { operationId } from '../routes/operation-id.ts';
import { leaves } from '../http/zod-leaves.ts';

/**
 * The contract guard's checks (issue 33, docs/contract-guard.md): one operation's request and the upstream's answer,
 * each measured against the same zod definitions the appliance serves and publishes as OpenAPI. Pure functions: no
 * Fastify, no I/O. A violation names the operation (its OpenAPI operationId), the rule (a path into the operation's
 * contract, `responses.201.headers.Location`, `request.body.nome`) and what was seen, described without the value
 * itself (its type and size, a status, a contract code), so a violation carries no patient data and no secret.
 */

export interface ContractViolation {
  /** The OpenAPI operationId (`getPacientesById`), as the metrics' `operation` label. */
  operation: string;
  /** Where the contract says it: `request.…` or `responses.<status>.…`, array items as `[]`. */
  rule: string;
  /** What was seen instead, redacted: a type, a size, a status or a code of the contract; never the value. */
  seen: string;
}

const WRITE_METHODS = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);
/** Wire names of the headers the rules quote (the spec's spelling). */
const HEADER_NAMES: Record<string, string> = {
  'x-api-version': 'X-Api-Version',
  'x-request-id': 'X-Request-Id',
  'idempotency-replay': 'Idempotency-Replay',
  'cache-control': 'Cache-Control',
  location: 'Location',
  'content-type': 'Content-Type',
  'x-api-key': 'X-API-Key',
  'x-timestamp': 'X-Timestamp',
  'x-signature': 'X-Signature',
  'idempotency-key': 'Idempotency-Key',
};
const IDEMPOTENCY_KEY = /^[A-Za-z0-9_-]{1,64}$/;
const JSON_TYPE = /^application\/json\s*(;|$)/i;

export type Headers = Record<string, string | string[] | undefined>;

const headerValue = (headers: Headers, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** A value described by its kind and size, never its content (the journal's redaction, by construction). */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'absent';
  if (value === null) return 'null';
  if (typeof value === 'string') return `string of ${value.length} characters`;
  if (Array.isArray(value)) return `array of ${value.length}`;
  if (typeof value === 'object') return `object of ${Object.keys(value).length} keys`;
  return typeof value;
}

/** A code as seen: a contract-shaped code is vocabulary and shown; anything else is described. */
const describeCode = (code: unknown): string =>
  typeof code === 'string' && /^[A-Z][A-Z0-9_]{0,63}$/.test(code) ? code : describeValue(code);

/** A schema path: array items as `[]`; a key outside the contract's own names (a record's key) as `*`. */
const pathOf = (segments: ReadonlyArray<PropertyKey>): string =>
  segments
    .map((segment) =>
      typeof segment === 'number'
        ? '[]'
        : /^[a-z_][a-z0-9_]{0,63}$/i.test(String(segment))
          ? `.${String(segment)}`
          : '.*',
    )
    .join('')
    .replace(/^\./, '');

/** The index of the first key of `path` no object of the schema declares there (-1: every key is declared). */
function undeclaredAt(schema: unknown, path: ReadonlyArray<PropertyKey>): number {
  let current: unknown[] = [schema];
  for (let i = 0; i < path.length; i++) {
    const segment = path[i];
    const defs = current.flatMap((s) => leaves(s));
    if (typeof segment === 'number') {
      current = defs.flatMap((def) => (def.type === 'array' ? [def.element] : []));
      continue;
    }
    const objects = defs.filter((def) => def.type === 'object' && def.shape);
    if (objects.length === 0) return -1;
    const next = objects.flatMap((def) => (Object.hasOwn(def.shape!, segment) ? [def.shape![segment as string]] : []));
    if (next.length === 0) return i;
    current = next;
  }
  return -1;
}

function valueAt(root: unknown, segments: ReadonlyArray<PropertyKey>): unknown {
  let current = root;
  for (const segment of segments) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}

/** Each zod issue as a violation under `prefix`: the value's kind and zod's wording (which never quotes the value). */
function schemaViolations(operation: string, prefix: string, schema: z.ZodType, value: unknown): ContractViolation[] {
  const result = schema.safeParse(value);
  if (result.success) return [];
  const seen = new Map<string, ContractViolation>();
  for (const issue of result.error.issues) {
    // Unknown keys: the object's `additionalProperties` (the OpenAPI keyword), counted, never named (a key sent is
    // the caller's text, and naming it would give the rules no bound). A strict object reports them in one issue at
    // its own path; an object closed by a catchall, one issue at each key's path, which the schema does not declare.
    const undeclared = issue.code === 'unrecognized_keys' ? -1 : undeclaredAt(schema, issue.path);
    const unknown = issue.code === 'unrecognized_keys' || undeclared >= 0;
    const segments = undeclared >= 0 ? issue.path.slice(0, undeclared) : issue.path;
    const where = pathOf(segments);
    const base = where ? (where.startsWith('[') ? `${prefix}${where}` : `${prefix}.${where}`) : prefix;
    const rule = unknown ? `${base}.additionalProperties` : base;
    if (seen.has(rule)) continue;
    seen.set(rule, {
      operation,
      rule,
      seen: unknown
        ? `${issue.code === 'unrecognized_keys' ? issue.keys.length : 1} key(s) not in the contract`
        : `${describeValue(valueAt(value, issue.path))}: ${issue.message}`.slice(0, 160),
    });
  }
  return [...seen.values()];
}

// ---------------------------------------------------------------- requests

export interface ProxiedRequest {
  method: string;
  headers: Headers;
  params: unknown;
  query: unknown;
  /** Raw bytes as received (forwarded untouched). */
  rawBody: Buffer;
  /** The body parsed as JSON, when it is (undefined: none or not JSON). */
  body: unknown;
  /** Whether `rawBody` failed to parse as JSON. */
  bodyNotJson: boolean;
  /** Pass-through: the caller's own signing headers are checked too (re-sign mode's were verified already). */
  signingHeaders: boolean;
}

/** What the request does outside the operation's contract: required headers, format rules, body limit. */
export function checkRequest(op: Operation, request: ProxiedRequest): ContractViolation[] {
  const id = operationId(op.method, `/v1${op.url}`);
  const out: ContractViolation[] = [];
  const headers = request.headers;
  if (request.signingHeaders) {
    for (const name of ['x-api-key', 'x-timestamp', 'x-signature']) {
      if (!headerValue(headers, name))
        out.push({ operation: id, rule: `request.headers.${HEADER_NAMES[name]}`, seen: 'absent' });
    }
  }
  if (op.idempotent) {
    const key = headerValue(headers, 'idempotency-key');
    if (key === undefined || !IDEMPOTENCY_KEY.test(key))
      out.push({ operation: id, rule: 'request.headers.Idempotency-Key', seen: describeValue(key) });
  }
  const limit = op.bodyLimit ?? SMALL_BODY_LIMIT;
  if (request.rawBody.length > limit)
    out.push({ operation: id, rule: 'request.body.x-max-body-bytes', seen: `${request.rawBody.length} bytes` });
  if (request.rawBody.length > 0) {
    const type = headerValue(headers, 'content-type');
    if (type === undefined || !JSON_TYPE.test(type))
      out.push({ operation: id, rule: 'request.headers.Content-Type', seen: describeValue(type) });
  }
  if (op.params) out.push(...schemaViolations(id, 'request.params', op.params, request.params));
  out.push(...schemaViolations(id, 'request.query', op.query ?? emptyQuery, request.query ?? {}));
  if (request.bodyNotJson) out.push({ operation: id, rule: 'request.body', seen: 'not JSON' });
  else if (op.body && request.method !== 'GET')
    out.push(...schemaViolations(id, 'request.body', op.body, request.body));
  return out;
}

// ---------------------------------------------------------------- answers

export interface UpstreamAnswer {
  status: number;
  headers: Headers;
  /** Parsed JSON body; undefined for an empty body (a 302). */
  body: unknown;
}

/** Statuses each error code of the contract is answered with (a body over the limit is VAL_INVALID_PARAM's 413). */
function statusesOf(code: ApiErrorCode): number[] {
  return code === 'VAL_INVALID_PARAM' ? [API_ERROR_STATUS[code], 413] : [API_ERROR_STATUS[code]];
}

const DETAILS_BY_CODE = new Map<string, z.ZodType>(
  ERROR_DETAILS.flatMap((group) => group.codes.map((code) => [code, group.details] as const)),
);

/** Per operation, computed once: its codes and the statuses they allow. */
const allowedCache = new WeakMap<Operation, { codes: Set<string>; statuses: Set<number> }>();
function allowedErrors(op: Operation): { codes: Set<string>; statuses: Set<number> } {
  let allowed = allowedCache.get(op);
  if (!allowed) {
    const codes = operationErrorCodes(op);
    allowed = { codes: new Set(codes), statuses: new Set(codes.flatMap(statusesOf)) };
    allowedCache.set(op, allowed);
  }
  return allowed;
}

/** The upstream's answer against the operation's contract: status, envelope, headers, `data`, `meta`, error codes. */
export function checkAnswer(op: Operation, answer: UpstreamAnswer): ContractViolation[] {
  const id = operationId(op.method, `/v1${op.url}`);
  const out: ContractViolation[] = [];
  const { status, headers } = answer;
  const at = `responses.${status}`;
  const success = op.response.status;
  const missingHeader = (name: string, expected?: (value: string) => boolean) => {
    const value = headerValue(headers, name);
    if (value === undefined || (expected && !expected(value)))
      out.push({ operation: id, rule: `${at}.headers.${HEADER_NAMES[name]}`, seen: describeValue(value) });
  };

  missingHeader('x-api-version', (value) => value === 'v1');
  if (WRITE_METHODS.has(op.method)) missingHeader('x-request-id');

  if (status < 400 && status !== success) {
    out.push({ operation: id, rule: 'responses.status', seen: String(status) });
    return out;
  }
  if (status >= 400 && !allowedErrors(op).statuses.has(status)) {
    out.push({ operation: id, rule: 'responses.status', seen: String(status) });
  }

  if (status === 302) {
    missingHeader('location');
    missingHeader('cache-control', (value) => value === 'no-store');
    return out;
  }
  missingHeader('content-type', (value) => JSON_TYPE.test(value));
  const body = answer.body as Record<string, unknown> | null | undefined;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    out.push({ operation: id, rule: `${at}.envelope`, seen: describeValue(body) });
    return out;
  }
  for (const key of ['data', 'meta', 'error']) {
    if (!Object.hasOwn(body, key)) out.push({ operation: id, rule: `${at}.envelope.${key}`, seen: 'absent' });
  }
  out.push(...schemaViolations(id, `${at}.meta`, meta, body.meta));

  if (status >= 400) {
    missingHeader('cache-control', (value) => value === 'no-store');
    if (body.data !== null && body.data !== undefined)
      out.push({ operation: id, rule: `${at}.data`, seen: `${describeValue(body.data)}: an error has data null` });
    const error = body.error as Record<string, unknown> | null | undefined;
    if (error === null || typeof error !== 'object') {
      out.push({ operation: id, rule: `${at}.error`, seen: describeValue(error) });
      return out;
    }
    const code = error.code;
    const known = typeof code === 'string' && Object.hasOwn(API_ERROR_STATUS, code);
    if (!known || !allowedErrors(op).codes.has(code as string)) {
      out.push({ operation: id, rule: `${at}.error.code`, seen: describeCode(code) });
    } else if (!statusesOf(code as ApiErrorCode).includes(status)) {
      out.push({ operation: id, rule: `${at}.error.code`, seen: `${code} with status ${status}` });
    }
    if (typeof error.message !== 'string')
      out.push({ operation: id, rule: `${at}.error.message`, seen: describeValue(error.message) });
    const details = known ? DETAILS_BY_CODE.get(code as string) : undefined;
    if (!Object.hasOwn(error, 'details')) out.push({ operation: id, rule: `${at}.error.details`, seen: 'absent' });
    else if (details) out.push(...schemaViolations(id, `${at}.error.details`, details, error.details));
    return out;
  }

  // A success of the operation: its headers, `data` and `meta`.
  const json = op as AnyJsonOperation;
  missingHeader('cache-control', (value) => value === CACHE_POLICIES[op.cache ?? 'no-store']);
  if (success === 201) missingHeader('location');
  if (op.idempotent) missingHeader('idempotency-replay', (value) => value === 'true' || value === 'false');
  if (body.error !== null)
    out.push({ operation: id, rule: `${at}.error`, seen: `${describeValue(body.error)}: a success has error null` });
  out.push(...schemaViolations(id, `${at}.data`, json.response.data, body.data));
  const metaParts = [
    ...(json.response.paginated ? [paginationMeta] : []),
    ...(op.idempotent ? [writeMeta] : []),
    ...(json.response.meta ?? []),
  ];
  for (const part of metaParts) out.push(...schemaViolations(id, `${at}.meta`, part, body.meta));
  return out;
}
