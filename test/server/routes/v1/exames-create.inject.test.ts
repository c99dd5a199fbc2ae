import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { exameCreateResolved } from '../../../../contracts/backend/exames.ts';
import type { ClinicSettings } from '../../../../contracts/backend/settings.ts';
import { makeCpf } from '../../../helpers/fixtures.ts';
import { FakeBackend, injectApp, type InjectApp } from '../../inject/app.ts';

// POST /v1/exames's alias resolution and tenant defaults (spec 02 § POST /v1/exames, spec 01 § Alias
// resolution codes), in process: buildApp + app.inject with a fake backend, so each case is the gateway's
// logic alone (what it asks backend-sim, what it forwards, what it answers). exames-create.test.ts covers
// the same rules end to end against backend-sim.

const T = 'clinica-inject';
const cpfAna = makeCpf(930_001);
const cpfNobody = makeCpf(930_002);

const NO_DEFAULTS = { unidade_id: null, medico_exame_id: null, medico_laudo_id: null, convenio_id: null };
let settings: ClinicSettings;
/** Exact-match answers of backend-sim's /resolucao/* by `route?param=value`. */
let matches: Record<string, Array<{ id: number; nome: string }>>;

const fake = new FakeBackend({
  [`GET /tenants/${T}/settings`]: () => ({ data: settings }),
  [`POST /tenants/${T}/exames`]: (call) => {
    const body = exameCreateResolved.parse(call.body);
    return {
      data: {
        id: 501,
        paciente: { id: body.paciente_id, nome: 'ANA' },
        medico_exame: body.medico_exame_id ? { id: body.medico_exame_id, nome: 'DR EXAME' } : null,
        medico_laudo: null,
        solicitante: null,
        tipo_exame: { id: body.procedimento_id, nome: 'USG' },
        data_realizado: '2026-11-25',
        status_laudo: 'PENDENTE',
        tem_arquivo_exame: false,
        tem_arquivo_laudo: false,
        criado_em: '2026-11-25T12:00:00.000Z',
        url_arquivo_exame: null,
        url_arquivo_laudo: null,
        requer_laudo: true,
        prioridade: 1,
      },
    };
  },
});
for (const what of ['pacientes', 'procedimentos', 'convenios', 'medicos', 'unidades']) {
  fake.on(`GET /tenants/${T}/resolucao/${what}`, (call) => {
    const [name, value] = Object.entries(call.query ?? {}).find(
      ([n, v]) => v !== undefined && n !== 'uf' && n !== 'papel',
    )!;
    const found = matches[`${what}?${name}=${value}`] ?? [];
    return { data: found.slice(0, 10), meta: { total: found.length } };
  });
}

let gw: InjectApp;
const post = (body: unknown) => gw.request({ method: 'POST', path: '/v1/exames', body, idempotencyKey: randomUUID() });
/** What the gateway sent backend-sim to create, parsed by the contract both processes use. */
const forwarded = () => exameCreateResolved.strict().parse(fake.callsTo(`POST /tenants/${T}/exames`).at(-1)!.body);

beforeAll(async () => {
  gw = await injectApp(fake, { tenantSlug: T });
});
afterAll(() => gw.close());
beforeEach(() => {
  fake.calls.length = 0;
  settings = {
    nome: 'Clinica Inject',
    cpf_obrigatorio: false,
    celular_obrigatorio: false,
    solicitante_obrigatorio: false,
    medico_laudo_obrigatorio: false,
    central_laudos_disponivel: true,
    defaults: { ...NO_DEFAULTS },
  };
  matches = {
    [`pacientes?cpf=${cpfAna}`]: [{ id: 7, nome: 'ANA ALIAS' }],
    'procedimentos?codigo_tuss=40901122': [{ id: 3, nome: 'Ultrassonografia de abdome total' }],
    'procedimentos?codigo_tuss=41101189': [
      { id: 11, nome: 'RM de joelho' },
      { id: 12, nome: 'RM de ombro' },
    ],
    'unidades?nome=Centro': [{ id: 2, nome: 'Centro' }],
  };
});

