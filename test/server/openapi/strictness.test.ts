import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { API_ERROR_STATUS } from '../../../contracts/errors.ts';
import { EXAME_BLOCKED_FIELDS, EXAME_DELETE_BLOCKED_FIELDS } from '../../../contracts/schemas/exames.ts';
import { LAUDO_BLOCKED_FIELDS } from '../../../contracts/schemas/laudos.ts';
import { PACIENTE_DISCARDED_FIELDS } from '../../../contracts/schemas/pacientes.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { DocumentOracle } from './document-oracle.ts';

/**
 * Issue 21 § 1: /openapi.json is as strict as the server. Structural checks over the served document (the
 * agreement test checks it against the running routes): closed request bodies, components reused by `$ref`,
 * integer ids, `servers`, the `x-signing` extension, response headers, links, tags.
 */

let stack: TestStack;
let doc: any;
let oracle: DocumentOracle;

beforeAll(async () => {
  stack = await startTestStack();
  const res = await stack.raw({ path: '/openapi.json' });
  expect(res.status).toBe(200);
  doc = res.body;
  oracle = new DocumentOracle(doc);
});
afterAll(async () => stack?.stop());

const deref = (node: any): any => (node && typeof node.$ref === 'string' ? deref(oracle.resolve(node)) : node);
const schemas = () => doc.components.schemas;

interface DocumentedOperation {
  label: string;
  path: string;
  method: string;
  op: any;
}

const operations = (): DocumentedOperation[] =>
  Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    Object.entries<any>(item).map(([method, op]) => ({ label: `${method.toUpperCase()} ${path}`, path, method, op })),
  );

/** Every schema node reachable from `node` (through $ref, once each), with where it was found. */
function walk(node: any, visit: (schema: any, where: string) => void, where = '', seen = new Set<any>()): void {
  if (node === null || typeof node !== 'object' || seen.has(node)) return;
  seen.add(node);
  if (typeof node.$ref === 'string') {
    walk(oracle.resolve(node), visit, `${where} → ${node.$ref}`, seen);
    return;
  }
  visit(node, where);
  for (const [key, value] of Object.entries<any>(node)) {
    if (key === 'properties' || key === 'dependentSchemas' || key === '$defs') {
      for (const [name, child] of Object.entries<any>(value ?? {})) walk(child, visit, `${where}.${name}`, seen);
    } else if (['items', 'not', 'additionalProperties'].includes(key)) walk(value, visit, `${where}/${key}`, seen);
    else if (['anyOf', 'oneOf', 'allOf'].includes(key))
      value.forEach((child: any, i: number) => {
        walk(child, visit, `${where}/${key}/${i}`, seen);
      });
  }
}

const successOf = (op: any): [string, any] =>
  Object.entries<any>(op.responses).find(([status]) => status.startsWith('2') || status === '302')!;

