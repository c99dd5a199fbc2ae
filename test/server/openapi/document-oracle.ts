import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import fc from 'fast-check';
import {
  mutated,
  near,
  normalizedLength,
  relativeDay,
  valid,
  wellFormed,
  type Json,
  type SchemaContext,
} from './schema-arbitrary.ts';

/**
 * Reads the served OpenAPI document the way an integrator's tooling would, without any gateway code: a
 * JSON Schema 2020-12 validator (ajv) decides whether a request is valid *according to the document*,
 * and whether an answer matches the response the document declares for its status. The document's own
 * `x-` keywords are implemented here from their published description.
 */

// ajv-formats is CommonJS: its default export is the plugin itself at runtime.
const addFormats = ((formatsPlugin as unknown as { default?: unknown }).default ?? formatsPlugin) as (
  ajv: Ajv2020,
  options: object,
) => void;

const DOC_ID = 'https://gateway.invalid/openapi.json';

/** CPF check digits, from the definition (11 digits, mod 11, not all equal). */
function isCpf(value: string): boolean {
  if (!/^[0-9]{11}$/.test(value) || /^(\d)\1{10}$/.test(value)) return false;
  const d = value.split('').map(Number);
  const check = (n: number) => {
    const r = (d.slice(0, n).reduce((acc, x, i) => acc + x * (n + 1 - i), 0) * 10) % 11;
    return r === 10 ? 0 : r;
  };
  return check(9) === d[9] && check(10) === d[10];
}

const typesOf = (schema: Json): string[] =>
  Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];

export interface Param {
  name: string;
  schema: Json;
  required: boolean;
  notBefore?: string;
}

export interface RequestModel {
  label: string;
  method: string;
  /** OpenAPI path template, `/v1/pacientes/{id}`. */
  path: string;
  operation: Json;
  pathParams: Param[];
  queryParams: Param[];
  idempotencyKey?: Param;
  body?: { schema: Json; required: boolean; maxBytes: number };
}

/** Stands for a new valid Idempotency-Key (a UUID drawn when the request is sent: a key is never reused). */
export const FRESH_KEY = 'fresh-key';

/** One generated request, as it goes on the wire. */
export interface Sample {
  path: Record<string, string>;
  query: Array<[string, string]>;
  /** `undefined`: no body at all. */
  body: unknown;
  idempotencyKey?: string | null;
  /** What the generator meant: `valid` or the mutation applied (for failure messages only; the verdict is the validator's). */
  intent: string;
}

export interface Verdict {
  valid: boolean;
  /**
   * Fields the document says a clinic may require (`x-tenant-required` with `when`): absent here, so a 400
   * `Obrigatorio (sem default no tenant).` naming only them is what the document announces.
   */
  clinicMayRequire: string[];
  /** 413 expected: the body is over the documented `x-max-body-bytes`. */
  tooLarge: boolean;
  why: string[];
}

export class DocumentOracle implements SchemaContext {
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();
  /** `data.defaults` of `GET /v1/config` for the calling key's clinic: what `x-tenant-required` defers to. */
  tenantDefaults: Record<string, number | null> = {};

