import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantDatabase } from '../../../backend-sim/db/database.ts';
import { arrangeCatalog, createTenant, startHarness, type Harness } from '../helpers.ts';

// Clock: Monday 2026-11-02 09:00 UTC.
let h: Harness;
let t: TenantDatabase;
const base = '/tenants/demo/agenda';

beforeAll(async () => {
  h = await startHarness({ now: () => new Date('2026-11-02T09:00:00Z') });
  t = await createTenant(h, 'demo');
  await arrangeCatalog(t);
  await t.db
    .insertInto('pacientes')
    .values(
      [1, 2, 3, 4].map((i) => ({
        nome: `PACIENTE ${i}`,
        numero_prontuario: String(i),
        usuario: `p${i}`,
        senha_hash: 'x',
        criado_em: '2026-01-01T00:00:00Z',
      })),
    )
    .execute();
  const cfg = (nome: string, v: { medico_id?: number; sala_id?: number }, permite_encaixe = 1) => ({
    nome,
    tipo_vinculo: v.medico_id ? 'medico' : 'sala',
    unidade_id: 1,
    data_inicio: '2026-01-01',
    permite_encaixe,
    criado_em: '2026-01-01T00:00:00Z',
    ...v,
  });
  await t.db
    .insertInto('agenda_configs')
    .values([
      cfg('Agenda Dra Ana', { medico_id: 1 }),
      cfg('Agenda Dr Bruno', { medico_id: 2 }, 0),
      cfg('Agenda Sala 1', { sala_id: 1 }),
    ])
    .execute();
  const horarios = [
    ...[1, 2, 3, 4, 5].map((d) => ({ agenda_config_id: 1, dia_semana: d, hora_inicio: '08:00', hora_fim: '12:00' })),
    { agenda_config_id: 2, dia_semana: 1, hora_inicio: '08:00', hora_fim: '10:00' },
    { agenda_config_id: 3, dia_semana: 6, hora_inicio: '08:00', hora_fim: '09:00' },
  ];
  await t.db.insertInto('agenda_horarios').values(horarios).execute();
  await t.db
    .insertInto('agenda_procedimentos')
    .values([
      { agenda_config_id: 1, procedimento_id: 1, duracao_minutos: 30 },
      { agenda_config_id: 1, procedimento_id: 2, duracao_minutos: null },
      { agenda_config_id: 2, procedimento_id: 1, duracao_minutos: 20 },
      { agenda_config_id: 3, procedimento_id: 1, duracao_minutos: 30 },
    ])
    .execute();
  await t.db.insertInto('agenda_convenios_bloqueados').values({ agenda_config_id: 1, convenio_id: 2 }).execute();
});
afterAll(() => h.close());

const criar = (extra: Record<string, unknown>, headers: Record<string, string> = {}) =>
  h.call(
    'POST',
    `${base}/agendamentos`,
    {
      agenda_config_id: 1,
      procedimento_id: 1,
      convenio_id: 0,
      data: '2026-11-03',
      hora_inicio: '08:00',
      paciente_id: 1,
      ...extra,
    },
    headers,
  );

describe('agenda configs', () => {
  it('lists configs with refs; a bound key sees only its own', async () => {
    const all = await h.call('GET', `${base}/configs`);
    expect(all.body.meta.total).toBe(3);
    expect(all.body.data.find((c: { id: number }) => c.id === 1)).toEqual({
      id: 1,
      nome: 'Agenda Dra Ana',
      tipo_vinculo: 'medico',
      medico: { id: 1, nome: 'Ana Souza' },
      sala: null,
      unidade: { id: 1, nome: 'Unidade Centro' },
      ativo: true,
      data_inicio: '2026-01-01',
      data_fim: null,
      criado_em: '2026-01-01T00:00:00Z',
    });
    expect(
      (await h.call('GET', `${base}/configs?tipo_vinculo=sala`)).body.data.map((c: { id: number }) => c.id),
    ).toEqual([3]);
    expect((await h.call('GET', `${base}/configs?nome=bruno`)).body.data.map((c: { id: number }) => c.id)).toEqual([2]);
    const bound = await h.call('GET', `${base}/configs?medico_id=1`, undefined, { 'x-medico-filtro-id': '2' });
    expect(bound.body.data.map((c: { id: number }) => c.id)).toEqual([2]);
  });
});

