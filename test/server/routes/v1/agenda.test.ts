import { randomUUID } from 'node:crypto';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { AGENDAMENTO_SNAPSHOT_FIELDS, AGENDAMENTO_STATUS } from '../../../../contracts/schemas/agenda.ts';
import { SANDBOX_SCOPES } from '../../../../contracts/scopes.ts';
import { seedDefaultTenants } from '../../../../seed/seed.ts';
import { makeCpf, TenantFixtures } from '../../../helpers/fixtures.ts';
import type { Credentials, SignedResponse } from '../../../helpers/signed-client.ts';
import { startTestStack, type TestStack } from '../../../helpers/stack.ts';
import { journalEntries, journalEntry } from '../../../helpers/journal.ts';

// Spec 02 § Agenda, § Appointment status, § Appointment (agendamento), § Free-slot group, § Agenda config;
// spec 01 § Doctor auto-filter (SIMPLES), § Sandbox, § Data protection rules, § Idempotency contract.
// Two data sets: hand-made fixtures in the default tenant (exact rules) and the real seed (`seedDefaultTenants`)
// in `demo` and `sandbox` (the booking story, the bound key, the sandbox), as the docs use them.

let stack: TestStack;
let fx: TenantFixtures;
let raw: SQLite.Database;

/** Every response of an agenda route, searched at the end for the appointment snapshots. */
const agendaResponses: { label: string; text: string; data: string; headers: Record<string, string> }[] = [];

type Call = { method?: string; path: string; body?: unknown; idempotencyKey?: string };
async function api(req: Call, creds?: Credentials): Promise<SignedResponse<any>> {
  const method = req.method ?? 'GET';
  const idempotencyKey = req.idempotencyKey ?? (method === 'GET' ? undefined : randomUUID());
  const res = await stack.call({ ...req, method, idempotencyKey }, creds);
  if (req.path.startsWith('/v1/agenda')) {
    agendaResponses.push({
      label: `${method} ${req.path}`,
      text: res.text,
      data: JSON.stringify(res.body?.data ?? null),
      headers: res.headers,
    });
  }
  return res;
}
const get = (p: string, creds?: Credentials) => api({ path: p }, creds);
const post = (p: string, body: unknown, creds?: Credentials, idempotencyKey?: string) =>
  api({ method: 'POST', path: p, body, idempotencyKey }, creds);

function expect400(res: SignedResponse<any>, field: string) {
  expect(res.status, res.text).toBe(400);
  expect(res.body.error.code).toBe('VAL_INVALID_PARAM');
  expect(res.body.data).toBeNull();
  const fields = [res.body.error.details.field, ...(res.body.error.details.lista ?? []).map((i: any) => i.field)];
  expect(fields).toContain(field);
}
function expect422(res: SignedResponse<any>, code: string, message?: string) {
  expect(res.status, res.text).toBe(422);
  expect(res.body.error.code).toBe(code);
  if (message) expect(res.body.error.message).toBe(message);
}
function expect404(res: SignedResponse<any>) {
  expect(res.status, res.text).toBe(404);
  expect(res.body.error).toEqual({ code: 'RES_NOT_FOUND', message: 'Recurso nao encontrado.', details: null });
}

/** `YYYY-MM-DD`, `n` days from today (UTC, the backend's clock). */
const day = (n: number) => {
  const d = new Date();
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
};
/** A fresh future date per test, so tests never share a slot. */
let nextOffset = 10;
const freshDay = () => day(nextOffset++);

const APPOINTMENT_KEYS = [
  'id',
  'paciente',
  'medico',
  'sala',
  'unidade',
  'procedimento',
  'agenda_config_id',
  'data_agendamento',
  'hora_inicio',
  'hora_fim',
  'status',
  'encaixe',
  'cancelado_em',
  'criado_em',
].sort();
const DETAIL_KEYS = [...APPOINTMENT_KEYS, 'historico'].sort();

// ---------------------------------------------------------------- fixtures of the default tenant

const ids = {} as Record<
  | 'uCentro'
  | 'uNorte'
  | 'sala1'
  | 'salaB'
  | 'ana'
  | 'bruno'
  | 'zulmira'
  | 'alice'
  | 'beatriz'
  | 'proc'
  | 'procSemDuracao'
  | 'procNaoOferecido'
  | 'procOrdem'
  | 'unimed'
  | 'planoUnimed'
  | 'bloqueado'
  | 'planoBloqueado'
  | 'agAna'
  | 'agBruno'
  | 'agSala'
  | 'agInativa'
  | 'agEncerrada'
  | 'agZulmira'
  | 'agAlice'
  | 'agBeatriz'
  | 'agSalaB'
  | 'pacA'
  | 'pacB'
  | 'pacC'
  | 'pacD',
  number
>;

/** An agenda open every day of the week between `de` and `ate`, offering `procs` ([procedimento, minutes or null]). */
function agenda(row: Record<string, unknown>, de: string, ate: string, procs: [number, number | null][]): number {
  const id = fx.insert('agenda_configs', { data_inicio: '2020-01-01', criado_em: '2020-01-01T08:00:00Z', ...row });
  for (let d = 0; d < 7; d++)
    fx.insert('agenda_horarios', { agenda_config_id: id, dia_semana: d, hora_inicio: de, hora_fim: ate });
  for (const [p, dur] of procs)
    fx.insert('agenda_procedimentos', { agenda_config_id: id, procedimento_id: p, duracao_minutos: dur });
  return id;
}

function arrangeDefaultTenant() {
  ids.uCentro = fx.insert('unidades', { nome: 'UNIDADE CENTRO' });
  ids.uNorte = fx.insert('unidades', { nome: 'UNIDADE NORTE' });
  ids.sala1 = fx.insert('salas', { unidade_id: ids.uCentro, nome: 'SALA 1' });
  ids.salaB = fx.insert('salas', { unidade_id: ids.uCentro, nome: 'SALA B' });
  ids.ana = fx.medico({ nome: 'ANA SOUZA', papel_exame: 1 });
  ids.bruno = fx.medico({ nome: 'BRUNO LIMA', papel_exame: 1 });
  ids.zulmira = fx.medico({ nome: 'ZULMIRA ALVES', papel_exame: 1 });
  ids.alice = fx.medico({ nome: 'ALICE PRADO', papel_exame: 1 });
  ids.beatriz = fx.medico({ nome: 'BEATRIZ COSTA', papel_exame: 1 });
  ids.proc = fx.insert('procedimentos', { nome: 'ULTRASSONOGRAFIA TESTE' });
  ids.procSemDuracao = fx.insert('procedimentos', { nome: 'CONSULTA SEM DURACAO' });
  ids.procNaoOferecido = fx.insert('procedimentos', { nome: 'PROCEDIMENTO NAO OFERECIDO' });
  ids.procOrdem = fx.insert('procedimentos', { nome: 'PROCEDIMENTO DA ORDEM' });
  ids.unimed = fx.insert('convenios', { nome: 'UNIMED TESTE' });
  ids.planoUnimed = fx.insert('planos', { convenio_id: ids.unimed, nome: 'BASICO' });
  ids.bloqueado = fx.insert('convenios', { nome: 'CONVENIO BLOQUEADO' });
  ids.planoBloqueado = fx.insert('planos', { convenio_id: ids.bloqueado, nome: 'TOP' });

  ids.agAna = agenda(
    {
      nome: 'Agenda Ana Souza',
      tipo_vinculo: 'medico',
      medico_id: ids.ana,
      unidade_id: ids.uCentro,
      permite_encaixe: 1,
    },
    '07:00',
    '19:00',
    [
      [ids.proc, 30],
      [ids.procSemDuracao, null],
    ],
  );
  fx.insert('agenda_convenios_bloqueados', { agenda_config_id: ids.agAna, convenio_id: ids.bloqueado });
  ids.agBruno = agenda(
    {
      nome: 'Agenda Bruno Lima',
      tipo_vinculo: 'medico',
      medico_id: ids.bruno,
      unidade_id: ids.uNorte,
      permite_encaixe: 0,
    },
    '08:00',
    '12:00',
    [[ids.proc, 20]],
  );
  ids.agSala = agenda(
    { nome: 'Agenda Sala 1', tipo_vinculo: 'sala', sala_id: ids.sala1, unidade_id: ids.uCentro },
    '08:00',
    '18:00',
    [[ids.procSemDuracao, 15]],
  );
  ids.agInativa = agenda(
    { nome: 'Agenda Inativa Ana', tipo_vinculo: 'medico', medico_id: ids.ana, unidade_id: ids.uCentro, ativo: 0 },
    '08:00',
    '18:00',
    [[ids.proc, 30]],
  );
  ids.agEncerrada = agenda(
    {
      nome: 'Agenda Encerrada Bruno',
      tipo_vinculo: 'medico',
      medico_id: ids.bruno,
      unidade_id: ids.uCentro,
      data_fim: '2021-12-31',
      criado_em: null,
    },
    '08:00',
    '18:00',
    [[ids.proc, 30]],
  );
  // Free-slot ordering: the next slot by date is opposite to the label order; two groups without a slot.
  ids.agZulmira = agenda(
    {
      nome: 'Agenda Zulmira',
      tipo_vinculo: 'medico',
      medico_id: ids.zulmira,
      unidade_id: ids.uCentro,
      data_inicio: day(3),
    },
    '08:00',
    '09:00',
    [[ids.procOrdem, 30]],
  );
  ids.agAlice = agenda(
    { nome: 'Agenda Alice', tipo_vinculo: 'medico', medico_id: ids.alice, unidade_id: ids.uNorte, data_inicio: day(5) },
    '08:00',
    '09:00',
    [[ids.procOrdem, 30]],
  );
  ids.agBeatriz = agenda(
    {
      nome: 'Agenda Beatriz',
      tipo_vinculo: 'medico',
      medico_id: ids.beatriz,
      unidade_id: ids.uCentro,
      data_inicio: day(59),
    },
    '08:00',
    '09:00',
    [[ids.procOrdem, 30]],
  );
  ids.agSalaB = agenda(
    { nome: 'Agenda Sala B', tipo_vinculo: 'sala', sala_id: ids.salaB, unidade_id: ids.uCentro, data_inicio: day(100) },
    '08:00',
    '09:00',
    [[ids.procOrdem, 30]],
  );
  // An agenda offering the procedure without duration, and an inactive one: neither makes a group.
  agenda(
    { nome: 'Agenda Ordem Sem Duracao', tipo_vinculo: 'medico', medico_id: ids.ana, unidade_id: ids.uCentro },
    '08:00',
    '09:00',
    [[ids.procOrdem, null]],
  );
  agenda(
    { nome: 'Agenda Ordem Inativa', tipo_vinculo: 'medico', medico_id: ids.bruno, unidade_id: ids.uCentro, ativo: 0 },
    '08:00',
    '09:00',
    [[ids.procOrdem, 30]],
  );

  ids.pacA = fx.paciente({ nome: 'PACIENTE AGENDA A' });
  ids.pacB = fx.paciente({ nome: 'PACIENTE AGENDA B' });
  ids.pacC = fx.paciente({ nome: 'PACIENTE AGENDA C' });
  ids.pacD = fx.paciente({ nome: 'PACIENTE AGENDA D' });
}