describe('closed request bodies', () => {
  test('every object a client sends is closed (additionalProperties: false); none is open ({} or true)', () => {
    const open: string[] = [];
    let objects = 0;
    for (const { label, op } of operations()) {
      const schema = op.requestBody?.content?.['application/json']?.schema;
      if (!schema || Object.keys(schema).length === 0 || (!schema.$ref && !schema.type)) continue;
      walk(schema, (node, where) => {
        if (node.type === 'object' || (node.properties && !node.required?.length && node.type)) {
          objects++;
          if (node.additionalProperties !== false) open.push(`${label}${where}`);
        }
        if (
          node.additionalProperties === true ||
          (node.additionalProperties && Object.keys(node.additionalProperties).length === 0)
        ) {
          open.push(`${label}${where} (additionalProperties ${JSON.stringify(node.additionalProperties)})`);
        }
      });
    }
    expect(objects).toBeGreaterThan(20);
    expect(open).toEqual([]);
  });

  test('answers are not closed: a later release may add fields (spec 01 § Versioning), a validating client keeps working', () => {
    const closed: string[] = [];
    for (const { label, op } of operations()) {
      const [status, response] = successOf(op);
      if (status === '302') continue;
      walk(deref(response).content['application/json'].schema.properties.data, (node, where) => {
        if (node.additionalProperties === false) closed.push(`${label} data${where}`);
      });
    }
    expect(closed).toEqual([]);
  });

  test("the patient's silently discarded fields are listed (any value, deprecated), the other unknown ones are not accepted", () => {
    for (const name of ['PacienteCreate', 'PacientePatch']) {
      const body = schemas()[name];
      expect(body['x-discarded-fields'], name).toEqual(expect.arrayContaining([...PACIENTE_DISCARDED_FIELDS]));
      for (const field of PACIENTE_DISCARDED_FIELDS) {
        expect(body.properties[field], `${name}.${field}`).toMatchObject({ deprecated: true });
        expect(body.properties[field].type, `${name}.${field} takes any value`).toBeUndefined();
      }
      expect(body.additionalProperties).toBe(false);
    }
    expect(schemas().PacientePatch['x-discarded-fields']).toContain('id');
  });

  test('blocked fields are not offered: absent from properties, named in x-blocked-fields', () => {
    const cases: Array<[string, readonly string[]]> = [
      ['ExameCreate', EXAME_BLOCKED_FIELDS],
      ['ExameDelete', EXAME_DELETE_BLOCKED_FIELDS],
      ['LaudoIngest', LAUDO_BLOCKED_FIELDS],
      ['AgendamentoCreate', ['force', 'ignorar_conflito', 'hora_fim']],
      ['AgendamentoCancelar', ['force']],
      ['AgendamentoReagendar', ['force', 'ignorar_conflito']],
      ['ProntuarioCreate', ['rascunho', '_via_api_chave_id', 'paciente_id', 'id', 'unidade_id', 'tipo']],
    ];
    for (const [name, blocked] of cases) {
      const body = schemas()[name];
      for (const field of blocked) expect(Object.keys(body.properties), `${name} offers ${field}`).not.toContain(field);
      expect(body['x-blocked-fields'], name).toEqual(expect.arrayContaining([...blocked]));
    }
  });

  test('POST /v1/ping declares its body: any JSON value, optional, at most 2048 bytes', () => {
    const body = doc.paths['/v1/ping'].post.requestBody;
    expect(body.required).toBe(false);
    expect(body['x-max-body-bytes']).toBe(2048);
    expect(body.content['application/json'].schema).toBeDefined();
    expect(body.content['application/json'].example).toBeDefined();
  });
});

