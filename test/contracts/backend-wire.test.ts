import fc from 'fast-check';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  apptCreateForwarded,
  apptListForwarded,
  cancelForwarded,
  configListForwarded,
  reagendarForwarded,
  slotsForwarded,
} from '../../contracts/backend/agenda.ts';
import {
  cidsForwarded,
  conveniosForwarded,
  procedimentosForwarded,
  wholeCatalogForwarded,
} from '../../contracts/backend/catalogos.ts';
import {
  exameArquivoForwarded,
  exameDeleteForwarded,
  exameListForwarded,
  resolucaoConvenioQuery,
  resolucaoMedicoQuery,
  resolucaoPacienteQuery,
  resolucaoProcedimentoQuery,
  resolucaoUnidadeQuery,
} from '../../contracts/backend/exames.ts';
import { laudoIngestForwarded, laudoListForwarded } from '../../contracts/backend/laudos.ts';
import { medicoListForwarded, medicoWriteForwarded } from '../../contracts/backend/medicos.ts';
import {
  pacienteCreateForwarded,
  pacienteListForwarded,
  pacientePatchForwarded,
  unificarForwarded,
} from '../../contracts/backend/pacientes.ts';
import {
  anexoPageForwarded,
  prontuarioCreateForwarded,
  prontuarioPageForwarded,
} from '../../contracts/backend/prontuarios.ts';
import { medicosQuery as consoleMedicosQuery } from '../../contracts/admin/tenants.ts';
import {
  agendaConfigsQuery,
  agendamentoCreateBody,
  agendamentosListQuery,
  cancelarBody,
  reagendarBody,
  slotsQuery,
} from '../../contracts/schemas/agenda.ts';
import { cidsQuery, conveniosQuery, procedimentosQuery, wholeCatalogQuery } from '../../contracts/schemas/catalogos.ts';
import {
  EXAME_ALIAS_FORMATS,
  exameArquivoQuery,
  exameDeleteBody,
  exameListQuery,
  parseCrm,
} from '../../contracts/schemas/exames.ts';
import { birthDateBounds, isValidCpf, UFS } from '../../contracts/schemas/fields.ts';
import { laudoIngestBody, laudosListQuery } from '../../contracts/schemas/laudos.ts';
import { medicoCreateBody, medicoPatchBody, medicosListQuery, PAPEIS } from '../../contracts/schemas/medicos.ts';
import {
  PACIENTE_DISCARDED_FIELDS,
  pacienteCreateBody,
  pacientePatchBody,
  pacientesListQuery,
  unificarBody,
} from '../../contracts/schemas/pacientes.ts';
import { CONTROL_CHARACTER } from '../../contracts/schemas/params.ts';
import { prontuarioCreateBody, prontuariosListQuery } from '../../contracts/schemas/prontuarios.ts';
import { type BackendQuery, buildQuery } from '../../server/backend/client.ts';

/**
 * The forwarded wire (contracts/backend/forwarded.ts): every query or body the public schema accepts, once the
 * gateway forwards it (its parsed value, as JSON or through `buildQuery`), parses under backend-sim's schema.
 * The arbitraries generate public-valid values by construction, and each run asserts that first.
 */

const RUNS = Number(process.env.WIRE_RUNS ?? 300);

// ---------------------------------------------------------------- the receiving end of a query

/** A Fastify instance, as backend-sim is, answering the query object it parsed from the URL. */
let echo: FastifyInstance;
beforeAll(async () => {
  echo = Fastify();
  echo.get('/echo', async (req) => req.query);
  await echo.ready();
});
afterAll(() => echo.close());

const issues = (error: z.ZodError) => JSON.stringify(error.issues.map((i) => [i.path.join('.'), i.message]));

function parsePublic<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const result = schema.safeParse(raw);
  if (!result.success) throw new Error(`generated a value the public schema refuses: ${issues(result.error)}`);
  return result.data;
}

function expectBackendParses(schema: z.ZodType, received: unknown, raw: unknown): void {
  const result = schema.safeParse(received);
  if (!result.success)
    throw new Error(
      `backend-sim refuses ${JSON.stringify(received)} (public ${JSON.stringify(raw)}): ${issues(result.error)}`,
    );
}

/** Bodies: the public schema's value, JSON-encoded as the gateway's client sends it. */
function checkBody(publicSchema: z.ZodType, backendSchema: z.ZodType, body: fc.Arbitrary<Record<string, unknown>>) {
  fc.assert(
    fc.property(body, (raw) => {
      const sent = JSON.parse(JSON.stringify(parsePublic(publicSchema, raw)));
      expectBackendParses(backendSchema, sent, raw);
    }),
    { numRuns: RUNS },
  );
}