const SNAPSHOT = {
  paciente_cpf: makeCpf(777_123),
  paciente_celular: '11955554444',
  paciente_nascimento: '1933-03-13',
  paciente_sexo: 'O',
  paciente_email: 'sentinela.agenda@example.com',
};

/** Seeded snapshot values (appointments of `demo` booked without a registered patient). */
let seededSnapshotValues: string[] = [];
let demoMedicos: number[] = [];

beforeAll(async () => {
  stack = await startTestStack({ SANDBOX_RATE_LIMIT_PER_MINUTE: '8' });
  fx = new TenantFixtures(stack.dataDir, stack.tenantSlug);
  raw = new SQLite(path.join(stack.dataDir, 'backend', `${stack.tenantSlug}.db`));
  raw.pragma('busy_timeout = 5000');
  arrangeDefaultTenant();
  // The real seed of `npm start` (demo, sandbox, clinica-b), then demo and sandbox registered in the gateway.
  const seeded = await seedDefaultTenants(stack.dataDir);
  demoMedicos = seeded.demo.medicoIds;
  await stack.createTenant('demo');
  await stack.createTenant('sandbox', { sandbox: true });
  const demoDb = new SQLite(path.join(stack.dataDir, 'backend', 'demo.db'), { readonly: true });
  seededSnapshotValues = (
    demoDb.prepare('SELECT paciente_celular FROM agendamentos WHERE paciente_celular IS NOT NULL').all() as {
      paciente_celular: string;
    }[]
  ).map((r) => r.paciente_celular);
  demoDb.close();
});

afterAll(async () => {
  raw?.close();
  fx?.close();
  await stack?.stop();
});

const book = (extra: Record<string, unknown> = {}, creds?: Credentials, idempotencyKey?: string) =>
  post(
    '/v1/agenda/agendamentos',
    {
      agenda_config_id: ids.agAna,
      procedimento_id: ids.proc,
      convenio_id: 0,
      data: freshDay(),
      hora_inicio: '08:00',
      paciente_id: ids.pacA,
      ...extra,
    },
    creds,
    idempotencyKey,
  );