describe('POST /v1/exames in process: alias resolution', () => {
  test('aliases that match one record each become ids: the backend gets ids only, meta.resolvido says which', async () => {
    const res = await post({
      paciente_cpf: cpfAna,
      procedimento_codigo_tuss: '40901122',
      unidade_nome: 'Centro',
      medico_exame_id: 4,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.meta.resolvido).toEqual({ paciente_id: 7, procedimento_id: 3, unidade_id: 2 });
    expect(res.body.meta.defaults_aplicados).toBeUndefined();
    expect(forwarded()).toEqual({ paciente_id: 7, procedimento_id: 3, unidade_id: 2, medico_exame_id: 4 });
    // All aliases resolved at once, each by exact match on its own field.
    expect(fake.callsTo(`GET /tenants/${T}/resolucao/pacientes`)[0].query).toEqual({ cpf: cpfAna });
    expect(fake.callsTo(`GET /tenants/${T}/resolucao/procedimentos`)[0].query).toEqual({ codigo_tuss: '40901122' });
    // The caller's context rides along (key, doctor filter, request id).
    expect(fake.callsTo(`POST /tenants/${T}/exames`)[0].context).toMatchObject({
      chaveId: gw.creds.chaveId,
      medicoFiltroId: 0,
    });
  });

  test('an alias matching several records → 422 RESOLUTION_AMBIGUOUS with the candidates, nothing created', async () => {
    const res = await post({ paciente_id: 7, procedimento_codigo_tuss: '41101189', unidade_id: 2, medico_exame_id: 4 });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('RESOLUTION_AMBIGUOUS');
    expect(res.body.error.details.field).toBe('procedimento_codigo_tuss');
    expect(res.body.error.details.candidatos).toEqual([
      { id: 11, nome: 'RM de joelho' },
      { id: 12, nome: 'RM de ombro' },
    ]);
    expect(res.body.error.details.lista[0]).toMatchObject({
      code: 'RESOLUTION_AMBIGUOUS',
      fonte: 'GET /v1/procedimentos?q={nome}',
      alias_aceito: 'procedimento_codigo_tuss',
    });
    expect(fake.callsTo(`POST /tenants/${T}/exames`)).toHaveLength(0);
  });

  test('an alias matching nothing → 422 RESOLUTION_NOT_FOUND; with an ambiguous one too, the primary code is the more severe', async () => {
    const alone = await post({ paciente_cpf: cpfNobody, procedimento_id: 3, unidade_id: 2, medico_exame_id: 4 });
    expect(alone.status).toBe(422);
    expect(alone.body.error.code).toBe('RESOLUTION_NOT_FOUND');
    expect(alone.body.error.details.field).toBe('paciente_cpf');

    const both = await post({
      paciente_cpf: cpfNobody,
      procedimento_codigo_tuss: '41101189',
      unidade_id: 2,
      medico_exame_id: 4,
    });
    expect(both.status).toBe(422);
    expect(both.body.error.code).toBe('RESOLUTION_AMBIGUOUS');
    expect(both.body.error.message).toBe('2 campos precisam de atencao.');
    expect(both.body.error.details.lista.map((i: { code: string }) => i.code)).toEqual([
      'RESOLUTION_NOT_FOUND',
      'RESOLUTION_AMBIGUOUS',
    ]);
    expect(fake.callsTo(`POST /tenants/${T}/exames`)).toHaveLength(0);
  });

  test('an id and an alias that name different records → 422 PARAM_CONFLICT (the id wins only when they agree)', async () => {
    const res = await post({
      paciente_id: 8,
      paciente_cpf: cpfAna,
      procedimento_id: 3,
      unidade_id: 2,
      medico_exame_id: 4,
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('PARAM_CONFLICT');
    expect(res.body.error.details.lista[0]).toMatchObject({ field: 'paciente_cpf', id_informado: 8, id_resolvido: 7 });

    const agreeing = await post({
      paciente_id: 7,
      paciente_cpf: cpfAna,
      procedimento_id: 3,
      unidade_id: 2,
      medico_exame_id: 4,
    });
    expect(agreeing.status, JSON.stringify(agreeing.body)).toBe(201);
    expect(agreeing.body.meta.resolvido).toBeUndefined();
    expect(forwarded().paciente_id).toBe(7);
  });
});

describe('POST /v1/exames in process: tenant defaults', () => {
  test('a key left out takes the clinic default: forwarded, and named in meta.defaults_aplicados', async () => {
    settings.defaults = { ...NO_DEFAULTS, unidade_id: 2, medico_exame_id: 4, convenio_id: 9 };
    const res = await post({ paciente_id: 7, procedimento_id: 3 });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.meta.defaults_aplicados).toEqual({ unidade_id: 2, medico_exame_id: 4, convenio_id: 9 });
    expect(forwarded()).toEqual({
      paciente_id: 7,
      procedimento_id: 3,
      unidade_id: 2,
      medico_exame_id: 4,
      convenio_id: 9,
    });
  });

  test('a default never overwrites a present value or alias', async () => {
    settings.defaults = { ...NO_DEFAULTS, unidade_id: 99, medico_exame_id: 4 };
    const res = await post({ paciente_id: 7, procedimento_id: 3, unidade_nome: 'Centro' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.meta).toMatchObject({ resolvido: { unidade_id: 2 }, defaults_aplicados: { medico_exame_id: 4 } });
    expect(forwarded().unidade_id).toBe(2);
  });

  test('a required key with no id, alias or default → 400 "Obrigatorio (sem default no tenant)." teaching where to look; nothing resolved', async () => {
    matches = {};
    const res = await post({ paciente_cpf: cpfAna, procedimento_id: 3 });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VAL_INVALID_PARAM');
    expect(res.body.error.details.lista).toEqual([
      {
        field: 'unidade_id',
        msg: 'Obrigatorio (sem default no tenant).',
        fonte: 'GET /v1/unidades',
        alias_aceito: 'unidade_nome',
      },
      {
        field: 'medico_exame_id',
        msg: 'Obrigatorio (sem default no tenant).',
        fonte: 'GET /v1/medicos?papel=EXAME',
        alias_aceito: 'medico_exame_crm',
      },
    ]);
    expect(fake.calls.filter((c) => c.path.includes('/resolucao/'))).toHaveLength(0);
  });

  test("the clinic's rules: a required requesting doctor, a reporting doctor replaced by a report group", async () => {
    settings.defaults = { ...NO_DEFAULTS, unidade_id: 2, medico_exame_id: 4, medico_laudo_id: 5 };
    settings.solicitante_obrigatorio = true;
    settings.medico_laudo_obrigatorio = true;
    const missing = await post({ paciente_id: 7, procedimento_id: 3 });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.lista.map((i: { field: string }) => i.field)).toEqual(['medico_solicitante_id']);

    const grouped = await post({ paciente_id: 7, procedimento_id: 3, medico_solicitante_id: 6, grupos_laudos_id: 2 });
    expect(grouped.status, JSON.stringify(grouped.body)).toBe(201);
    // The group replaces the reporting doctor: its default is not applied.
    expect(forwarded()).toEqual({
      paciente_id: 7,
      procedimento_id: 3,
      unidade_id: 2,
      medico_exame_id: 4,
      medico_solicitante_id: 6,
      grupos_laudos_id: 2,
    });
  });
});