/** Queries: the public schema's value through `buildQuery`, then Fastify's query-string parser. */
async function checkQuery(
  publicSchema: z.ZodType,
  backendSchema: z.ZodType,
  query: fc.Arbitrary<Record<string, unknown>>,
  gateway: (parsed: BackendQuery) => BackendQuery = (parsed) => parsed,
) {
  await fc.assert(
    fc.asyncProperty(query, async (raw) => {
      const sent = gateway(parsePublic(publicSchema, raw) as BackendQuery);
      const received = (await echo.inject({ method: 'GET', url: `/echo${buildQuery(sent)}` })).json();
      expectBackendParses(backendSchema, received, raw);
    }),
    { numRuns: RUNS },
  );
}

// ---------------------------------------------------------------- field arbitraries (public-valid by construction)

/** Some record keys, each present or not. */
const some = <T extends Record<string, fc.Arbitrary<unknown>>>(model: T, requiredKeys: (keyof T & string)[] = []) =>
  fc.record(model, { requiredKeys }) as fc.Arbitrary<Record<string, unknown>>;

/** A value, `null` or `""` (public `resettable`: both mean no value). */
const resettable = <T>(arb: fc.Arbitrary<T>) => fc.oneof(arb, fc.constant(null), fc.constant(''));

/** Length as zod measures it: code points. */
const length = (s: string) => [...s].length;
const ws = fc.constantFrom('', '', ' ', '  ', '\t', ' \n');
/** Text of `min` to `max` code points, any Unicode (emoji, accents, control characters). */
const anyText = (min: number, max: number) =>
  fc
    .oneof(
      fc.string({ unit: 'grapheme-ascii', minLength: min, maxLength: max }),
      fc.string({ unit: 'grapheme', minLength: min, maxLength: max }),
    )
    .filter((s) => length(s) >= min && length(s) <= max);
/** Text whose trimmed length is `min` to `max`, with whitespace around it. */
const trimmedText = (min: number, max: number) =>
  fc
    .tuple(ws, fc.string({ unit: 'grapheme', minLength: min, maxLength: max }), ws)
    .map(([a, core, b]) => a + core + b)
    .filter((s) => length(s.trim()) >= min && length(s.trim()) <= max);
/** Text a query may carry: no control character (the gateway refuses them before the schema). */
const queryText = (min: number, max: number) => trimmedText(min, max).filter((s) => !CONTROL_CHARACTER.test(s));
/** Public `text(max)`: text, null or "". */
const text = (max: number) => fc.oneof(anyText(0, max), fc.constant(null));

const positiveInt = fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER });
const idText = fc.oneof(fc.integer({ min: 1, max: 999 }), positiveInt).map(String);
const flag = fc.constantFrom('0', '1');
const page = { limit: fc.integer({ min: 1, max: 200 }).map(String), offset: fc.nat().map(String) };

const isoDay = (d: Date) => d.toISOString().slice(0, 10);
const day = fc
  .date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2100-12-31T00:00:00Z'), noInvalidDate: true })
  .map(isoDay);
/** Two days in order (a public period: the later one may not precede the earlier). */
const period = fc.tuple(day, day).map(([a, b]) => (a <= b ? [a, b] : [b, a]));
const birthDate = fc.constant(null).chain(() => {
  const { min, max } = birthDateBounds();
  return fc
    .date({ min: new Date(`${min}T00:00:00Z`), max: new Date(`${max}T00:00:00Z`), noInvalidDate: true })
    .map(isoDay);
});

const cpf = fc
  .array(fc.integer({ min: 0, max: 9 }), { minLength: 9, maxLength: 9 })
  .map((nine) => {
    const digits = [...nine];
    for (const count of [9, 10]) {
      let sum = 0;
      for (let i = 0; i < count; i++) sum += digits[i] * (count + 1 - i);
      const r = (sum * 10) % 11;
      digits.push(r === 10 ? 0 : r);
    }
    return digits.join('');
  })
  .filter(isValidCpf);
const email = fc
  .tuple(
    fc.stringMatching(/^[a-z0-9]{1,12}(?:[._-][a-z0-9]{1,6})?$/),
    fc.stringMatching(/^[a-z0-9]{1,12}$/),
    fc.constantFrom('com', 'com.br', 'org', 'med.br'),
  )
  .map(([local, host, tld]) => `${local}@${host}.${tld}`);