describe('every rule the server enforces is expressed', () => {
  const prop = (schema: string, name: string) => deref(schemas()[schema].properties[name]);
  const branches = (node: any): any[] => (node.anyOf ?? [node]).map(deref);

  test('lengths, patterns and formats the issue found missing', () => {
    expect(prop('PacienteCreate', 'nome')).toMatchObject({ type: 'string', minLength: 5 });
    expect(new RegExp(prop('PacienteCreate', 'nome').pattern, 'u').test('a'.repeat(100))).toBe(true);
    expect(new RegExp(prop('PacienteCreate', 'nome').pattern, 'u').test('a'.repeat(101))).toBe(false);
    expect(new RegExp(prop('PacienteCreate', 'nome').pattern, 'u').test('  abcd  ')).toBe(false);
    expect(prop('PacienteCreate', 'data_nascimento')).toMatchObject({
      format: 'date',
      'x-date-range': { minimum: 'today-130y', maximum: 'today' },
    });
    expect(branches(prop('PacienteCreate', 'usuario'))[0]).toMatchObject({
      minLength: 1,
      maxLength: 50,
      pattern: '^[A-Za-z0-9._@-]+$',
    });
    expect(branches(prop('PacienteCreate', 'senha'))[0]).toMatchObject({
      minLength: 1,
      maxLength: 50,
      writeOnly: true,
    });
    expect(branches(prop('PacienteCreate', 'cpf'))[0]).toMatchObject({ format: 'cpf', pattern: '^[0-9]{11}$' });
    expect(branches(prop('PacienteCreate', 'email'))[0]).toMatchObject({ format: 'email', maxLength: 254 });
    const nomeQuery = doc.paths['/v1/pacientes'].get.parameters.map(deref).find((p: any) => p.name === 'nome');
    expect(nomeQuery.schema).toMatchObject({ type: 'string', minLength: 3 });
    const q = doc.paths['/v1/cids'].get.parameters.map(deref).find((p: any) => p.name === 'q');
    expect(q).toMatchObject({ required: true, schema: { type: 'string', minLength: 2 } });
    const inicio = doc.paths['/v1/exames'].get.parameters
      .map(deref)
      .find((p: any) => p.name === 'periodo_realizado_inicio');
    expect(inicio.schema).toMatchObject({ type: 'string', format: 'date' });
  });

  test('patterns use [0-9], never \\d', () => {
    const offenders: string[] = [];
    const scan = (node: any, where: string) => {
      if (Array.isArray(node)) {
        node.forEach((child, i) => {
          scan(child, `${where}/${i}`);
        });
        return;
      }
      if (node === null || typeof node !== 'object') return;
      if (typeof node.pattern === 'string' && node.pattern.includes('\\d')) offenders.push(`${where}: ${node.pattern}`);
      for (const [key, value] of Object.entries(node)) scan(value, `${where}/${key}`);
    };
    scan(doc, '#');
    expect(offenders).toEqual([]);
  });

  test('cross-field rules: dependentRequired/anyOf/not where JSON Schema can say them, x- keywords where it cannot', () => {
    for (const name of ['PacienteCreate', 'PacientePatch']) {
      expect(schemas()[name].dependentRequired, name).toEqual({ senha_temporaria: ['senha'] });
    }
    expect(schemas().ProntuarioCreate.anyOf.map((b: any) => b.required)).toEqual([['mensagem'], ['anexos']]);
    expect(schemas().AgendamentoCreate.anyOf.map((b: any) => b.required)).toEqual([
      ['paciente_id'],
      ['paciente_nome', 'paciente_celular'],
    ]);
    expect(schemas().ConvenioPacienteInput.anyOf).toHaveLength(2);
    expect(schemas().MedicoCreate.allOf.every((member: any) => member.not)).toBe(true);
    expect(schemas().ExameCreate.allOf.map((member: any) => member.anyOf.flatMap((b: any) => b.required))).toEqual([
      ['paciente_id', 'paciente_cpf'],
      ['procedimento_id', 'procedimento_codigo_tuss', 'procedimento_abreviacao'],
    ]);
    expect(schemas().ExameCreate['x-tenant-required'].map((e: any) => e.field)).toEqual([
      'unidade_id',
      'medico_exame_id',
      'medico_laudo_id',
      'medico_solicitante_id',
    ]);
    expect(schemas().ConselhoInput['x-equal-ignoring-case']).toEqual(['tipo', 'sigla']);
    const fim = doc.paths['/v1/pacientes'].get.parameters
      .map(deref)
      .find((p: any) => p.name === 'periodo_cadastro_fim');
    expect(fim['x-not-before']).toBe('periodo_cadastro_inicio');
    // Each x- keyword is named, and said in words, in the document's description.
    for (const keyword of [
      'x-date-range',
      'x-normalized-length',
      'x-equal-ignoring-case',
      'x-not-before',
      'x-tenant-required',
    ])
      expect(doc.info.description).toContain(keyword);
  });

  test('nullability as decided: null (and "") mean "no value" on optional fields, `exibir: null` included', () => {
    expect(prop('ProntuarioCreate', 'exibir').enum).toEqual([0, 1, null]);
    const cpf = prop('PacienteCreate', 'cpf').anyOf;
    expect(cpf).toEqual(expect.arrayContaining([{ type: 'null' }, { const: '' }]));
    // Required patient data cannot be reset: not nullable.
    expect(prop('PacientePatch', 'nome').anyOf).toBeUndefined();
    expect(prop('PacientePatch', 'nome').type).toBe('string');
  });

  test('the examples the document gives are valid by its own schemas', () => {
    for (const { label, op } of operations()) {
      const media = op.requestBody?.content?.['application/json'];
      if (media?.example === undefined) continue;
      expect(oracle.refusal(media.schema, media.example), label).toBeNull();
    }
  });
});