describe('POST /agenda/agendamentos', () => {
  it('creates agendado with hora_fim from the configured duration and one history entry', async () => {
    const res = await criar({ hora_inicio: '08:30', observacoes: 'jejum' }, { 'x-chave-id': '8' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      paciente: { id: 1, nome: 'PACIENTE 1' },
      medico: { id: 1, nome: 'Ana Souza' },
      sala: null,
      unidade: { id: 1, nome: 'Unidade Centro' },
      procedimento: { id: 1 },
      agenda_config_id: 1,
      data_agendamento: '2026-11-03',
      hora_inicio: '08:30',
      hora_fim: '09:00',
      status: 'agendado',
      encaixe: false,
      cancelado_em: null,
      historico: [
        {
          status_anterior: null,
          status_novo: 'agendado',
          data_hora: '2026-11-02T09:00:00Z',
          observacao: 'Agendamento criado via API',
        },
      ],
    });
    const hist = await t.db
      .selectFrom('agendamento_historico')
      .selectAll()
      .where('agendamento_id', '=', res.body.data.id)
      .executeTakeFirstOrThrow();
    expect(hist).toMatchObject({ origem: 'API', chave_id: 8 });
  });

  it('CONFLICT on an overlapping slot, DUPLICATE for the same patient and hour, encaixe allowed over the grid', async () => {
    await criar({ hora_inicio: '10:00', paciente_id: 2 });
    const conflito = await criar({ hora_inicio: '10:00', paciente_id: 3 });
    expect(conflito.status).toBe(422);
    expect(conflito.body.error.code).toBe('CONFLICT');
    // Overlap, not just an equal start: 09:45-10:15 collides with 10:00-10:30.
    expect((await criar({ hora_inicio: '09:45', paciente_id: 3 })).body.error.code).toBe('CONFLICT');
    // Same patient, same day and hour: on the same agenda and on another doctor's agenda.
    expect((await criar({ hora_inicio: '10:00', paciente_id: 2 })).body.error.code).toBe('DUPLICATE');
    expect((await criar({ data: '2026-11-16', hora_inicio: '08:00', paciente_id: 2 })).status).toBe(201);
    const dup = await criar({ data: '2026-11-16', hora_inicio: '08:00', paciente_id: 2, agenda_config_id: 2 });
    expect(dup.status).toBe(422);
    expect(dup.body.error.code).toBe('DUPLICATE');
    const encaixe = await criar({ hora_inicio: '10:00', paciente_id: 3, encaixe: true });
    expect(encaixe.status).toBe(201);
    expect(encaixe.body.data.encaixe).toBe(true);
  });

  it('business rules: procedure without duration, blocked insurer, outside the grid, past date, unit, overbooking not allowed', async () => {
    const semDuracao = await criar({ procedimento_id: 2, hora_inicio: '11:00' });
    expect(semDuracao.status).toBe(422);
    expect(semDuracao.body.error).toMatchObject({
      code: 'BUSINESS_RULE',
      message: 'Procedimento sem duracao configurada para esta agenda.',
    });
    expect((await criar({ procedimento_id: 3, hora_inicio: '11:00' })).body.error.message).toBe(
      'Procedimento sem duracao configurada para esta agenda.',
    );
    expect((await criar({ convenio_id: 2, hora_inicio: '11:00' })).body.error).toMatchObject({
      code: 'BUSINESS_RULE',
      details: { field: 'convenio_id' },
    });
    expect((await criar({ hora_inicio: '11:45' })).body.error).toMatchObject({
      code: 'BUSINESS_RULE',
      message: 'Horario fora da grade da agenda.',
    });
    expect((await criar({ data: '2026-11-07', hora_inicio: '08:00' })).body.error.message).toBe(
      'Horario fora da grade da agenda.',
    );
    expect((await criar({ data: '2026-10-30' })).body.error).toMatchObject({
      code: 'BUSINESS_RULE',
      details: { field: 'data' },
    });
    expect((await criar({ unidade_id: 2 })).body.error).toMatchObject({
      code: 'BUSINESS_RULE',
      details: { field: 'unidade_id' },
    });
    expect(
      (await criar({ agenda_config_id: 2, data: '2026-11-09', hora_inicio: '12:00', encaixe: true })).body.error
        .message,
    ).toBe('Agenda nao permite encaixe.');
    expect((await criar({ paciente_id: 999 })).body.error.code).toBe('BUSINESS_RULE');
  });

  it("a bound key cannot book another doctor's agenda (404)", async () => {
    const res = await criar({ hora_inicio: '11:00' }, { 'x-medico-filtro-id': '2' });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('RES_NOT_FOUND');
  });

  it('snapshot appointments (no paciente_id) are created but never listed nor expose personal data', async () => {
    const res = await criar({
      paciente_id: null,
      paciente_nome: 'joana sem cadastro',
      paciente_celular: '11999998888',
      paciente_cpf: '52998224725',
      hora_inicio: '11:30',
    });
    expect(res.status).toBe(201);
    expect(JSON.stringify(res.body)).not.toMatch(/11999998888|52998224725/);
    expect(res.body.data.paciente).toEqual({ id: null, nome: 'JOANA SEM CADASTRO' });
  });
});