const uf = fc.constantFrom(...UFS).chain((u) => fc.constantFrom(u, u.toLowerCase(), `${u[0]}${u[1].toLowerCase()}`));
const usuario = fc.stringMatching(/^[A-Za-z0-9._@-]{1,50}$/);
const senha = anyText(1, 50);
const sexo = fc.constantFrom('MAS', 'FEM', 'OUT');
const hhmm = fc
  .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
  .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
/** Any JSON value (the spec's discarded fields take anything). */
const anyJson = fc.jsonValue({ maxDepth: 2 });

const endereco = (extra: Record<string, fc.Arbitrary<unknown>> = {}) =>
  some({
    cep: resettable(fc.stringMatching(/^\d{5}-?\d{3}$/)),
    logradouro: text(150),
    numero: resettable(fc.oneof(anyText(0, 10), fc.nat())),
    complemento: text(100),
    bairro: text(100),
    cidade_id: fc.option(positiveInt),
    estado: resettable(uf),
    ...extra,
  });

/** plano_id and numero_carteirinha only next to the insurer's id. */
const convenio = fc.oneof(
  some({ id: positiveInt, plano_id: fc.option(positiveInt), numero_carteirinha: text(40) }, ['id']),
  some({ id: fc.constant(null), plano_id: fc.constant(null), numero_carteirinha: fc.constantFrom(null, '') }),
);

const pessoaNome = trimmedText(5, 100);

// ---------------------------------------------------------------- pacientes

const pacienteOptional = {
  cpf: resettable(cpf),
  celular: text(20),
  saudacao: text(30),
  nome_registro: text(100),
  rg: text(20),
  telefone: text(20),
  sexo: resettable(sexo),
  estado_civil_id: fc.option(positiveInt),
  email: resettable(email),
  numero_prontuario: text(30),
  endereco: fc.option(endereco()),
  convenio: fc.option(convenio),
  ativo: fc.option(fc.boolean()),
  usuario: resettable(usuario),
};
/** `senha_temporaria` only next to a password. */
const senhaPaciente = fc.oneof(
  some({ senha: resettable(senha) }),
  fc.record({ senha, senha_temporaria: fc.boolean() }),
);
const discarded = (keys: readonly string[]) =>
  fc
    .subarray([...keys], { maxLength: 3 })
    .chain((names) =>
      fc.tuple(...names.map(() => anyJson)).map((values) => Object.fromEntries(names.map((n, i) => [n, values[i]]))),
    );
const merged = (...parts: fc.Arbitrary<Record<string, unknown>>[]) =>
  fc.tuple(...parts).map((objects) => Object.assign({}, ...objects));

describe('pacientes: every public body and query parses in backend-sim', () => {
  it('create', () => {
    checkBody(
      pacienteCreateBody,
      pacienteCreateForwarded,
      merged(
        fc.record({ nome: pessoaNome, data_nascimento: birthDate }),
        some(pacienteOptional),
        senhaPaciente,
        discarded(PACIENTE_DISCARDED_FIELDS),
      ),
    );
  });

  it('patch', () => {
    checkBody(
      pacientePatchBody,
      pacientePatchForwarded,
      merged(
        some({ nome: pessoaNome, data_nascimento: birthDate }),
        some(pacienteOptional),
        senhaPaciente,
        discarded([...PACIENTE_DISCARDED_FIELDS, 'id']),
      ),
    );
  });

  it('unificar', () => {
    const id = fc.oneof(positiveInt, idText);
    checkBody(unificarBody, unificarForwarded, fc.record({ paciente_id_principal: id, paciente_id_duplicado: id }));
  });

  it('list', async () => {
    await checkQuery(
      pacientesListQuery,
      pacienteListForwarded,
      fc
        .tuple(
          some({ cpf: fc.stringMatching(/^\d{11}$/), nome: queryText(3, 100), ativo: flag, ...page }),
          fc.option(period, { nil: undefined }),
        )
        .map(([q, p]) => (p ? { ...q, periodo_cadastro_inicio: p[0], periodo_cadastro_fim: p[1] } : q)),
    );
  });
});

// ---------------------------------------------------------------- medicos