describe('components and $ref', () => {
  test('resources, request bodies, meta and the error envelope are named components', () => {
    expect(Object.keys(schemas())).toEqual(
      expect.arrayContaining([
        'PacienteItem',
        'PacienteDetalhe',
        'PacienteCreate',
        'PacientePatch',
        'ExameDetalhe',
        'ExameCreate',
        'LaudoDetalhe',
        'Agendamento',
        'AgendamentoCreate',
        'Prontuario',
        'ProntuarioCreate',
        'MedicoDetalhe',
        'MedicoCreate',
        'Procedimento',
        'Convenio',
        'Meta',
        'PaginationMeta',
        'WriteMeta',
        'ErrorEnvelope',
        'Error',
        'ErrorCode',
        'ValidationDetails',
      ]),
    );
  });

  test('every request body and every answer refers to components: no resource is inlined', () => {
    for (const { label, op } of operations()) {
      const body = op.requestBody?.content?.['application/json']?.schema;
      if (body && label !== 'POST /v1/ping')
        expect(body.$ref, `${label} request body`).toMatch(/^#\/components\/schemas\//);
      const [status, response] = successOf(op);
      if (status === '302') continue;
      const envelope = deref(response).content['application/json'].schema;
      const data = envelope.properties.data;
      expect(data.$ref ?? data.items?.$ref, `${label} data`).toMatch(/^#\/components\/schemas\//);
      const meta = envelope.properties.meta;
      expect(
        (meta.allOf ?? [meta]).map((m: any) => m.$ref),
        `${label} meta`,
      ).toContain('#/components/schemas/Meta');
      if (op['x-idempotent'])
        expect(
          meta.allOf.map((m: any) => m.$ref),
          label,
        ).toContain('#/components/schemas/WriteMeta');
      for (const [code, answer] of Object.entries<any>(op.responses)) {
        if (Number(code) < 400) continue;
        expect(deref(answer).content['application/json'].schema.allOf[0].$ref, `${label} ${code}`).toBe(
          '#/components/schemas/ErrorEnvelope',
        );
      }
    }
    const paginated = deref(successOf(doc.paths['/v1/pacientes'].get)[1]).content['application/json'].schema.properties
      .meta;
    expect(paginated.allOf.map((m: any) => m.$ref)).toContain('#/components/schemas/PaginationMeta');
  });

  test("one error envelope: error.code enumerates the spec's codes once each, details typed per code", () => {
    const variants = schemas().Error.oneOf;
    const codes = variants.flatMap((v: any) => v.properties.code.enum);
    expect([...codes].sort()).toEqual(Object.keys(API_ERROR_STATUS).sort());
    expect(schemas().ErrorCode.enum.sort()).toEqual(Object.keys(API_ERROR_STATUS).sort());
    for (const variant of variants) {
      expect(variant.required).toEqual(['code', 'message', 'details']);
      expect(variant.properties.details.$ref).toMatch(/^#\/components\/schemas\/\w+Details$/);
    }
    const detailsOf = (code: string) =>
      deref(variants.find((v: any) => v.properties.code.enum.includes(code)).properties.details);
    expect(detailsOf('VAL_INVALID_PARAM').required).toEqual(['field']);
    expect(detailsOf('VAL_INVALID_PARAM').properties.lista.items.properties).toHaveProperty('campos_aceitos');
    expect(detailsOf('CPF_ALREADY_EXISTS').required).toEqual(['paciente_id_existente', 'nome']);
    expect(detailsOf('RES_NOT_FOUND')).toEqual({ type: 'null' });
    expect(detailsOf('AUTH_TIMESTAMP_EXPIRED').properties).toHaveProperty('skew_seconds');
  });

  test('every $ref resolves', () => {
    const broken: string[] = [];
    const scan = (node: any) => {
      if (Array.isArray(node)) return node.forEach(scan);
      if (node === null || typeof node !== 'object') return;
      if (typeof node.$ref === 'string' && oracle.resolve({ $ref: node.$ref }) === undefined) broken.push(node.$ref);
      Object.values(node).forEach(scan);
    };
    scan(doc);
    expect(broken).toEqual([]);
  });
});

describe('parameters', () => {
  test('path ids and integer query parameters are typed integer (never a digit-string pattern)', () => {
    let pathParams = 0;
    for (const { label, op } of operations()) {
      for (const p of (op.parameters ?? []).map(deref)) {
        if (p.in === 'path') {
          pathParams++;
          expect(p.schema, `${label} ${p.name}`).toMatchObject({
            type: 'integer',
            minimum: 1,
            maximum: Number.MAX_SAFE_INTEGER,
          });
        }
        if (p.in === 'query' && /(^|_)id$|^(limit|offset|horizonte_dias)$/.test(p.name)) {
          expect(p.schema.type, `${label} ${p.name}`).toBe('integer');
        }
        // The finding: integers written as digit-string patterns (`^[1-9][0-9]{0,15}$`) that let `limit: "500"` type-check.
        if (p.in !== 'header')
          expect(
            p.schema.type === 'string' && /^\^(\(\?:0\|)?\[1-9\]/.test(p.schema.pattern ?? ''),
            `${label} ${p.name}: an integer as text`,
          ).toBe(false);
      }
    }
    expect(pathParams).toBeGreaterThan(15);
    expect(deref({ $ref: '#/components/parameters/limit' }).schema).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 200,
      default: 50,
    });
    expect(deref({ $ref: '#/components/parameters/offset' }).schema).toMatchObject({
      type: 'integer',
      minimum: 0,
      default: 0,
    });
  });

  test('writes declare Idempotency-Key as a required header parameter', () => {
    for (const { label, op } of operations()) {
      const idem = (op.parameters ?? []).map(deref).find((p: any) => p.in === 'header' && p.name === 'Idempotency-Key');
      expect(Boolean(idem?.required), label).toBe(op['x-idempotent']);
    }
  });
});

describe('responses: headers and links', () => {
  const headersOf = (response: any) =>
    Object.fromEntries(Object.entries<any>(deref(response).headers ?? {}).map(([name, h]) => [name, deref(h)]));

  test('each answer declares its headers; Location is required on 201 and 302; Retry-After where every code carries it', () => {
    for (const { label, op, method } of operations()) {
      const [status, response] = successOf(op);
      const headers = headersOf(response);
      for (const name of ['X-Api-Version', 'X-Api-Release', 'X-Content-Type-Options', 'Cache-Control'])
        expect(headers[name]?.required, `${label} ${name}`).toBe(true);
      if (status !== '302')
        for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining'])
          expect(headers[name]?.required, `${label} ${name}`).toBe(true);
      if (method !== 'get') expect(headers['X-Request-Id']?.required, `${label} X-Request-Id`).toBe(true);
      if (op['x-idempotent']) {
        expect(headers['Idempotency-Replay']?.schema.enum, label).toEqual(['true', 'false']);
        expect(headers['Idempotency-Key']?.required, label).toBe(true);
      }
      if (status === '201' || status === '302') expect(headers.Location?.required, `${label} Location`).toBe(true);
      for (const [code, answer] of Object.entries<any>(op.responses)) {
        if (Number(code) < 400) continue;
        const codes: string[] =
          deref(answer).content['application/json'].schema.allOf[1].properties.error.properties.code.enum;
        const retry = headersOf(answer)['Retry-After'];
        // CONCURRENT_REQUEST (409) and RATE_LIMIT_EXCEEDED (429) always carry it; EXAME_LAUDO_CENTRAL (also 409) never does.
        if (codes.every((c) => c === 'CONCURRENT_REQUEST' || c === 'RATE_LIMIT_EXCEEDED'))
          expect(retry?.required, `${label} ${code}`).toBe(true);
        else if (codes.includes('EXAME_LAUDO_CENTRAL')) expect(retry?.required, `${label} ${code}`).toBe(false);
        expect(headersOf(answer)['Cache-Control'].schema.const, `${label} ${code}`).toBe('no-store');
      }
    }
    expect(headersOf(successOf(doc.paths['/v1/procedimentos'].get)[1])['Cache-Control'].schema.const).toBe(
      'private, max-age=300',
    );
  });

  test('every 201 links to the GET that reads what it created', () => {
    const byId = new Map(operations().map((o) => [o.op.operationId, o]));
    let created = 0;
    for (const { label, op } of operations()) {
      const [status, response] = successOf(op);
      if (status !== '201') continue;
      created++;
      const link = deref(response).links?.read;
      expect(link, label).toBeDefined();
      const target = byId.get(link.operationId);
      expect(target?.method, `${label} → ${link.operationId}`).toBe('get');
      const params = [...target!.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      expect(Object.keys(link.parameters).sort(), label).toEqual(params.sort());
    }
    expect(created).toBe(6);
  });
});

describe('document level', () => {
  test('servers: this appliance (relative, so /docs calls the origin it is served from) and the local default', async () => {
    expect(doc.servers[0].url).toBe('/');
    expect(doc.servers.map((s: any) => s.url)).toContain('http://localhost:8080');
    // The relative server, resolved against where the document was fetched, reaches this gateway.
    const ping = new URL(`${doc.servers[0].url.replace(/\/$/, '')}/v1/ping`, stack.gatewayUrl);
    const res = await stack.raw({ path: ping.pathname });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('AUTH_MISSING_HEADER');
  });

  test('tags are declared globally, with a description, and cover every operation', () => {
    const declared = new Map(doc.tags.map((t: any) => [t.name, t.description]));
    for (const { label, op } of operations())
      for (const tag of op.tags) expect(declared.get(tag), `${label} ${tag}`).toEqual(expect.any(String));
  });

  test('x-signing: algorithm, string to sign, headers, window; a static signature is said not to work; its example verifies', () => {
    const signing = doc['x-signing'];
    expect(signing).toMatchObject({
      algorithm: 'HMAC-SHA256',
      string_to_sign: '{timestamp}.{method} {path_and_query}\n{body}',
      headers: { api_key: 'X-API-Key', timestamp: 'X-Timestamp', signature: 'X-Signature' },
      timestamp_window_seconds: 300,
      static_signature: false,
    });
    expect(signing.note).toMatch(/fixed value.*can never work/);
    expect(signing.examples.map((e: any) => e.method)).toEqual(['GET', 'POST']);
    for (const e of signing.examples) {
      const stringToSign = signing.string_to_sign
        .replace('{timestamp}', e.timestamp)
        .replace('{method}', e.method)
        .replace('{path_and_query}', e.path_and_query)
        .replace('{body}', e.body);
      expect(stringToSign).toBe(e.string_to_sign);
      expect(createHmac('sha256', e.api_secret).update(stringToSign).digest('hex')).toBe(e.signature);
    }
    expect(doc.components.securitySchemes.Signature.description).toContain('x-signing');
    expect(doc.components.securitySchemes.Signature.description).toMatch(/fixed value.*can never work/);
  });

  test("signing the examples' requests as x-signing says, with a real key, is accepted by the gateway", async () => {
    const signing = doc['x-signing'];
    for (const e of signing.examples) {
      const ts = String(Math.floor(Date.now() / 1000));
      const stringToSign = signing.string_to_sign
        .replace('{timestamp}', ts)
        .replace('{method}', e.method)
        .replace('{path_and_query}', e.path_and_query)
        .replace('{body}', e.body);
      const signature = createHmac('sha256', stack.creds.apiSecret).update(stringToSign).digest('hex');
      const res = await stack.raw({
        method: e.method,
        path: e.path_and_query,
        headers: {
          [signing.headers.api_key]: stack.creds.apiKey,
          [signing.headers.timestamp]: ts,
          [signing.headers.signature]: signature,
          ...(e.body ? { 'content-type': 'application/json' } : {}),
        },
        body: e.body || undefined,
      });
      expect(res.status, `${e.method} ${e.path_and_query}: ${res.text.slice(0, 200)}`).toBe(200);
    }
  });
});