  constructor(readonly doc: Json) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv, { mode: 'full', formats: ['date', 'date-time', 'uri'] });
    this.ajv.addFormat('cpf', { type: 'string', validate: isCpf });
    // The pattern next to it carries the rule (the gateway's own e-mail expression): the format is a hint.
    this.ajv.addFormat('email', true);
    this.ajv.addKeyword({
      keyword: 'x-date-range',
      type: 'string',
      schemaType: 'object',
      validate: (range: { minimum: string; maximum: string }, data: string) =>
        !/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(data) ||
        (data >= relativeDay(range.minimum) && data <= relativeDay(range.maximum)),
    });
    this.ajv.addKeyword({
      keyword: 'x-normalized-length',
      type: 'string',
      schemaType: 'object',
      validate: (bounds: { minimum: number; maximum: number }, data: string) =>
        normalizedLength(data) >= bounds.minimum && normalizedLength(data) <= bounds.maximum,
    });
    this.ajv.addKeyword({
      keyword: 'x-equal-ignoring-case',
      type: 'object',
      schemaType: 'array',
      validate: ([a, b]: string[], data: Record<string, unknown>) => {
        const [x, y] = [data[a], data[b]];
        return (
          !(typeof x === 'string' && x !== '' && typeof y === 'string' && y !== '') ||
          x.toUpperCase() === y.toUpperCase()
        );
      },
    });
    this.ajv.addSchema(doc, DOC_ID, undefined, false);
  }

  /** Follows local `$ref`s (`#/components/...`). */
  resolve = (node: Json): Json => {
    let at = node;
    for (let hops = 0; at && typeof at.$ref === 'string'; hops++) {
      if (hops > 20) throw new Error(`ref loop at ${at.$ref}`);
      at = at.$ref
        .slice(2)
        .split('/')
        .map((part: string) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
        .reduce((parent: Json | undefined, key: string) => parent?.[key], this.doc) as Json;
    }
    return at;
  };

  private validator(schema: Json): ValidateFunction {
    const key = JSON.stringify(schema);
    let fn = this.compiled.get(key);
    if (!fn) {
      fn = this.ajv.compile(absolutize(schema));
      this.compiled.set(key, fn);
    }
    return fn;
  }

  accepts = (schema: Json, value: unknown): boolean => this.validator(schema)(value) as boolean;

  /** Why `value` is refused by `schema`, or null when it is accepted. */
  refusal(schema: Json, value: unknown): string | null {
    const fn = this.validator(schema);
    if (fn(value)) return null;
    return this.ajv.errorsText(fn.errors, { separator: '; ' }).slice(0, 400);
  }

  /** One request model per documented operation. */
  requestModels(): RequestModel[] {
    const models: RequestModel[] = [];
    for (const [path, item] of Object.entries<Json>(this.doc.paths)) {
      for (const [method, operation] of Object.entries<Json>(item)) {
        const params = (operation.parameters ?? []).map(this.resolve) as Json[];
        const toParam = (p: Json): Param => ({
          name: p.name,
          schema: p.schema,
          required: Boolean(p.required),
          notBefore: p['x-not-before'],
        });
        const body = operation.requestBody;
        models.push({
          label: `${method.toUpperCase()} ${path}`,
          method: method.toUpperCase(),
          path,
          operation,
          pathParams: params.filter((p) => p.in === 'path').map(toParam),
          queryParams: params.filter((p) => p.in === 'query').map(toParam),
          idempotencyKey: params.filter((p) => p.in === 'header' && p.name === 'Idempotency-Key').map(toParam)[0],
          body: body
            ? {
                schema: body.content['application/json'].schema,
                required: Boolean(body.required),
                maxBytes: body['x-max-body-bytes'],
              }
            : undefined,
        });
      }
    }
    return models;
  }

  // ---------------------------------------------------------------- what the document says of a request

  /** A query or path value as a typed value: digits-only integers become numbers, anything else stays text. */
  private typed(raw: string, schema: Json): unknown {
    const types = typesOf(schema);
    if ((types.includes('integer') || types.includes('number')) && /^(?:0|-?[1-9][0-9]*)$/.test(raw))
      return Number(raw);
    return raw;
  }

  classify(model: RequestModel, sample: Sample): Verdict {
    const why: string[] = [];
    for (const param of model.pathParams) {
      const problem = this.refusal(param.schema, this.typed(sample.path[param.name], param.schema));
      if (problem) why.push(`path ${param.name}: ${problem}`);
    }
    const values = new Map<string, string[]>();
    for (const [name, raw] of sample.query) values.set(name, [...(values.get(name) ?? []), raw]);
    const typedQuery: Record<string, unknown> = {};
    for (const param of model.queryParams) {
      const raws = values.get(param.name);
      if (!raws) {
        if (param.required) why.push(`query ${param.name}: required`);
        continue;
      }
      const isArray = typesOf(param.schema).includes('array');
      const value = isArray
        ? raws.map((r) => this.typed(r, param.schema.items ?? {}))
        : raws.length === 1
          ? this.typed(raws[0], param.schema)
          : raws;
      typedQuery[param.name] = value;
      const problem = this.refusal(param.schema, value);
      if (problem) why.push(`query ${param.name}: ${problem}`);
    }
    for (const param of model.queryParams) {
      const later = typedQuery[param.name];
      const earlier = param.notBefore ? typedQuery[param.notBefore] : undefined;
      if (typeof later === 'string' && typeof earlier === 'string' && later < earlier)
        why.push(`query ${param.name}: before ${param.notBefore} (x-not-before)`);
    }
    for (const [name] of values)
      if (!model.queryParams.some((p) => p.name === name)) why.push(`query ${name}: not documented`);
    if (model.idempotencyKey) {
      if (sample.idempotencyKey == null) why.push('Idempotency-Key: required');
      else {
        const problem = this.refusal(model.idempotencyKey.schema, sample.idempotencyKey);
        if (problem) why.push(`Idempotency-Key: ${problem}`);
      }
    }
    let tooLarge = false;
    const clinicMayRequire: string[] = [];
    if (model.body) {
      if (sample.body === undefined) {
        if (model.body.required) why.push('body: required');
      } else {
        tooLarge = Buffer.byteLength(JSON.stringify(sample.body)) > model.body.maxBytes;
        const problem = this.refusal(model.body.schema, sample.body);
        if (problem) why.push(`body: ${problem}`);
        else this.tenantRequirements(model.body.schema, sample.body as Record<string, unknown>, why, clinicMayRequire);
      }
    }
    return { valid: why.length === 0 && !tooLarge, tooLarge, why, clinicMayRequire };
  }

  /** `x-tenant-required`: an id > 0, an alias, or the tenant's default from GET /v1/config; else required (or, with `when`, maybe). */
  private tenantRequirements(
    schema: Json,
    body: Record<string, unknown>,
    why: string[],
    clinicMayRequire: string[],
  ): void {
    const entries: Json[] = this.resolve(schema)['x-tenant-required'] ?? [];
    const given = (key: string) =>
      (typeof body[key] === 'number' && (body[key] as number) > 0) ||
      (typeof body[key] === 'string' && body[key] !== '');
    for (const entry of entries) {
      if (given(entry.field) || entry.aliases.some(given)) continue;
      if (entry.unless && given(entry.unless)) continue;
      const defaultKey = typeof entry.default === 'string' ? entry.default.split('defaults.')[1] : undefined;
      if (defaultKey && this.tenantDefaults[defaultKey] != null) continue;
      if (entry.when) clinicMayRequire.push(entry.field);
      else why.push(`body ${entry.field}: no id, alias or tenant default (x-tenant-required)`);
    }
  }

  // ---------------------------------------------------------------- generated requests

  samples(model: RequestModel): fc.Arbitrary<Sample> {
    const pathArb = fc.record(
      Object.fromEntries(model.pathParams.map((p) => [p.name, valid(p.schema, this).map(String)])),
    );
    const queryArb = fc
      .tuple(
        ...model.queryParams.map((p) => {
          const values = valid(p.schema, this).map((v) =>
            (Array.isArray(v) ? v.map(String) : [String(v)]).map((raw) => [p.name, raw] as [string, string]),
          );
          return p.required ? values : fc.option(values, { nil: [] as Array<[string, string]>, freq: 1 });
        }),
      )
      .map((lists) => lists.flat());
    const bodyArb: fc.Arbitrary<unknown> = model.body
      ? model.body.required
        ? valid(model.body.schema, this)
        : fc.option(valid(model.body.schema, this), { nil: undefined })
      : fc.constant(undefined);
    const idemArb = model.idempotencyKey ? fc.constant<string | null>(FRESH_KEY) : fc.constant(undefined);
    const validSample = fc
      .record({ path: pathArb, query: queryArb, body: bodyArb, idempotencyKey: idemArb })
      .filter((s) => !containsProtoKey(s.body))
      .map((s): Sample => ({ ...s, intent: 'valid' }));

    const mutations: Array<(s: Sample) => fc.Arbitrary<Sample>> = [];
    if (model.pathParams.length > 0) {
      mutations.push((s) =>
        fc
          .tuple(
            fc.constantFrom(...model.pathParams),
            fc.constantFrom('0', '-1', '01', 'abc', '1.5', '1e3', '+1', ' 1', '9007199254740992', '99999999999999999'),
          )
          .map(([p, raw]) => ({ ...s, path: { ...s.path, [p.name]: raw }, intent: `path ${p.name}=${raw}` })),
      );
    }
    if (model.queryParams.length > 0) {
      mutations.push((s) =>
        fc.constantFrom(...model.queryParams).chain((p) =>
          near(p.schema, this)
            .filter((v) => typeof v !== 'object' || v === null)
            .map((v) => String(v))
            .filter(wellFormed)
            .map((raw) => ({
              ...s,
              query: [...s.query.filter(([n]) => n !== p.name), [p.name, raw] as [string, string]],
              intent: `query ${p.name}=${JSON.stringify(raw).slice(0, 40)}`,
            })),
        ),
      );
      const required = model.queryParams.filter((p) => p.required);
      if (required.length > 0) {
        mutations.push((s) =>
          fc
            .constantFrom(...required)
            .map((p) => ({ ...s, query: s.query.filter(([n]) => n !== p.name), intent: `query ${p.name} missing` })),
        );
      }
    }
    // Query strings are closed (the document says so): a parameter the operation does not list is refused.
    mutations.push((s) =>
      fc.constantFrom('parametro_desconhecido', 'Limit', 'nome_').map((name) => ({
        ...s,
        query: [...s.query, [name, '1'] as [string, string]],
        intent: `query ${name} (not listed)`,
      })),
    );
    if (model.body) {
      const body = model.body;
      mutations.push((s) =>
        mutated(body.schema, s.body ?? {}, this)
          .filter((b) => !containsProtoKey(b))
          .map((b) => ({ ...s, body: b, intent: `body ${JSON.stringify(b).slice(0, 120)}` })),
      );
      if (body.required) mutations.push((s) => fc.constant({ ...s, body: undefined, intent: 'no body' }));
      if (body.maxBytes <= 64 * 1024) {
        mutations.push((s) =>
          fc.constant({ ...s, body: { padding: 'a'.repeat(body.maxBytes) }, intent: 'body over x-max-body-bytes' }),
        );
      }
    }
    if (model.idempotencyKey) {
      mutations.push((s) =>
        fc
          .constantFrom(null, '', 'com espaco', 'x'.repeat(65))
          .map((k) => ({ ...s, idempotencyKey: k, intent: `Idempotency-Key ${JSON.stringify(k)}` })),
      );
    }
    return fc.oneof(
      validSample,
      validSample.chain((s) => fc.constantFrom(...mutations).chain((m) => m(s))),
    );
  }

  // ---------------------------------------------------------------- what the document says of an answer

  /** Every way `response` differs from what the document declares for its status. */
  checkResponse(
    model: RequestModel,
    sample: Sample,
    response: { status: number; headers: Record<string, string>; body: unknown; text: string },
  ): string[] {
    const problems: string[] = [];
    const declared = model.operation.responses[String(response.status)];
    if (!declared) return [`status ${response.status} is not documented (${response.text.slice(0, 200)})`];
    const documented = this.resolve(declared);
    for (const [name, node] of Object.entries<Json>(documented.headers ?? {})) {
      const header = this.resolve(node);
      const value = response.headers[name.toLowerCase()];
      if (value === undefined) {
        if (header.required) problems.push(`header ${name} missing`);
        continue;
      }
      const problem = header.schema ? this.refusal(header.schema, value) : null;
      if (problem) problems.push(`header ${name}=${value}: ${problem}`);
    }
    const content = documented.content?.['application/json'];
    if (content) {
      const problem = this.refusal(content.schema, response.body);
      if (problem) problems.push(`body: ${problem} (${response.text.slice(0, 300)})`);
    } else if (response.text !== '')
      problems.push(`body present where none is documented: ${response.text.slice(0, 100)}`);
    const link = documented.links?.read;
    if (link && response.headers.location) {
      const expected = this.linkTarget(link, sample, response.body);
      if (expected !== response.headers.location)
        problems.push(`Location ${response.headers.location}, link says ${expected}`);
    }
    return problems;
  }

  /** The path a `links` entry points at for this request and answer. */
  private linkTarget(link: Json, sample: Sample, body: unknown): string {
    const [path] =
      Object.entries<Json>(this.doc.paths).find(([, item]) =>
        Object.values<Json>(item).some((op) => op.operationId === link.operationId),
      ) ?? [];
    if (!path) return `unknown operationId ${link.operationId}`;
    return path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const expression: string = link.parameters[name];
      if (expression.startsWith('$request.path.')) return sample.path[expression.slice('$request.path.'.length)];
      if (expression.startsWith('$response.body#')) {
        return String(
          expression
            .slice('$response.body#/'.length)
            .split('/')
            .reduce<any>((at, key) => at?.[key], body),
        );
      }
      return `unsupported ${expression}`;
    });
  }
}

/** `#/x` → `<document id>#/x`, so a schema taken out of the document still reaches its components. */
function absolutize(node: unknown): any {
  if (Array.isArray(node)) return node.map(absolutize);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? DOC_ID + value : absolutize(value),
    ]),
  );
}

/** The gateway's JSON parser drops `__proto__` keys (prototype pollution): such bodies say nothing about the document. */
function containsProtoKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(containsProtoKey);
  if (value === null || typeof value !== 'object') return false;
  return (
    Object.keys(value).some((key) => key === '__proto__' || key === 'constructor') ||
    Object.values(value).some(containsProtoKey)
  );
}