const conselho = fc.oneof(
  fc.stringMatching(/^[A-Za-z]{2,10}$/).chain((sigla) =>
    some({
      tipo: fc.constantFrom(sigla, sigla.toUpperCase()),
      sigla: fc.constantFrom(sigla, sigla.toLowerCase()),
      numero: resettable(fc.oneof(fc.stringMatching(/^\d{1,10}$/), fc.integer({ min: 1, max: 9_999_999_999 }))),
      uf: resettable(uf),
    }),
  ),
  some({ tipo: fc.constant(null), sigla: fc.constant('') }),
);
const medicoOptional = {
  nome_registro: text(100),
  cpf: resettable(cpf),
  rg: text(20),
  data_nascimento: resettable(birthDate),
  sexo: resettable(sexo),
  conselho: fc.option(conselho),
  especialidade: text(100),
  papeis: fc.option(fc.array(fc.constantFrom(...PAPEIS), { maxLength: 4 })),
  telefone: text(20),
  celular: text(20),
  email: resettable(email),
  endereco: fc.option(endereco({ cidade: text(100) })),
  cor_agenda: resettable(fc.stringMatching(/^#[0-9A-Fa-f]{6}$/)),
  ativo: fc.option(fc.boolean()),
};
/** A salutation and a permission group by text or by id, never both. */
const textOrId = (field: string, max: number) =>
  fc.oneof(some({ [field]: text(max) }), some({ [`${field}_id`]: fc.option(positiveInt) }));

describe('medicos: every public body and query parses in backend-sim', () => {
  it('create', () => {
    checkBody(
      medicoCreateBody,
      medicoWriteForwarded,
      merged(
        fc.record({ nome: pessoaNome, usuario, senha }),
        some(medicoOptional),
        textOrId('saudacao', 30),
        textOrId('grupo_permissao', 60),
      ),
    );
  });

  it('patch', () => {
    checkBody(
      medicoPatchBody,
      medicoWriteForwarded,
      merged(
        some({ nome: pessoaNome, usuario, senha }),
        some(medicoOptional),
        textOrId('saudacao', 30),
        textOrId('grupo_permissao', 60),
      ),
    );
  });

  it('list, and the console doctor picker (any prefix, 1000 rows)', async () => {
    const papel = fc.oneof(
      fc.constantFrom(...PAPEIS),
      fc.array(fc.constantFrom(...PAPEIS), { minLength: 1, maxLength: 4 }),
    );
    await checkQuery(
      medicosListQuery,
      medicoListForwarded,
      some({ papel, q: queryText(3, 100), ativo: flag, ...page }),
    );
    await checkQuery(
      consoleMedicosQuery,
      medicoListForwarded,
      some({ q: queryText(1, 100) }),
      // server/admin/routes/tenants.ts: `{ limit: 1000, ...(q ? { q } : {}) }`.
      (parsed) => ({ limit: 1000, ...(parsed.q ? { q: parsed.q } : {}) }),
    );
  });
});

// ---------------------------------------------------------------- catalogos

describe('catalogos: every public query parses in backend-sim', () => {
  it('procedimentos, convenios and cids', async () => {
    const search = (min: number) => queryText(min, 100);
    await checkQuery(procedimentosQuery, procedimentosForwarded, some({ q: search(2), ativo: flag, ...page }));
    await checkQuery(conveniosQuery, conveniosForwarded, some({ q: search(2), ativo: flag, ...page }));
    await checkQuery(cidsQuery, cidsForwarded, some({ q: search(2), ...page }, ['q']));
  });

  it('the whole catalogs, asked for whole by the gateway', async () => {
    // server/routes/v1/catalogos.ts: `{ ...query, limit: WHOLE_CATALOG_LIMIT }`.
    await checkQuery(wholeCatalogQuery, wholeCatalogForwarded, fc.constant({}), (parsed) => ({
      ...parsed,
      limit: 1000,
    }));
  });
});

// ---------------------------------------------------------------- agenda

const snapshotNome = resettable(trimmedText(1, 200));
const snapshotCelular = resettable(trimmedText(1, 20));

describe('agenda: every public body and query parses in backend-sim', () => {
  it('create, with paciente_id or with the snapshot fields', () => {
    const fixed = fc.record({
      agenda_config_id: positiveInt,
      procedimento_id: positiveInt,
      convenio_id: fc.nat(),
      data: day,
      hora_inicio: hhmm,
    });
    const optional = some({
      paciente_cpf: resettable(cpf),
      paciente_nascimento: resettable(birthDate),
      paciente_sexo: resettable(fc.constantFrom('M', 'F', 'O')),
      paciente_email: resettable(email),
      plano_id: fc.option(positiveInt),
      encaixe: fc.option(fc.boolean()),
      observacoes: resettable(anyText(0, 500)),
      unidade_id: fc.option(positiveInt),
    });
    const patient = fc.oneof(
      merged(
        fc.record({ paciente_id: positiveInt }),
        some({ paciente_nome: snapshotNome, paciente_celular: snapshotCelular }),
      ),
      fc.record({ paciente_nome: trimmedText(1, 200), paciente_celular: trimmedText(1, 20) }),
    );
    checkBody(agendamentoCreateBody, apptCreateForwarded, merged(fixed, optional, patient));
  });

  it('cancelar and reagendar', () => {
    checkBody(cancelarBody, cancelForwarded, fc.record({ motivo: trimmedText(3, 500) }));
    checkBody(
      reagendarBody,
      reagendarForwarded,
      merged(
        fc.record({ nova_data: day, nova_hora_inicio: hhmm }),
        some({ agenda_config_id: fc.option(positiveInt), motivo: resettable(trimmedText(0, 500)) }),
      ),
    );
  });

  it('agendamentos, slots and configs', async () => {
    await checkQuery(
      agendamentosListQuery,
      apptListForwarded,
      fc
        .tuple(
          fc.record({ paciente_id: idText }),
          some({
            status: fc.constantFrom('agendado', 'confirmado', 'cancelado', 'nao_compareceu'),
            medico_id: idText,
            unidade_id: idText,
            agenda_config_id: idText,
            ...page,
          }),
          fc.option(period, { nil: undefined }),
        )
        .map(([id, q, p]) => ({ ...id, ...q, ...(p ? { data_inicio: p[0], data_fim: p[1] } : {}) })),
    );
    await checkQuery(
      slotsQuery,
      slotsForwarded,
      some(
        {
          procedimento_id: idText,
          unidade_id: idText,
          horizonte_dias: fc.integer({ min: 1, max: 180 }).map(String),
        },
        ['procedimento_id'],
      ),
    );
    await checkQuery(
      agendaConfigsQuery,
      configListForwarded,
      some({
        medico_id: idText,
        sala_id: idText,
        unidade_id: idText,
        tipo_vinculo: fc.constantFrom('medico', 'sala'),
        ativo: flag,
        nome: queryText(3, 100),
        ...page,
      }),
    );
  });
});

// ---------------------------------------------------------------- exames

describe('exames: every public body and query parses in backend-sim', () => {
  it('list, file and delete', async () => {
    await checkQuery(
      exameListQuery,
      exameListForwarded,
      fc
        .tuple(
          some({
            paciente_id: idText,
            medico_id: idText,
            tipo_exame_id: idText,
            status_laudo: fc.constantFrom('PENDENTE', 'EMITIDO', 'ASSINADO'),
            ...page,
          }),
          fc.option(period, { nil: undefined }),
        )
        .map(([q, p]) => (p ? { ...q, periodo_realizado_inicio: p[0], periodo_realizado_fim: p[1] } : q)),
    );
    await checkQuery(exameArquivoQuery, exameArquivoForwarded, fc.record({ tipo: fc.constantFrom('exame', 'laudo') }));
    checkBody(exameDeleteBody, exameDeleteForwarded, fc.record({ motivo: trimmedText(3, 500) }));
  });

  it('the alias lookups of exam create', async () => {
    // server/routes/v1/exames-create.ts `lookup`: the alias value as its public format left it.
    const lookup = async (format: z.ZodType, value: string, query: (v: string) => BackendQuery, schema: z.ZodType) => {
      const parsed = parsePublic(format, value) as string;
      const received = (await echo.inject({ method: 'GET', url: `/echo${buildQuery(query(parsed))}` })).json();
      expectBackendParses(schema, received, value);
    };
    const crm = fc
      .tuple(ws, fc.stringMatching(/^\d{1,10}$/), fc.option(fc.tuple(fc.constantFrom('/', '-'), uf)), ws)
      .map(([a, n, u, b]) => `${a}${n}${u ? u[0] + u[1] : ''}${b}`);
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          cpf,
          tuss: fc.stringMatching(/^\d{8}$/),
          abreviacao: trimmedText(1, 30),
          ans: fc.stringMatching(/^\d{6}$/),
        }),
        fc.record({
          convenio: trimmedText(2, 100),
          unidade: trimmedText(2, 100),
          crm,
          papel: fc.constantFrom('EXAME', 'LAUDO'),
        }),
        async (a, b) => {
          const F = EXAME_ALIAS_FORMATS;
          await lookup(F.paciente_cpf, a.cpf, (cpf) => ({ cpf }), resolucaoPacienteQuery);
          await lookup(
            F.procedimento_codigo_tuss,
            a.tuss,
            (codigo_tuss) => ({ codigo_tuss }),
            resolucaoProcedimentoQuery,
          );
          await lookup(
            F.procedimento_abreviacao,
            a.abreviacao,
            (abreviacao) => ({ abreviacao }),
            resolucaoProcedimentoQuery,
          );
          await lookup(F.convenio_codigo_ans, a.ans, (codigo_ans) => ({ codigo_ans }), resolucaoConvenioQuery);
          await lookup(F.convenio_nome, b.convenio, (nome) => ({ nome }), resolucaoConvenioQuery);
          await lookup(F.unidade_nome, b.unidade, (nome) => ({ nome }), resolucaoUnidadeQuery);
          await lookup(
            F.medico_exame_crm,
            b.crm,
            (value) => {
              const { numero, uf: estado } = parseCrm(value);
              return { crm: numero, uf: estado ?? undefined, papel: b.papel };
            },
            resolucaoMedicoQuery,
          );
        },
      ),
      { numRuns: RUNS },
    );
  });
});