describe('cancel and reschedule', () => {
  it('cancel stores motivo, keeps history; a second cancel is INVALID_STATE', async () => {
    const ag = (await criar({ data: '2026-11-04', hora_inicio: '08:00', paciente_id: 4 })).body.data;
    const res = await h.call('POST', `${base}/agendamentos/${ag.id}/cancelar`, { motivo: 'Paciente viajou' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: ag.id,
      status: 'cancelado',
      cancelado_em: '2026-11-02T09:00:00Z',
      cancelado_motivo: 'Paciente viajou',
      data_agendamento: '2026-11-04',
      hora_inicio: '08:00',
      paciente: { id: 4, nome: 'PACIENTE 4' },
    });
    const again = await h.call('POST', `${base}/agendamentos/${ag.id}/cancelar`, { motivo: 'de novo' });
    expect(again.status).toBe(422);
    expect(again.body.error.code).toBe('INVALID_STATE');
    const detail = (await h.call('GET', `${base}/agendamentos/${ag.id}`)).body.data;
    expect(detail.historico.map((x: { status_novo: string }) => x.status_novo)).toEqual(['agendado', 'cancelado']);
    expect(detail).not.toHaveProperty('cancelado_motivo');
    // The freed slot can be booked again.
    expect((await criar({ data: '2026-11-04', hora_inicio: '08:00', paciente_id: 3 })).status).toBe(201);
    expect(
      (
        await h.call('POST', `${base}/agendamentos/${ag.id}/reagendar`, {
          nova_data: '2026-11-05',
          nova_hora_inicio: '08:00',
        })
      ).body.error.code,
    ).toBe('INVALID_STATE');
  });

  it('reschedule keeps the id, moves the slot, notes the previous date/hour; conflicts are refused', async () => {
    const ag = (await criar({ data: '2026-11-05', hora_inicio: '09:00', paciente_id: 4 })).body.data;
    await criar({ data: '2026-11-05', hora_inicio: '10:00', paciente_id: 3 });
    expect(
      (
        await h.call('POST', `${base}/agendamentos/${ag.id}/reagendar`, {
          nova_data: '2026-11-05',
          nova_hora_inicio: '10:00',
        })
      ).body.error.code,
    ).toBe('CONFLICT');
    // Moving within its own slot does not conflict with itself.
    expect(
      (
        await h.call('POST', `${base}/agendamentos/${ag.id}/reagendar`, {
          nova_data: '2026-11-05',
          nova_hora_inicio: '09:15',
        })
      ).status,
    ).toBe(200);
    const res = await h.call('POST', `${base}/agendamentos/${ag.id}/reagendar`, {
      nova_data: '2026-11-09',
      nova_hora_inicio: '08:00',
      agenda_config_id: 2,
      motivo: 'Troca de medico',
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: ag.id,
      status: 'agendado',
      agenda_config_id: 2,
      medico: { id: 2 },
      data_agendamento: '2026-11-09',
      hora_inicio: '08:00',
      hora_fim: '08:20',
      reagendado_em: '2026-11-02T09:00:00Z',
      reagendado_motivo: 'Troca de medico',
    });
    expect(res.body.data.historico.at(-1)).toMatchObject({
      status_anterior: 'agendado',
      status_novo: 'agendado',
      observacao: 'Reagendado de 2026-11-05 09:15 para 2026-11-09 08:00: Troca de medico',
    });
    // Target agenda of another doctor is hidden from a bound key.
    const hidden = await h.call(
      'POST',
      `${base}/agendamentos/${ag.id}/reagendar`,
      { nova_data: '2026-11-10', nova_hora_inicio: '08:00', agenda_config_id: 1 },
      { 'x-medico-filtro-id': '2' },
    );
    expect(hidden.status).toBe(404);
  });

  it('finalizado cannot be cancelled', async () => {
    const ag = (await criar({ data: '2026-11-06', hora_inicio: '08:00', paciente_id: 4 })).body.data;
    await t.db.updateTable('agendamentos').set({ status: 'finalizado' }).where('id', '=', ag.id).execute();
    expect(
      (await h.call('POST', `${base}/agendamentos/${ag.id}/cancelar`, { motivo: 'tarde demais' })).body.error.code,
    ).toBe('INVALID_STATE');
  });
});