async function booked(extra: Record<string, unknown> = {}): Promise<any> {
  const res = await book(extra);
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

const setStatus = (id: number, status: string) =>
  raw.prepare('UPDATE agendamentos SET status = ? WHERE id = ?').run(status, id);

// ================================================================ POST /v1/agenda/agendamentos

describe('POST /v1/agenda/agendamentos', () => {
  test('"201: appointment with status agendado; Location: /v1/agenda/agendamentos/{id}"; hora_fim derived from the agenda\'s duration; one history entry', async () => {
    const data = freshDay();
    const res = await book({ data, hora_inicio: '09:15', observacoes: 'Jejum de 6 horas' });
    expect(res.status, res.text).toBe(201);
    expect(res.headers.location).toBe(`/v1/agenda/agendamentos/${res.body.data.id}`);
    expect(res.headers['idempotency-replay']).toBe('false');
    expect(Object.keys(res.body.data).sort()).toEqual(DETAIL_KEYS);
    expect(res.body.data).toMatchObject({
      paciente: { id: ids.pacA, nome: 'PACIENTE AGENDA A' },
      medico: { id: ids.ana, nome: 'ANA SOUZA' },
      sala: null,
      unidade: { id: ids.uCentro, nome: 'UNIDADE CENTRO' },
      procedimento: { id: ids.proc, nome: 'ULTRASSONOGRAFIA TESTE' },
      agenda_config_id: ids.agAna,
      data_agendamento: data,
      hora_inicio: '09:15',
      hora_fim: '09:45',
      status: 'agendado',
      encaixe: false,
      cancelado_em: null,
    });
    expect(res.body.data.historico).toEqual([
      {
        status_anterior: null,
        status_novo: 'agendado',
        data_hora: expect.any(String),
        observacao: 'Agendamento criado via API',
      },
    ]);
    // "observacoes" is stored, never returned.
    expect(res.text).not.toContain('Jejum');
    const detail = await get(res.headers.location);
    expect(detail.status).toBe(200);
    expect(detail.body.data).toEqual(res.body.data);
  });

  test('"hora_fim is not sent": sending it is a 400 naming it; the duration of the target agenda applies (20 min on another agenda)', async () => {
    expect400(await book({ hora_fim: '09:00' }), 'hora_fim');
    const other = await booked({ agenda_config_id: ids.agBruno, hora_inicio: '08:40' });
    expect(other).toMatchObject({
      hora_inicio: '08:40',
      hora_fim: '09:00',
      unidade: { id: ids.uNorte },
      medico: { id: ids.bruno },
    });
    // Decision: on a room agenda there is no doctor: `medico` is null, `sala` the room.
    const room = await booked({
      agenda_config_id: ids.agSala,
      procedimento_id: ids.procSemDuracao,
      hora_inicio: '10:00',
    });
    expect(room).toMatchObject({ medico: null, sala: { id: ids.sala1, nome: 'SALA 1' }, hora_fim: '10:15' });
  });

  test('"force and ignorar_conflito are rejected with 400 VAL_INVALID_PARAM (details.field names it)"', async () => {
    for (const field of ['force', 'ignorar_conflito']) {
      const res = await book({ [field]: true });
      expect400(res, field);
      expect(res.body.error.details.field).toBe(field);
    }
    const both = await book({ force: false, ignorar_conflito: 1 });
    expect(both.body.error.details.lista.map((i: any) => i.field).sort()).toEqual(['force', 'ignorar_conflito']);
  });

  test('required fields: agenda_config_id, procedimento_id, convenio_id, data, hora_inicio (one consolidated 400)', async () => {
    const res = await post('/v1/agenda/agendamentos', { paciente_id: ids.pacA });
    expect(res.status).toBe(400);
    expect(res.body.error.details.lista.map((i: any) => i.field).sort()).toEqual([
      'agenda_config_id',
      'convenio_id',
      'data',
      'hora_inicio',
      'procedimento_id',
    ]);
    expect400(await book({ data: '2026-02-30' }), 'data');
    expect400(await book({ data: '01/12/2026' }), 'data');
    for (const hora of ['7:00', '24:00', '08:60', '08:00:00'])
      expect400(await book({ hora_inicio: hora }), 'hora_inicio');
    expect400(await book({ agenda_config_id: '1' }), 'agenda_config_id');
    expect400(await book({ procedimento_id: 0 }), 'procedimento_id');
    expect400(await book({ plano_id: -1 }), 'plano_id');
    expect400(await book({ unidade_id: 1.5 }), 'unidade_id');
    expect400(await book({ apelido: 'x' }), 'apelido');
    expect400(await post('/v1/agenda/agendamentos', [1, 2]), 'body');
  });

  test('"convenio_id: 0 = private (self-pay)"; a negative one is a 400; a plan must belong to the insurer', async () => {
    expect((await book({ convenio_id: 0 })).status).toBe(201);
    expect400(await book({ convenio_id: -1 }), 'convenio_id');
    expect((await book({ convenio_id: ids.unimed, plano_id: ids.planoUnimed })).status).toBe(201);
    const res = await book({ convenio_id: ids.unimed, plano_id: ids.planoBloqueado });
    expect422(res, 'BUSINESS_RULE');
    expect(res.body.error.details.field).toBe('plano_id');
  });

  test('"observacoes: at most 500 chars"', async () => {
    expect((await book({ observacoes: 'x'.repeat(500) })).status).toBe(201);
    expect400(await book({ observacoes: 'x'.repeat(501) }), 'observacoes');
  });

  test('"paciente_nome, paciente_celular: required without paciente_id"; the snapshot fields are validated', async () => {
    const res = await book({ paciente_id: undefined });
    expect(res.status).toBe(400);
    expect(res.body.error.details.lista.map((i: any) => i.field).sort()).toEqual(['paciente_celular', 'paciente_nome']);
    expect400(await book({ paciente_id: null, paciente_nome: 'Joana', paciente_celular: '' }), 'paciente_celular');
    expect400(
      await book({ paciente_id: null, paciente_nome: '   ', paciente_celular: '11999990000' }),
      'paciente_nome',
    );
    expect400(
      await book({ paciente_id: null, paciente_nome: 'x'.repeat(201), paciente_celular: '11999990000' }),
      'paciente_nome',
    );
    const base = { paciente_id: undefined, paciente_nome: 'Joana Sem Cadastro', paciente_celular: '11999990000' };
    expect400(await book({ ...base, paciente_cpf: '12345678901' }), 'paciente_cpf');
    expect400(await book({ ...base, paciente_cpf: '529.982.247-25' }), 'paciente_cpf');
    expect400(await book({ ...base, paciente_nascimento: '1990-13-01' }), 'paciente_nascimento');
    expect400(await book({ ...base, paciente_sexo: 'MAS' }), 'paciente_sexo');
    expect400(await book({ ...base, paciente_email: 'nao-e-email' }), 'paciente_email');
    const ok = await book({
      ...base,
      paciente_sexo: 'F',
      paciente_nascimento: '1990-01-01',
      paciente_email: 'joana@example.com',
      paciente_cpf: makeCpf(901),
    });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.data.paciente).toEqual({ id: null, nome: 'JOANA SEM CADASTRO' });
  });

  test('"paciente_id wins over snapshot fields when both given": the patient is the registered one, no snapshot is stored', async () => {
    const res = await book({
      paciente_id: ids.pacB,
      paciente_nome: 'Outro Nome',
      paciente_celular: '11911112222',
      paciente_email: 'outro@example.com',
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.paciente).toEqual({ id: ids.pacB, nome: 'PACIENTE AGENDA B' });
    const row = fx.get('agendamentos', res.body.data.id)!;
    expect(row).toMatchObject({
      paciente_id: ids.pacB,
      paciente_nome: null,
      paciente_celular: null,
      paciente_email: null,
    });
  });

  test('"encaixe: boolean, default false": an overbooking is accepted on an occupied time and does not block it; refused where the agenda does not allow it', async () => {
    const data = freshDay();
    await booked({ data, hora_inicio: '10:00', paciente_id: ids.pacA });
    const encaixe = await book({ data, hora_inicio: '10:00', paciente_id: ids.pacB, encaixe: true });
    expect(encaixe.status, encaixe.text).toBe(201);
    expect(encaixe.body.data.encaixe).toBe(true);
    // Outside the grid too.
    expect((await book({ data, hora_inicio: '21:00', paciente_id: ids.pacC, encaixe: true })).status).toBe(201);
    expect400(await book({ encaixe: 'sim' }), 'encaixe');
    const semEncaixe = await book({ agenda_config_id: ids.agBruno, data, hora_inicio: '09:00', encaixe: true });
    expect422(semEncaixe, 'BUSINESS_RULE', 'Agenda nao permite encaixe.');
  });

  test('"unidade_id: default the agenda\'s unit"; another unit is a BUSINESS_RULE (unit permission)', async () => {
    expect((await booked()).unidade).toEqual({ id: ids.uCentro, nome: 'UNIDADE CENTRO' });
    expect((await booked({ unidade_id: ids.uCentro })).unidade.id).toBe(ids.uCentro);
    const res = await book({ unidade_id: ids.uNorte });
    expect422(res, 'BUSINESS_RULE', 'Unidade nao permitida para esta agenda.');
    expect(res.body.error.details.field).toBe('unidade_id');
  });

  test('"422 CONFLICT: appointment time occupied (same doctor, date, hour, not an overbooking slot)"', async () => {
    const data = freshDay();
    await booked({ data, hora_inicio: '11:00', paciente_id: ids.pacA });
    expect422(await book({ data, hora_inicio: '11:00', paciente_id: ids.pacB }), 'CONFLICT');
    // An overlapping start on the same doctor is the same occupied time.
    expect422(await book({ data, hora_inicio: '10:45', paciente_id: ids.pacB }), 'CONFLICT');
    // The time right after it is free.
    expect((await book({ data, hora_inicio: '11:30', paciente_id: ids.pacB })).status).toBe(201);
  });

  test('"422 DUPLICATE: patient already has an appointment at same day/hour", on any agenda', async () => {
    const data = freshDay();
    await booked({ data, hora_inicio: '09:00', paciente_id: ids.pacC });
    const res = await book({ agenda_config_id: ids.agBruno, data, hora_inicio: '09:00', paciente_id: ids.pacC });
    expect422(res, 'DUPLICATE');
  });

  test('"422 BUSINESS_RULE ... procedure without configured duration for the agenda" and the other operational restrictions', async () => {
    const semDuracao = 'Procedimento sem duracao configurada para esta agenda.';
    expect422(await book({ procedimento_id: ids.procSemDuracao }), 'BUSINESS_RULE', semDuracao);
    expect422(await book({ procedimento_id: ids.procNaoOferecido }), 'BUSINESS_RULE', semDuracao);
    expect422(await book({ convenio_id: ids.bloqueado }), 'BUSINESS_RULE', 'Convenio bloqueado para esta agenda.');
    expect422(
      await book({ agenda_config_id: ids.agBruno, hora_inicio: '13:00' }),
      'BUSINESS_RULE',
      'Horario fora da grade da agenda.',
    );
    expect422(await book({ data: day(-1) }), 'BUSINESS_RULE', 'Nao e possivel agendar em data passada.');
    expect422(await book({ agenda_config_id: ids.agInativa }), 'BUSINESS_RULE', 'Agenda inativa.');
    expect422(await book({ agenda_config_id: ids.agEncerrada }), 'BUSINESS_RULE', 'Data fora da vigencia da agenda.');
    expect422(await book({ paciente_id: 9_999_999 }), 'BUSINESS_RULE', 'Paciente nao encontrado.');
  });

  test('an agenda that does not exist: 404 RES_NOT_FOUND; a key bound to another doctor gets the same 404 ("agenda of another doctor")', async () => {
    const missing = await book({ agenda_config_id: 9_999_999 });
    expect404(missing);
    const bruno = await stack.newKey({ medicoId: ids.bruno, scopes: ['agenda:read', 'agenda:write'] });
    const hidden = await book({}, bruno);
    expect404(hidden);
    expect(hidden.body.error).toEqual(missing.body.error);
    expect(hidden.headers.location).toBeUndefined();
    // The same key books its own doctor's agenda.
    expect((await book({ agenda_config_id: ids.agBruno, hora_inicio: '08:20' }, bruno)).status).toBe(201);
    // A room agenda belongs to no doctor: hidden from a bound key.
    expect404(await book({ agenda_config_id: ids.agSala, procedimento_id: ids.procSemDuracao }, bruno));
  });

  test('idempotency: the same key and body replays the 201 with its Location; another body under the key is IDEMPOTENCY_CONFLICT', async () => {
    const key = randomUUID();
    const body = {
      agenda_config_id: ids.agAna,
      procedimento_id: ids.proc,
      convenio_id: 0,
      data: freshDay(),
      hora_inicio: '12:00',
      paciente_id: ids.pacD,
    };
    const first = await post('/v1/agenda/agendamentos', body, undefined, key);
    expect(first.status).toBe(201);
    const replay = await post('/v1/agenda/agendamentos', body, undefined, key);
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotency-replay']).toBe('true');
    expect(replay.headers.location).toBe(first.headers.location);
    expect(replay.body.data).toEqual(first.body.data);
    expect422(
      await post('/v1/agenda/agendamentos', { ...body, hora_inicio: '12:30' }, undefined, key),
      'IDEMPOTENCY_CONFLICT',
    );
  });
});

// ================================================================ cancel

describe('POST /v1/agenda/agendamentos/{id}/cancelar', () => {
  const cancel = (id: number | string, body: unknown, creds?: Credentials, key?: string) =>
    post(`/v1/agenda/agendamentos/${id}/cancelar`, body, creds, key);

  test('"motivo string 3-500 chars, required; force blocked (400)"', async () => {
    const ag = await booked();
    expect400(await cancel(ag.id, {}), 'motivo');
    expect400(await cancel(ag.id, { motivo: 'ok' }), 'motivo');
    expect400(await cancel(ag.id, { motivo: '  ok  ' }), 'motivo');
    expect400(await cancel(ag.id, { motivo: 'x'.repeat(501) }), 'motivo');
    expect400(await cancel(ag.id, { motivo: 42 }), 'motivo');
    const forced = await cancel(ag.id, { motivo: 'Paciente desistiu', force: true });
    expect400(forced, 'force');
    expect(forced.body.error.details.field).toBe('force');
    expect400(await cancel(ag.id, { motivo: 'Paciente desistiu', outro: 1 }), 'outro');
    expect400(await cancel(0, { motivo: 'Paciente desistiu' }), 'id');
    expect400(await cancel('abc', { motivo: 'Paciente desistiu' }), 'id');
    // Nothing was cancelled by the refused calls; 3 and 500 chars pass.
    expect((await get(`/v1/agenda/agendamentos/${ag.id}`)).body.data.status).toBe('agendado');
    expect((await cancel(ag.id, { motivo: 'x'.repeat(500) })).status).toBe(200);
    expect((await cancel((await booked()).id, { motivo: 'abc' })).status).toBe(200);
  });

  test('"200 data: id, status (cancelado), cancelado_em, cancelado_motivo, data_agendamento, hora_inicio, paciente Ref"; cancelado_motivo only there', async () => {
    const ag = await booked({ hora_inicio: '14:00', paciente_id: ids.pacB });
    const res = await cancel(ag.id, { motivo: '  Paciente viajou  ' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toEqual({
      id: ag.id,
      status: 'cancelado',
      cancelado_em: expect.any(String),
      cancelado_motivo: 'Paciente viajou',
      data_agendamento: ag.data_agendamento,
      hora_inicio: '14:00',
      paciente: { id: ids.pacB, nome: 'PACIENTE AGENDA B' },
    });
    const detail = (await get(`/v1/agenda/agendamentos/${ag.id}`)).body.data;
    expect(Object.keys(detail).sort()).toEqual(DETAIL_KEYS);
    expect(detail).toMatchObject({ status: 'cancelado', cancelado_em: res.body.data.cancelado_em });
    expect(JSON.stringify(detail)).not.toContain('cancelado_motivo');
    // "Cancelling an appointment keeps its history entry."
    expect(detail.historico.map((h: any) => [h.status_anterior, h.status_novo, h.observacao])).toEqual([
      [null, 'agendado', 'Agendamento criado via API'],
      ['agendado', 'cancelado', 'Paciente viajou'],
    ]);
    // "Cancelled appointments do appear" in the listing, without the reason.
    const list = await get(`/v1/agenda/agendamentos?paciente_id=${ids.pacB}&status=cancelado&limit=200`);
    expect(list.body.data.map((a: any) => a.id)).toContain(ag.id);
    expect(list.text).not.toContain('cancelado_motivo');
    // The freed time can be booked again.
    expect((await book({ data: ag.data_agendamento, hora_inicio: '14:00', paciente_id: ids.pacC })).status).toBe(201);
  });

  test('state machine: "any status except cancelado and finalizado" → cancelado; from cancelado or finalizado "422 INVALID_STATE", unchanged', async () => {
    for (const status of AGENDAMENTO_STATUS.filter((s) => s !== 'cancelado' && s !== 'finalizado')) {
      const ag = await booked();
      setStatus(ag.id, status);
      const res = await cancel(ag.id, { motivo: `Cancelado a partir de ${status}` });
      expect(res.status, `${status}: ${res.text}`).toBe(200);
      expect((await get(`/v1/agenda/agendamentos/${ag.id}`)).body.data.historico.at(-1)).toMatchObject({
        status_anterior: status,
        status_novo: 'cancelado',
      });
    }
    const fin = await booked();
    setStatus(fin.id, 'finalizado');
    const res = await cancel(fin.id, { motivo: 'Tarde demais' });
    expect422(res, 'INVALID_STATE');
    expect((await get(`/v1/agenda/agendamentos/${fin.id}`)).body.data).toMatchObject({
      status: 'finalizado',
      cancelado_em: null,
    });
  });

  test('"Second cancel with a different key gives 422 INVALID_STATE; with the same key returns 200 replay"', async () => {
    const ag = await booked();
    const key = randomUUID();
    const first = await cancel(ag.id, { motivo: 'Paciente pediu' }, undefined, key);
    expect(first.status).toBe(200);
    expect422(await cancel(ag.id, { motivo: 'Paciente pediu' }), 'INVALID_STATE');
    const replay = await cancel(ag.id, { motivo: 'Paciente pediu' }, undefined, key);
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotency-replay']).toBe('true');
    expect(replay.body.meta.idempotent_replay).toBe(true);
    expect(replay.body.data).toEqual(first.body.data);
  });

  test("404 RES_NOT_FOUND for an unknown id, and for another doctor's appointment with a bound key", async () => {
    expect404(await cancel(9_999_999, { motivo: 'Nao existe' }));
    const ag = await booked();
    const bruno = await stack.newKey({ medicoId: ids.bruno, scopes: ['agenda:write', 'agenda:read'] });
    expect404(await cancel(ag.id, { motivo: 'Outro medico' }, bruno));
    expect((await get(`/v1/agenda/agendamentos/${ag.id}`)).body.data.status).toBe('agendado');
  });
});

// ================================================================ reschedule

describe('POST /v1/agenda/agendamentos/{id}/reagendar', () => {
  const move = (id: number | string, body: unknown, creds?: Credentials, key?: string) =>
    post(`/v1/agenda/agendamentos/${id}/reagendar`, body, creds, key);

  test('body: nova_data and nova_hora_inicio required; agenda_config_id optional; "force and ignorar_conflito blocked (400)"', async () => {
    const ag = await booked();
    const res = await move(ag.id, {});
    expect(res.body.error.details.lista.map((i: any) => i.field).sort()).toEqual(['nova_data', 'nova_hora_inicio']);
    expect400(await move(ag.id, { nova_data: '2026-02-29', nova_hora_inicio: '08:00' }), 'nova_data');
    expect400(await move(ag.id, { nova_data: freshDay(), nova_hora_inicio: '8h' }), 'nova_hora_inicio');
    expect400(
      await move(ag.id, { nova_data: freshDay(), nova_hora_inicio: '08:00', agenda_config_id: 'x' }),
      'agenda_config_id',
    );
    expect400(
      await move(ag.id, { nova_data: freshDay(), nova_hora_inicio: '08:00', motivo: 'x'.repeat(501) }),
      'motivo',
    );
    for (const field of ['force', 'ignorar_conflito']) {
      const blocked = await move(ag.id, { nova_data: freshDay(), nova_hora_inicio: '08:00', [field]: true });
      expect400(blocked, field);
      expect(blocked.body.error.details.field).toBe(field);
    }
  });

  test('"same id kept; record updated in place; one history entry with status_anterior and note of previous date/hour"; reagendado_em, reagendado_motivo', async () => {
    const ag = await booked({ hora_inicio: '15:00', paciente_id: ids.pacD });
    setStatus(ag.id, 'confirmado');
    const nova = freshDay();
    const res = await move(ag.id, {
      nova_data: nova,
      nova_hora_inicio: '09:40',
      agenda_config_id: ids.agBruno,
      motivo: 'Troca de medico',
    });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual([...DETAIL_KEYS, 'reagendado_em', 'reagendado_motivo'].sort());
    expect(res.body.data).toMatchObject({
      id: ag.id,
      status: 'agendado',
      agenda_config_id: ids.agBruno,
      medico: { id: ids.bruno },
      unidade: { id: ids.uNorte },
      data_agendamento: nova,
      hora_inicio: '09:40',
      hora_fim: '10:00',
      reagendado_em: expect.any(String),
      reagendado_motivo: 'Troca de medico',
    });
    expect(res.body.data.historico).toHaveLength(2);
    expect(res.body.data.historico[1]).toEqual({
      status_anterior: 'confirmado',
      status_novo: 'agendado',
      data_hora: res.body.data.reagendado_em,
      observacao: `Reagendado de ${ag.data_agendamento} 15:00 para ${nova} 09:40: Troca de medico`,
    });
    // The detail is the appointment resource: the reschedule fields belong to the reschedule answer.
    const detail = (await get(`/v1/agenda/agendamentos/${ag.id}`)).body.data;
    expect(Object.keys(detail).sort()).toEqual(DETAIL_KEYS);
    expect(detail.historico).toEqual(res.body.data.historico);
    // Same agenda by default; no motivo gives null.
    const again = await move(ag.id, { nova_data: nova, nova_hora_inicio: '10:00' });
    expect(again.body.data).toMatchObject({
      id: ag.id,
      agenda_config_id: ids.agBruno,
      hora_inicio: '10:00',
      hora_fim: '10:20',
      reagendado_motivo: null,
    });
    // The previous time is free again.
    expect((await book({ data: ag.data_agendamento, hora_inicio: '15:00', paciente_id: ids.pacA })).status).toBe(201);
  });

  test('"422 CONFLICT" on an occupied time; moving within its own time does not conflict with itself', async () => {
    const data = freshDay();
    const ag = await booked({ data, hora_inicio: '08:00', paciente_id: ids.pacA });
    await booked({ data, hora_inicio: '09:00', paciente_id: ids.pacB });
    expect422(await move(ag.id, { nova_data: data, nova_hora_inicio: '09:00' }), 'CONFLICT');
    expect422(await move(ag.id, { nova_data: data, nova_hora_inicio: '08:45' }), 'CONFLICT');
    expect((await move(ag.id, { nova_data: data, nova_hora_inicio: '08:15' })).status).toBe(200);
  });

  test('"422 INVALID_STATE" from cancelado and finalizado; BUSINESS_RULE when the target agenda has no duration for the procedure or blocks the insurer', async () => {
    const cancelled = await booked();
    await post(`/v1/agenda/agendamentos/${cancelled.id}/cancelar`, { motivo: 'Cancelado antes' });
    expect422(await move(cancelled.id, { nova_data: freshDay(), nova_hora_inicio: '08:00' }), 'INVALID_STATE');
    const fin = await booked();
    setStatus(fin.id, 'finalizado');
    expect422(await move(fin.id, { nova_data: freshDay(), nova_hora_inicio: '08:00' }), 'INVALID_STATE');
    const ag = await booked({ agenda_config_id: ids.agBruno, hora_inicio: '08:00', convenio_id: ids.bloqueado });
    expect422(
      await move(ag.id, { nova_data: freshDay(), nova_hora_inicio: '08:00', agenda_config_id: ids.agSala }),
      'BUSINESS_RULE',
      'Procedimento sem duracao configurada para esta agenda.',
    );
    expect422(
      await move(ag.id, { nova_data: freshDay(), nova_hora_inicio: '08:00', agenda_config_id: ids.agAna }),
      'BUSINESS_RULE',
      'Convenio bloqueado para esta agenda.',
    );
    expect422(
      await move(ag.id, { nova_data: day(-2), nova_hora_inicio: '08:00' }),
      'BUSINESS_RULE',
      'Nao e possivel agendar em data passada.',
    );
  });

  test('"404 RES_NOT_FOUND (original or target agenda outside the key\'s doctor)"', async () => {
    expect404(await move(9_999_999, { nova_data: freshDay(), nova_hora_inicio: '08:00' }));
    const bruno = await stack.newKey({ medicoId: ids.bruno, scopes: ['agenda:write', 'agenda:read'] });
    const deAna = await booked();
    const deBruno = await booked({ agenda_config_id: ids.agBruno, hora_inicio: '10:00' });
    // Original outside the filter, target inside.
    expect404(
      await move(deAna.id, { nova_data: freshDay(), nova_hora_inicio: '08:00', agenda_config_id: ids.agBruno }, bruno),
    );
    // Original inside, target outside.
    expect404(
      await move(deBruno.id, { nova_data: freshDay(), nova_hora_inicio: '08:00', agenda_config_id: ids.agAna }, bruno),
    );
    expect404(
      await move(deBruno.id, { nova_data: freshDay(), nova_hora_inicio: '08:00', agenda_config_id: 9_999_999 }, bruno),
    );
    // Both inside.
    expect((await move(deBruno.id, { nova_data: freshDay(), nova_hora_inicio: '11:00' }, bruno)).status).toBe(200);
    expect((await get(`/v1/agenda/agendamentos/${deAna.id}`)).body.data.data_agendamento).toBe(deAna.data_agendamento);
  });
});

// ================================================================ reads

describe('GET /v1/agenda/agendamentos', () => {
  test('"paciente_id integer > 0 REQUIRED (absent gives 400 VAL_INVALID_PARAM with details.field = paciente_id; anti-dump)"', async () => {
    const res = await get('/v1/agenda/agendamentos');
    expect400(res, 'paciente_id');
    expect(res.body.error.details.field).toBe('paciente_id');
    expect(res.body.error.details.lista).toHaveLength(1);
    expect((await get('/v1/agenda/agendamentos?status=agendado')).body.error.details.field).toBe('paciente_id');
    for (const v of ['0', '-1', 'abc', '01', '1.0'])
      expect400(await get(`/v1/agenda/agendamentos?paciente_id=${v}`), 'paciente_id');
  });

  test('"status (8 values)": each accepted, anything else a 400 with the accepted values; "400 also for ... invalid dates, limit > 200"', async () => {
    for (const status of AGENDAMENTO_STATUS)
      expect((await get(`/v1/agenda/agendamentos?paciente_id=${ids.pacA}&status=${status}`)).status).toBe(200);
    const bad = await get(`/v1/agenda/agendamentos?paciente_id=${ids.pacA}&status=pendente`);
    expect400(bad, 'status');
    expect(bad.body.error.details.lista[0].valores_aceitos).toEqual([...AGENDAMENTO_STATUS]);
    expect400(await get(`/v1/agenda/agendamentos?paciente_id=${ids.pacA}&status=AGENDADO`), 'status');
    expect400(await get(`/v1/agenda/agendamentos?paciente_id=${ids.pacA}&data_inicio=2026-02-30`), 'data_inicio');
    expect400(await get(`/v1/agenda/agendamentos?paciente_id=${ids.pacA}&data_fim=31/12/2026`), 'data_fim');
    expect400(
      await get(`/v1/agenda/agendamentos?paciente_id=${ids.pacA}&data_inicio=2026-12-02&data_fim=2026-12-01`),
      'data_fim',
    );
    expect400(await get(`/v1/agenda/agendamentos?paciente_id=${ids.pacA}&limit=201`), 'limit');
    expect400(await get(`/v1/agenda/agendamentos?paciente_id=${ids.pacA}&offset=-1`), 'offset');
    expect400(await get(`/v1/agenda/agendamentos?paciente_id=${ids.pacA}&medico=1`), 'medico');
  });

  test('filters: dates inclusive, status, medico_id, unidade_id, agenda_config_id; pagination meta; cancelled listed', async () => {
    const p = fx.paciente({ nome: 'PACIENTE DOS FILTROS' });
    const d1 = freshDay();
    const d2 = freshDay();
    const d3 = freshDay();
    const a1 = await booked({ paciente_id: p, data: d1, hora_inicio: '08:00' });
    const a2 = await booked({ paciente_id: p, data: d2, hora_inicio: '08:00', agenda_config_id: ids.agBruno });
    const a3 = await booked({ paciente_id: p, data: d3, hora_inicio: '08:00' });
    await post(`/v1/agenda/agendamentos/${a3.id}/cancelar`, { motivo: 'Cancelado no teste' });
    const q = (extra: string) => get(`/v1/agenda/agendamentos?paciente_id=${p}${extra}`);
    const all = await q('');
    expect(all.status).toBe(200);
    expect(all.body.meta).toMatchObject({ limit: 50, offset: 0, total: 3, has_more: false });
    // Decision: most recent first (date, then hour, descending).
    expect(all.body.data.map((a: any) => a.id)).toEqual([a3.id, a2.id, a1.id]);
    for (const item of all.body.data) expect(Object.keys(item).sort()).toEqual(APPOINTMENT_KEYS);
    expect((await q(`&data_inicio=${d2}&data_fim=${d2}`)).body.data.map((a: any) => a.id)).toEqual([a2.id]);
    expect((await q(`&data_inicio=${d2}`)).body.data.map((a: any) => a.id)).toEqual([a3.id, a2.id]);
    expect((await q(`&data_fim=${d2}`)).body.data.map((a: any) => a.id)).toEqual([a2.id, a1.id]);
    expect((await q('&status=cancelado')).body.data.map((a: any) => a.id)).toEqual([a3.id]);
    expect((await q(`&medico_id=${ids.bruno}`)).body.data.map((a: any) => a.id)).toEqual([a2.id]);
    expect((await q(`&unidade_id=${ids.uNorte}`)).body.data.map((a: any) => a.id)).toEqual([a2.id]);
    expect((await q(`&agenda_config_id=${ids.agAna}`)).body.data.map((a: any) => a.id)).toEqual([a3.id, a1.id]);
    const page = await q('&limit=1&offset=1');
    expect(page.body.meta).toEqual(expect.objectContaining({ limit: 1, offset: 1, total: 3, has_more: true }));
    expect(page.body.data.map((a: any) => a.id)).toEqual([a2.id]);
    // A patient without appointments (or unknown) lists nothing.
    expect((await get('/v1/agenda/agendamentos?paciente_id=9999999')).body).toMatchObject({
      data: [],
      meta: { total: 0 },
    });
  });

  test('"medico_id (ignored for bound keys)": a bound key sees only its doctor\'s appointments whatever medico_id says', async () => {
    const p = fx.paciente({ nome: 'PACIENTE DO FILTRO DE MEDICO' });
    const deAna = await booked({ paciente_id: p });
    const deBruno = await booked({ paciente_id: p, agenda_config_id: ids.agBruno, hora_inicio: '11:00' });
    const bruno = await stack.newKey({ medicoId: ids.bruno, scopes: ['agenda:read'] });
    const q = (extra: string) => get(`/v1/agenda/agendamentos?paciente_id=${p}${extra}`, bruno);
    expect((await q('')).body.data.map((a: any) => a.id)).toEqual([deBruno.id]);
    const asked = await q(`&medico_id=${ids.ana}`);
    expect(asked.status).toBe(200);
    expect(asked.body.data.map((a: any) => a.id)).toEqual([deBruno.id]);
    expect(asked.body.meta.total).toBe(1);
    expect((await get(`/v1/agenda/agendamentos?paciente_id=${p}`)).body.meta.total).toBe(2);
    expect404(await get(`/v1/agenda/agendamentos/${deAna.id}`, bruno));
    expect((await get(`/v1/agenda/agendamentos/${deBruno.id}`, bruno)).status).toBe(200);
  });
});

describe('GET /v1/agenda/agendamentos/{id}', () => {
  test('"historico[] ordered oldest first: status_anterior, status_novo, data_hora, observacao; the user id is never exposed"', async () => {
    const ag = await booked();
    // Entries written by the clinic system, stored out of order (later id, earlier time) and with a key id.
    fx.insert('agendamento_historico', {
      agendamento_id: ag.id,
      status_anterior: 'agendado',
      status_novo: 'aguardando_confirmacao',
      data_hora: '2099-01-02T10:00:00Z',
      observacao: 'Lembrete',
      origem: 'SISTEMA',
      chave_id: 4242,
    });
    fx.insert('agendamento_historico', {
      agendamento_id: ag.id,
      status_anterior: null,
      status_novo: 'agendado',
      data_hora: '2000-01-01T00:00:00Z',
      observacao: null,
      origem: 'SISTEMA',
      chave_id: 4242,
    });
    const res = await get(`/v1/agenda/agendamentos/${ag.id}`);
    expect(res.status).toBe(200);
    const h = res.body.data.historico;
    expect(h.map((x: any) => x.data_hora)).toEqual([...h.map((x: any) => x.data_hora)].sort());
    expect(h[0]).toEqual({
      status_anterior: null,
      status_novo: 'agendado',
      data_hora: '2000-01-01T00:00:00Z',
      observacao: null,
    });
    expect(h.at(-1)).toEqual({
      status_anterior: 'agendado',
      status_novo: 'aguardando_confirmacao',
      data_hora: '2099-01-02T10:00:00Z',
      observacao: 'Lembrete',
    });
    for (const entry of h)
      expect(Object.keys(entry).sort()).toEqual(['data_hora', 'observacao', 'status_anterior', 'status_novo']);
    // The data only: meta.request_id is random hex and can hold "4242" by chance.
    expect(JSON.stringify(res.body.data)).not.toMatch(/chave_id|\b4242\b|origem|usuario|criado_por/);
  });

  test('404 RES_NOT_FOUND for an unknown id; 400 for an id that is not a positive integer', async () => {
    expect404(await get('/v1/agenda/agendamentos/9999999'));
    for (const v of ['0', 'abc', '-3', '1e3']) expect400(await get(`/v1/agenda/agendamentos/${v}`), 'id');
  });
});

describe('GET /v1/agenda/slots', () => {
  const slots = (q: string, creds?: Credentials) => get(`/v1/agenda/slots${q ? `?${q}` : ''}`, creds);
  const group = (
    medico: number,
    sala: number,
    label: string,
    unidade: number,
    data: string | null,
    agendaId?: number,
    inicio = '08:00',
    fim = '08:30',
  ) => ({
    medico_id: medico,
    sala_id: sala,
    is_medico: medico !== 0,
    label,
    unidade_id: unidade,
    proximo_slot: data ? { data, hora_inicio: inicio, hora_fim: fim, agenda_config_id: agendaId } : null,
  });

  test('"ordered by proximo_slot.data ascending, nulls last ordered by label"; "meta has total"; medico_id 0 for rooms, sala_id 0 for doctors', async () => {
    const res = await slots(`procedimento_id=${ids.procOrdem}&horizonte_dias=30`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toEqual([
      group(ids.zulmira, 0, 'ZULMIRA ALVES', ids.uCentro, day(3), ids.agZulmira),
      group(ids.alice, 0, 'ALICE PRADO', ids.uNorte, day(5), ids.agAlice),
      group(ids.beatriz, 0, 'BEATRIZ COSTA', ids.uCentro, null),
      group(0, ids.salaB, 'SALA B', ids.uCentro, null),
    ]);
    expect(res.body.meta.total).toBe(4);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  test('"horizonte_dias integer 1-180 default 60 (above 180 gives 400)"', async () => {
    // Beatriz's agenda opens on day 59: inside the default 60 days (today .. today+59), outside 59.
    const byDefault = await slots(`procedimento_id=${ids.procOrdem}`);
    expect(byDefault.body.data.find((g: any) => g.label === 'BEATRIZ COSTA').proximo_slot).toMatchObject({
      data: day(59),
    });
    expect(
      (await slots(`procedimento_id=${ids.procOrdem}&horizonte_dias=59`)).body.data.find(
        (g: any) => g.label === 'BEATRIZ COSTA',
      ).proximo_slot,
    ).toBeNull();
    expect((await slots(`procedimento_id=${ids.procOrdem}&horizonte_dias=60`)).body.data).toEqual(byDefault.body.data);
    const max = await slots(`procedimento_id=${ids.procOrdem}&horizonte_dias=180`);
    expect(max.body.data.find((g: any) => g.label === 'SALA B').proximo_slot).toMatchObject({ data: day(100) });
    const short = await slots(`procedimento_id=${ids.procOrdem}&horizonte_dias=4`);
    expect(short.body.data.map((g: any) => [g.label, g.proximo_slot?.data ?? null])).toEqual([
      ['ZULMIRA ALVES', day(3)],
      ['ALICE PRADO', null],
      ['BEATRIZ COSTA', null],
      ['SALA B', null],
    ]);
    expect((await slots(`procedimento_id=${ids.procOrdem}&horizonte_dias=1`)).status).toBe(200);
    for (const v of ['181', '0', '-1', 'abc', '60.5', '1000'])
      expect400(await slots(`procedimento_id=${ids.procOrdem}&horizonte_dias=${v}`), 'horizonte_dias');
  });

  test('"procedimento_id integer > 0 required"; unidade_id filters; a procedure without configured duration or on inactive agendas makes no group', async () => {
    expect400(await slots(''), 'procedimento_id');
    expect400(await slots('procedimento_id=0'), 'procedimento_id');
    expect400(await slots(`procedimento_id=${ids.procOrdem}&unidade_id=x`), 'unidade_id');
    expect400(await slots(`procedimento_id=${ids.procOrdem}&medico_id=1`), 'medico_id');
    const norte = await slots(`procedimento_id=${ids.procOrdem}&unidade_id=${ids.uNorte}`);
    expect(norte.body.data.map((g: any) => g.label)).toEqual(['ALICE PRADO']);
    expect(norte.body.meta.total).toBe(1);
    expect((await slots(`procedimento_id=${ids.procNaoOferecido}`)).body).toMatchObject({
      data: [],
      meta: { total: 0 },
    });
    // procSemDuracao: no duration on Ana's agenda (no group), 15 min on the room agenda (one group).
    expect((await slots(`procedimento_id=${ids.procSemDuracao}`)).body.data.map((g: any) => g.label)).toEqual([
      'SALA 1',
    ]);
  });

  test('"Overbooking entries do not block the grid"; a booked time does', async () => {
    const data = day(3);
    const encaixe = await book({
      agenda_config_id: ids.agZulmira,
      procedimento_id: ids.procOrdem,
      data,
      hora_inicio: '08:00',
      paciente_id: ids.pacA,
      encaixe: true,
    });
    expect(encaixe.status, encaixe.text).toBe(201);
    const zulmira = async () =>
      (await slots(`procedimento_id=${ids.procOrdem}&horizonte_dias=30`)).body.data.find(
        (g: any) => g.label === 'ZULMIRA ALVES',
      ).proximo_slot;
    expect(await zulmira()).toEqual({ data, hora_inicio: '08:00', hora_fim: '08:30', agenda_config_id: ids.agZulmira });
    await booked({
      agenda_config_id: ids.agZulmira,
      procedimento_id: ids.procOrdem,
      data,
      hora_inicio: '08:00',
      paciente_id: ids.pacB,
    });
    expect(await zulmira()).toEqual({ data, hora_inicio: '08:30', hora_fim: '09:00', agenda_config_id: ids.agZulmira });
    // A cancelled appointment frees its time.
    const taken = await booked({
      agenda_config_id: ids.agZulmira,
      procedimento_id: ids.procOrdem,
      data,
      hora_inicio: '08:30',
      paciente_id: ids.pacC,
    });
    expect((await zulmira()).data).toBe(day(4));
    await post(`/v1/agenda/agendamentos/${taken.id}/cancelar`, { motivo: 'Libera o horario' });
    expect(await zulmira()).toMatchObject({ data, hora_inicio: '08:30' });
  });

  test('"For bound keys only agendas of the key\'s doctor appear"', async () => {
    const zulmira = await stack.newKey({ medicoId: ids.zulmira, scopes: ['agenda:read'] });
    const res = await slots(`procedimento_id=${ids.procOrdem}&horizonte_dias=30`, zulmira);
    expect(res.body.data.map((g: any) => g.medico_id)).toEqual([ids.zulmira]);
    expect(res.body.meta.total).toBe(1);
    const other = await stack.newKey({ medicoId: ids.bruno, scopes: ['agenda:read'] });
    expect((await slots(`procedimento_id=${ids.procOrdem}`, other)).body).toMatchObject({
      data: [],
      meta: { total: 0 },
    });
  });
});

describe('GET /v1/agenda/configs', () => {
  const configs = (q = '', creds?: Credentials) => get(`/v1/agenda/configs${q ? `?${q}` : ''}`, creds);
  const names = (res: SignedResponse<any>) => res.body.data.map((c: any) => c.nome);

  test('agenda config fields: id, nome, tipo_vinculo, medico Ref or null, sala Ref or null, unidade Ref, ativo, data_inicio, data_fim or null, criado_em (may be null)', async () => {
    const res = await configs('limit=200');
    expect(res.status).toBe(200);
    expect(res.body.meta).toMatchObject({ limit: 200, offset: 0, has_more: false });
    expect(res.body.meta.total).toBe(res.body.data.length);
    // Decision: ordered by name.
    expect(names(res)).toEqual([...names(res)].sort());
    const ana = res.body.data.find((c: any) => c.id === ids.agAna);
    expect(ana).toEqual({
      id: ids.agAna,
      nome: 'Agenda Ana Souza',
      tipo_vinculo: 'medico',
      medico: { id: ids.ana, nome: 'ANA SOUZA' },
      sala: null,
      unidade: { id: ids.uCentro, nome: 'UNIDADE CENTRO' },
      ativo: true,
      data_inicio: '2020-01-01',
      data_fim: null,
      criado_em: '2020-01-01T08:00:00Z',
    });
    expect(res.body.data.find((c: any) => c.id === ids.agSala)).toMatchObject({
      tipo_vinculo: 'sala',
      medico: null,
      sala: { id: ids.sala1, nome: 'SALA 1' },
    });
    expect(res.body.data.find((c: any) => c.id === ids.agEncerrada)).toMatchObject({
      data_fim: '2021-12-31',
      criado_em: null,
    });
    // Schedules, procedures and restrictions have no public endpoint: never in this answer.
    expect(res.text).not.toMatch(/permite_encaixe|limite_diario|horarios|duracao_minutos/);
  });

  test('filters: medico_id, sala_id, unidade_id, tipo_vinculo, "ativo 0|1 (else 400)", "nome (min 3 chars after trim, contains)", pagination', async () => {
    expect(names(await configs(`medico_id=${ids.bruno}`)).sort()).toEqual([
      'Agenda Bruno Lima',
      'Agenda Encerrada Bruno',
      'Agenda Ordem Inativa',
    ]);
    expect(names(await configs(`sala_id=${ids.sala1}`))).toEqual(['Agenda Sala 1']);
    expect(names(await configs(`unidade_id=${ids.uNorte}`)).sort()).toEqual(['Agenda Alice', 'Agenda Bruno Lima']);
    expect(names(await configs('tipo_vinculo=sala')).sort()).toEqual(['Agenda Sala 1', 'Agenda Sala B']);
    expect(names(await configs('ativo=0')).sort()).toEqual(['Agenda Inativa Ana', 'Agenda Ordem Inativa']);
    expect((await configs('ativo=1')).body.data.every((c: any) => c.ativo)).toBe(true);
    expect(names(await configs(`nome=${encodeURIComponent('  inativa ')}`)).sort()).toEqual([
      'Agenda Inativa Ana',
      'Agenda Ordem Inativa',
    ]);
    expect(names(await configs('nome=ZULM'))).toEqual(['Agenda Zulmira']);
    for (const v of ['true', '2', 'sim']) expect400(await configs(`ativo=${v}`), 'ativo');
    expect400(await configs('tipo_vinculo=MEDICO'), 'tipo_vinculo');
    expect400(await configs(`nome=${encodeURIComponent(' ab ')}`), 'nome');
    expect400(await configs('limit=0'), 'limit');
    expect400(await configs('procedimento_id=1'), 'procedimento_id');
    const page = await configs('limit=2&offset=1&tipo_vinculo=medico');
    expect(page.body.data).toHaveLength(2);
    expect(page.body.meta).toMatchObject({ limit: 2, offset: 1, has_more: true });
  });

  test('a bound key sees only its doctor\'s agendas; "medico_id (ignored for bound keys)"', async () => {
    const ana = await stack.newKey({ medicoId: ids.ana, scopes: ['agenda:read'] });
    const own = await configs('', ana);
    expect(names(own).sort()).toEqual(['Agenda Ana Souza', 'Agenda Inativa Ana', 'Agenda Ordem Sem Duracao']);
    const asked = await configs(`medico_id=${ids.bruno}`, ana);
    expect(asked.status).toBe(200);
    expect(names(asked).sort()).toEqual(names(own).sort());
    expect(names(await configs('tipo_vinculo=sala', ana))).toEqual([]);
  });
});

// ================================================================ on the seeded data

describe('the seeded demo clinic (seed/seedDefaultTenants, the data of npm start)', () => {
  let demo: Credentials;
  beforeAll(async () => {
    demo = await stack.newKey({ tenant: 'demo' });
  });

  test('booking story: slot found → booked → CONFLICT for another patient → rescheduled with history → cancelled → INVALID_STATE on a second cancel with a new key → replay with the same key', async () => {
    // 1. Find a slot for an ECG (procedure 21 of the seed).
    const found = await get('/v1/agenda/slots?procedimento_id=21', demo);
    expect(found.status).toBe(200);
    expect(found.body.meta.total).toBe(found.body.data.length);
    expect(found.body.data.length).toBeGreaterThan(1);
    const first = found.body.data[0];
    expect(first.proximo_slot).not.toBeNull();
    const slot = first.proximo_slot;

    // 2. Book it for patient 1.
    const body = {
      agenda_config_id: slot.agenda_config_id,
      procedimento_id: 21,
      convenio_id: 0,
      data: slot.data,
      hora_inicio: slot.hora_inicio,
      paciente_id: 1,
    };
    const created = await post('/v1/agenda/agendamentos', body, demo);
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.id;
    expect(created.headers.location).toBe(`/v1/agenda/agendamentos/${id}`);
    expect(created.body.data).toMatchObject({
      status: 'agendado',
      data_agendamento: slot.data,
      hora_inicio: slot.hora_inicio,
      hora_fim: slot.hora_fim,
      paciente: { id: 1 },
    });

    // 3. Another patient cannot take the same time.
    expect422(await post('/v1/agenda/agendamentos', { ...body, paciente_id: 2 }, demo), 'CONFLICT');

    // 4. The slot is gone from the search; reschedule to the next one offered.
    const again = await get('/v1/agenda/slots?procedimento_id=21', demo);
    const next = again.body.data.find(
      (g: any) => g.medico_id === first.medico_id && g.sala_id === first.sala_id && g.unidade_id === first.unidade_id,
    ).proximo_slot;
    expect(`${next.data} ${next.hora_inicio}`).not.toBe(`${slot.data} ${slot.hora_inicio}`);
    const moved = await post(
      `/v1/agenda/agendamentos/${id}/reagendar`,
      {
        nova_data: next.data,
        nova_hora_inicio: next.hora_inicio,
        agenda_config_id: next.agenda_config_id,
        motivo: 'Paciente pediu outro horario',
      },
      demo,
    );
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.data).toMatchObject({
      id,
      status: 'agendado',
      data_agendamento: next.data,
      hora_inicio: next.hora_inicio,
      reagendado_motivo: 'Paciente pediu outro horario',
    });
    const history = (await get(`/v1/agenda/agendamentos/${id}`, demo)).body.data.historico;
    expect(history).toHaveLength(2);
    expect(history[1]).toMatchObject({
      status_anterior: 'agendado',
      status_novo: 'agendado',
      observacao: `Reagendado de ${slot.data} ${slot.hora_inicio} para ${next.data} ${next.hora_inicio}: Paciente pediu outro horario`,
    });
    // The first time is free again: patient 2 gets it now.
    expect((await post('/v1/agenda/agendamentos', { ...body, paciente_id: 2 }, demo)).status).toBe(201);

    // 5. Cancel; a second cancel with a new key is INVALID_STATE; the same key replays the 200.
    const key = randomUUID();
    const cancelled = await post(`/v1/agenda/agendamentos/${id}/cancelar`, { motivo: 'Paciente desistiu' }, demo, key);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data).toMatchObject({
      id,
      status: 'cancelado',
      cancelado_motivo: 'Paciente desistiu',
      paciente: { id: 1 },
    });
    expect422(
      await post(`/v1/agenda/agendamentos/${id}/cancelar`, { motivo: 'Paciente desistiu' }, demo),
      'INVALID_STATE',
    );
    const replay = await post(`/v1/agenda/agendamentos/${id}/cancelar`, { motivo: 'Paciente desistiu' }, demo, key);
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotency-replay']).toBe('true');
    expect(replay.body.data).toEqual(cancelled.body.data);

    // The patient's listing shows it cancelled, with its whole history in the detail.
    const list = await get('/v1/agenda/agendamentos?paciente_id=1&status=cancelado&limit=200', demo);
    expect(list.body.data.find((a: any) => a.id === id)).toMatchObject({
      status: 'cancelado',
      cancelado_em: cancelled.body.data.cancelado_em,
    });
    expect(
      (await get(`/v1/agenda/agendamentos/${id}`, demo)).body.data.historico.map((h: any) => h.status_novo),
    ).toEqual(['agendado', 'agendado', 'cancelado']);
  });

  test("a key bound to a doctor sees and books only that doctor's agendas", async () => {
    const doctor = demoMedicos[0];
    const bound = await stack.newKey({ tenant: 'demo', medicoId: doctor, scopes: ['agenda:read', 'agenda:write'] });
    const configs = await get('/v1/agenda/configs?limit=200', bound);
    expect(configs.body.data.length).toBeGreaterThan(0);
    expect(configs.body.data.every((c: any) => c.medico?.id === doctor)).toBe(true);
    const all = await get('/v1/agenda/configs?limit=200', demo);
    expect(all.body.meta.total).toBeGreaterThan(configs.body.meta.total);
    const otherAgenda = all.body.data.find((c: any) => c.medico && c.medico.id !== doctor && c.ativo);

    const slots = await get('/v1/agenda/slots?procedimento_id=21', bound);
    expect(slots.body.data.length).toBeGreaterThan(0);
    expect(slots.body.data.every((g: any) => g.medico_id === doctor && g.is_medico)).toBe(true);
    const everyone = await get('/v1/agenda/slots?procedimento_id=21', demo);
    expect(everyone.body.data.some((g: any) => g.medico_id !== doctor)).toBe(true);

    const own = slots.body.data[0].proximo_slot;
    const mine = await post(
      '/v1/agenda/agendamentos',
      {
        agenda_config_id: own.agenda_config_id,
        procedimento_id: 21,
        convenio_id: 0,
        data: own.data,
        hora_inicio: own.hora_inicio,
        paciente_id: 3,
      },
      bound,
    );
    expect(mine.status, mine.text).toBe(201);
    expect(mine.body.data.medico.id).toBe(doctor);
    const foreign = await post(
      '/v1/agenda/agendamentos',
      {
        agenda_config_id: otherAgenda.id,
        procedimento_id: 21,
        convenio_id: 0,
        data: own.data,
        hora_inicio: own.hora_inicio,
        paciente_id: 3,
      },
      bound,
    );
    expect404(foreign);

    // Another doctor's appointment of the same patient: invisible in the list and the detail, untouchable.
    const theirs = everyone.body.data.find((g: any) => g.medico_id !== doctor && g.proximo_slot).proximo_slot;
    const other = await post(
      '/v1/agenda/agendamentos',
      {
        agenda_config_id: theirs.agenda_config_id,
        procedimento_id: 21,
        convenio_id: 0,
        data: theirs.data,
        hora_inicio: theirs.hora_inicio,
        paciente_id: 4,
      },
      demo,
    );
    expect(other.status, other.text).toBe(201);
    expect404(await get(`/v1/agenda/agendamentos/${other.body.data.id}`, bound));
    const boundList = (await get('/v1/agenda/agendamentos?paciente_id=4&limit=200', bound)).body.data;
    expect(boundList.map((a: any) => a.id)).not.toContain(other.body.data.id);
    expect(boundList.every((a: any) => a.medico.id === doctor)).toBe(true);
    expect(
      (await get('/v1/agenda/agendamentos?paciente_id=4&limit=200', demo)).body.data.map((a: any) => a.id),
    ).toContain(other.body.data.id);
    expect404(await post(`/v1/agenda/agendamentos/${other.body.data.id}/cancelar`, { motivo: 'Nao e meu' }, bound));
    expect404(
      await post(
        `/v1/agenda/agendamentos/${other.body.data.id}/reagendar`,
        { nova_data: own.data, nova_hora_inicio: own.hora_inicio, agenda_config_id: own.agenda_config_id },
        bound,
      ),
    );
    expect404(
      await post(
        `/v1/agenda/agendamentos/${mine.body.data.id}/reagendar`,
        { nova_data: theirs.data, nova_hora_inicio: theirs.hora_inicio, agenda_config_id: theirs.agenda_config_id },
        bound,
      ),
    );
    expect(
      (await post(`/v1/agenda/agendamentos/${mine.body.data.id}/cancelar`, { motivo: 'Meu, cancelo' }, bound)).status,
    ).toBe(200);
  });

  test("the seed's room agenda offers the consultation without duration: BUSINESS_RULE; its blocked insurer: BUSINESS_RULE", async () => {
    const rooms = (await get('/v1/agenda/configs?tipo_vinculo=sala', demo)).body.data;
    expect(rooms.length).toBeGreaterThan(0);
    expect422(
      await post(
        '/v1/agenda/agendamentos',
        {
          agenda_config_id: rooms[0].id,
          procedimento_id: 30,
          convenio_id: 0,
          data: day(14),
          hora_inicio: '08:00',
          paciente_id: 5,
        },
        demo,
      ),
      'BUSINESS_RULE',
      'Procedimento sem duracao configurada para esta agenda.',
    );
  });
});

// ================================================================ sandbox

describe('sandbox tenant (spec 01 § Sandbox)', () => {
  test('"Enabled in the sandbox: ... the three agenda POST operations"; patient record and patient writes are not (403 OPERATION_NOT_ALLOWED)', async () => {
    const key = await stack.newKey({ tenant: 'sandbox', scopes: SANDBOX_SCOPES });
    const found = await get('/v1/agenda/slots?procedimento_id=1&horizonte_dias=30', key);
    const slot = found.body.data.find((g: any) => g.proximo_slot).proximo_slot;
    const created = await post(
      '/v1/agenda/agendamentos',
      {
        agenda_config_id: slot.agenda_config_id,
        procedimento_id: 1,
        convenio_id: 0,
        data: slot.data,
        hora_inicio: slot.hora_inicio,
        paciente_id: 1,
      },
      key,
    );
    expect(created.status, created.text).toBe(201);
    const next = (await get('/v1/agenda/slots?procedimento_id=1&horizonte_dias=30', key)).body.data.find(
      (g: any) => g.proximo_slot?.agenda_config_id === slot.agenda_config_id,
    ).proximo_slot;
    const moved = await post(
      `/v1/agenda/agendamentos/${created.body.data.id}/reagendar`,
      { nova_data: next.data, nova_hora_inicio: next.hora_inicio },
      key,
    );
    expect(moved.status, moved.text).toBe(200);
    expect(
      (await post(`/v1/agenda/agendamentos/${created.body.data.id}/cancelar`, { motivo: 'Teste no sandbox' }, key))
        .status,
    ).toBe(200);
    const record = await stack.call(
      {
        method: 'POST',
        path: '/v1/pacientes/1/prontuarios',
        body: { mensagem: '<p>sandbox</p>' },
        idempotencyKey: randomUUID(),
      },
      await stack.newKey({ tenant: 'sandbox' }),
    );
    expect(record.status).toBe(403);
    expect(record.body.error.code).toBe('OPERATION_NOT_ALLOWED');
  });

  test('"rate limit is reduced; exceeding it returns 429": agenda writes count against the sandbox quota (8/min here), not the normal one', async () => {
    const key = await stack.newKey({ tenant: 'sandbox', scopes: SANDBOX_SCOPES });
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++)
      statuses.push(
        (await post('/v1/agenda/agendamentos/999999/cancelar', { motivo: 'Quota do sandbox' }, key)).status,
      );
    expect(statuses).toEqual(Array(8).fill(404));
    const over = await post('/v1/agenda/agendamentos/999999/cancelar', { motivo: 'Quota do sandbox' }, key);
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(over.headers['retry-after']).toBeDefined();
    // The same 10 writes on a normal tenant stay under its quota.
    const normal = await stack.newKey({ tenant: 'demo' });
    for (let i = 0; i < 10; i++)
      expect((await post('/v1/agenda/agendamentos/999999/cancelar', { motivo: 'Quota normal' }, normal)).status).toBe(
        404,
      );
  });
});

// ================================================================ data protection (runs last: it searches everything above)

describe('data protection (spec 01 § Data protection rules)', () => {
  test('an appointment booked without paciente_id goes through every agenda route; its snapshots are redacted in the audit log', async () => {
    const data = freshDay();
    const created = await book({
      paciente_id: undefined,
      paciente_nome: 'Sentinela Sem Cadastro',
      data,
      hora_inicio: '16:00',
      ...SNAPSHOT,
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.id;
    // Stored (the clinic keeps them)...
    expect(fx.get('agendamentos', id)).toMatchObject({
      paciente_cpf: SNAPSHOT.paciente_cpf,
      paciente_email: SNAPSHOT.paciente_email,
      paciente_sexo: 'O',
    });
    // ...and visible by id only, as {id: null, nome}.
    const detail = await get(`/v1/agenda/agendamentos/${id}`);
    expect(detail.body.data.paciente).toEqual({ id: null, nome: 'SENTINELA SEM CADASTRO' });
    await book({ data, hora_inicio: '16:00', paciente_id: ids.pacB });
    await post(`/v1/agenda/agendamentos/${id}/reagendar`, {
      nova_data: data,
      nova_hora_inicio: '17:00',
      motivo: 'Sentinela move',
    });
    await get(`/v1/agenda/agendamentos?paciente_id=${ids.pacA}&limit=200`);
    await get(`/v1/agenda/slots?procedimento_id=${ids.proc}`);
    await get('/v1/agenda/configs');
    const cancelled = await post(`/v1/agenda/agendamentos/${id}/cancelar`, { motivo: 'Sentinela cancela' });
    expect(cancelled.body.data.paciente).toEqual({ id: null, nome: 'SENTINELA SEM CADASTRO' });
    // "Appointments without paciente_id do not appear in listings."
    for (const p of [ids.pacA, ids.pacB, ids.pacC, ids.pacD]) {
      expect(
        (await get(`/v1/agenda/agendamentos?paciente_id=${p}&limit=200`)).body.data.map((a: any) => a.id),
      ).not.toContain(id);
    }

    const row = (await journalEntry(stack, created.body.meta.request_id))!;
    const audited = JSON.parse(row.body);
    for (const field of AGENDAMENTO_SNAPSHOT_FIELDS) expect(audited[field], field).toBe('[REDACTED]');
    expect(audited.paciente_nome).toBe('Sentinela Sem Cadastro');
    const dump = JSON.stringify(await journalEntries(stack));
    for (const value of [
      SNAPSHOT.paciente_cpf,
      SNAPSHOT.paciente_celular,
      SNAPSHOT.paciente_email,
      SNAPSHOT.paciente_nascimento,
    ])
      expect(dump).not.toContain(value);
  });

  test('"Personal snapshots ... are never returned by any endpoint": no agenda response of this file contains a snapshot field or value', async () => {
    expect(agendaResponses.length).toBeGreaterThan(200);
    const routes = new Set(
      agendaResponses.map((r) => r.label.replace(/\?.*$/, '').replace(/\/agendamentos\/[^/]+/, '/agendamentos/{id}')),
    );
    expect([...routes].sort()).toEqual(
      [
        'GET /v1/agenda/agendamentos',
        'GET /v1/agenda/agendamentos/{id}',
        'GET /v1/agenda/configs',
        'GET /v1/agenda/slots',
        'POST /v1/agenda/agendamentos',
        'POST /v1/agenda/agendamentos/{id}/cancelar',
        'POST /v1/agenda/agendamentos/{id}/reagendar',
      ].sort(),
    );
    const values = [
      SNAPSHOT.paciente_cpf,
      SNAPSHOT.paciente_celular,
      SNAPSHOT.paciente_email,
      SNAPSHOT.paciente_nascimento,
      ...seededSnapshotValues,
    ];
    expect(seededSnapshotValues.length).toBeGreaterThan(0);
    for (const { label, text, data, headers } of agendaResponses) {
      // Field names may appear in a 400's details (the field the client sent); never in data.
      for (const field of [...AGENDAMENTO_SNAPSHOT_FIELDS, 'observacoes', 'cancelado_por', 'exame_id'])
        expect(data, `${label} returns ${field}`).not.toContain(field);
      const all = text + JSON.stringify(headers);
      for (const value of values) expect(all, `${label} carries a snapshot value`).not.toContain(value);
    }
  });
});

test('backend-sim answered every call of this file within the contract (response schemas exact, known codes only)', () => {
  expect(stack.backend.contractViolations).toEqual([]);
});