// ---------------------------------------------------------------- laudos and prontuarios

const base64 = fc
  .tuple(
    fc.uint8Array({ minLength: 1, maxLength: 48 }),
    fc.constantFrom('', 'data:application/pdf;base64,', 'data:;base64,'),
  )
  .map(([bytes, prefix]) => prefix + Buffer.from(bytes).toString('base64'));
const fileName = (extensions: string[]) =>
  fc
    .tuple(ws, anyText(0, 200), fc.constantFrom(...extensions), ws)
    .map(([a, name, ext, b]) => `${a}${name}.${ext}${b}`)
    .filter((s) => length(s.trim()) <= 255);

describe('laudos: every public body and query parses in backend-sim', () => {
  it('ingest', () => {
    checkBody(
      laudoIngestBody,
      laudoIngestForwarded,
      merged(
        fc.record({
          medico_laudo_id: positiveInt,
          arquivo: fc.record({ nome: fileName(['pdf', 'PDF', 'Pdf']), base64 }),
        }),
        some({ titulo: text(255), referencia: text(255), cid_id: fc.option(positiveInt) }),
      ),
    );
  });

  it('list', async () => {
    await checkQuery(
      laudosListQuery,
      laudoListForwarded,
      fc
        .tuple(
          some({ exame_id: idText, paciente_id: idText, medico_laudo_id: idText, assinado: flag, ...page }),
          fc.option(period, { nil: undefined }),
        )
        .map(([q, p]) => (p ? { ...q, periodo_laudo_inicio: p[0], periodo_laudo_fim: p[1] } : q)),
    );
  });
});