describe('rules added against the spec (issue 11)', () => {
  it('a time already past today is refused like a past date; plano_id must belong to convenio_id', async () => {
    // Clock: Mon 2026-11-02 09:00 UTC.
    expect((await criar({ data: '2026-11-02', hora_inicio: '08:30', paciente_id: 3 })).body.error).toMatchObject({
      code: 'BUSINESS_RULE',
      message: 'Nao e possivel agendar em horario passado.',
      details: { field: 'hora_inicio' },
    });
    expect((await criar({ data: '2026-11-02', hora_inicio: '09:00', paciente_id: 3 })).body.error.code).toBe(
      'BUSINESS_RULE',
    );
    expect(
      (await criar({ convenio_id: 1, plano_id: 2, data: '2026-11-10', hora_inicio: '08:00', paciente_id: 3 })).body
        .error,
    ).toMatchObject({ code: 'BUSINESS_RULE', details: { field: 'plano_id' } });
    expect(
      (await criar({ convenio_id: 0, plano_id: 1, data: '2026-11-10', hora_inicio: '08:00', paciente_id: 3 })).body
        .error,
    ).toMatchObject({ code: 'BUSINESS_RULE', details: { field: 'plano_id' } });
    expect(
      (await criar({ convenio_id: 1, plano_id: 1, data: '2026-11-10', hora_inicio: '08:00', paciente_id: 3 })).status,
    ).toBe(201);
  });

  it('daily limit: counts grid appointments only (not overbookings, not the one being rescheduled); a full day offers no slot', async () => {
    const limited = await t.db
      .insertInto('agenda_configs')
      .values({
        nome: 'Agenda Limitada',
        tipo_vinculo: 'sala',
        sala_id: 1,
        unidade_id: 1,
        data_inicio: '2026-01-01',
        limite_diario: 1,
        criado_em: '2026-01-01T00:00:00Z',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await t.db
      .insertInto('agenda_horarios')
      .values({ agenda_config_id: limited.id, dia_semana: 0, hora_inicio: '08:00', hora_fim: '10:00' })
      .execute();
    await t.db
      .insertInto('agenda_procedimentos')
      .values({ agenda_config_id: limited.id, procedimento_id: 3, duracao_minutos: 30 })
      .execute();
    const sunday = '2026-11-08';
    const first = await criar({
      agenda_config_id: limited.id,
      procedimento_id: 3,
      data: sunday,
      hora_inicio: '08:00',
      paciente_id: 1,
    });
    expect(first.status).toBe(201);
    expect(
      (
        await criar({
          agenda_config_id: limited.id,
          procedimento_id: 3,
          data: sunday,
          hora_inicio: '09:00',
          paciente_id: 2,
        })
      ).body.error.message,
    ).toBe('Limite de agendamentos atingido para o dia.');
    // An overbooking is outside the grid and outside the limit.
    expect(
      (
        await criar({
          agenda_config_id: limited.id,
          procedimento_id: 3,
          data: sunday,
          hora_inicio: '09:00',
          paciente_id: 2,
          encaixe: true,
        })
      ).status,
    ).toBe(201);
    // Moving the day's only appointment within the same day does not count itself.
    expect(
      (
        await h.call('POST', `${base}/agendamentos/${first.body.data.id}/reagendar`, {
          nova_data: sunday,
          nova_hora_inicio: '09:30',
        })
      ).status,
    ).toBe(200);
    // The full Sunday is skipped: the next slot is the Sunday after.
    const slots = await h.call('GET', `${base}/slots?procedimento_id=3&horizonte_dias=14`);
    expect(slots.body.data).toEqual([
      {
        medico_id: 0,
        sala_id: 1,
        is_medico: false,
        label: 'Sala 1',
        unidade_id: 1,
        proximo_slot: { data: '2026-11-15', hora_inicio: '08:00', hora_fim: '08:30', agenda_config_id: limited.id },
      },
    ]);
  });
});

describe('listing and slots', () => {
  it("lists a patient's appointments (cancelled included) with filters and doctor visibility", async () => {
    const all = await h.call('GET', `${base}/agendamentos?paciente_id=4`);
    expect(all.body.meta.total).toBe(3);
    expect((await h.call('GET', `${base}/agendamentos?paciente_id=4&status=cancelado`)).body.meta.total).toBe(1);
    expect(
      (await h.call('GET', `${base}/agendamentos?paciente_id=4&data_inicio=2026-11-06&data_fim=2026-11-09`)).body.meta
        .total,
    ).toBe(2);
    expect(
      (await h.call('GET', `${base}/agendamentos?paciente_id=4`, undefined, { 'x-medico-filtro-id': '2' })).body.meta
        .total,
    ).toBe(1);
    expect((await h.call('GET', `${base}/agendamentos`)).status).toBe(400);
  });

  it('computes the next free slot per doctor/room from the schedule, skipping occupied and past times', async () => {
    // Now is Mon 02 09:00: Bruno (Mon 08-10, 20 min) next is 09:20, Ana (Mon-Fri 08-12, 30 min) 09:30, the room only opens Saturday.
    const res = await h.call('GET', `${base}/slots?procedimento_id=1&horizonte_dias=14`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      {
        medico_id: 2,
        sala_id: 0,
        is_medico: true,
        label: 'Bruno Lima',
        unidade_id: 1,
        proximo_slot: { data: '2026-11-02', hora_inicio: '09:20', hora_fim: '09:40', agenda_config_id: 2 },
      },
      {
        medico_id: 1,
        sala_id: 0,
        is_medico: true,
        label: 'Ana Souza',
        unidade_id: 1,
        proximo_slot: { data: '2026-11-02', hora_inicio: '09:30', hora_fim: '10:00', agenda_config_id: 1 },
      },
      {
        medico_id: 0,
        sala_id: 1,
        is_medico: false,
        label: 'Sala 1',
        unidade_id: 1,
        proximo_slot: { data: '2026-11-07', hora_inicio: '08:00', hora_fim: '08:30', agenda_config_id: 3 },
      },
    ]);
    expect(res.body.meta.total).toBe(3);
    // Occupied slots are skipped: book Ana 09:30 and 10:00 is next (10:00 is taken by patient 2 on 11-03, not today).
    expect((await criar({ data: '2026-11-02', hora_inicio: '09:30', paciente_id: 3 })).status).toBe(201);
    const after = await h.call('GET', `${base}/slots?procedimento_id=1&horizonte_dias=1`, undefined, {
      'x-medico-filtro-id': '1',
    });
    expect(after.body.data).toEqual([
      {
        medico_id: 1,
        sala_id: 0,
        is_medico: true,
        label: 'Ana Souza',
        unidade_id: 1,
        proximo_slot: { data: '2026-11-02', hora_inicio: '10:00', hora_fim: '10:30', agenda_config_id: 1 },
      },
    ]);
    // A full horizon gives proximo_slot null (the room has no Saturday inside 1 day).
    const room = await h.call('GET', `${base}/slots?procedimento_id=1&horizonte_dias=1&unidade_id=1`);
    expect(room.body.data.at(-1)).toEqual({
      medico_id: 0,
      sala_id: 1,
      is_medico: false,
      label: 'Sala 1',
      unidade_id: 1,
      proximo_slot: null,
    });
    // Procedure offered only without duration: no group.
    expect((await h.call('GET', `${base}/slots?procedimento_id=2`)).body.data).toEqual([]);
  });
});