describe('prontuarios: every public body and query parses in backend-sim', () => {
  it('create: a message and/or attachments', () => {
    const anexo = merged(
      fc.record({ nome: fileName(['pdf', 'PNG', 'jpg']), base64 }),
      some({ descricao: resettable(trimmedText(0, 255)) }),
    );
    const exibir = fc.constantFrom(0, 1, null);
    checkBody(
      prontuarioCreateBody,
      prontuarioCreateForwarded,
      fc.oneof(
        merged(
          fc.record({ mensagem: trimmedText(4, 2000) }),
          some({ anexos: fc.option(fc.array(anexo, { maxLength: 3 })), exibir }),
        ),
        merged(
          fc.record({ anexos: fc.array(anexo, { minLength: 1, maxLength: 10 }) }),
          some({ mensagem: fc.option(anyText(0, 300)), exibir }),
        ),
      ),
    );
  });

  it('records and attachments pages', async () => {
    await checkQuery(prontuariosListQuery, prontuarioPageForwarded, some(page));
    await checkQuery(prontuariosListQuery, anexoPageForwarded, some(page));
  });
});

describe('the page limit', () => {
  it('is 200 in the public API and 1000 in backend-sim, which the gateway asks for', () => {
    // The public limit is at most 200; the gateway's own calls ask for 1000, which backend-sim serves.
    expect(pacientesListQuery.safeParse({ limit: '201' }).success).toBe(false);
    expect(pacienteListForwarded.parse({ limit: '1000' }).limit).toBe(1000);
    expect(pacienteListForwarded.safeParse({ limit: '1001' }).success).toBe(false);
  });
});
