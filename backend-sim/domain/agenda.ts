import { sql, type Selectable } from 'kysely';
import { z } from 'zod';
import type { Db } from '../db/database.ts';
import type { AgendaConfigsTable } from '../db/tables/agenda-configs.ts';
import { BackendError, notFound } from '../errors.ts';
import type { CallContext } from '../lib/http.ts';
import { date } from '../lib/schemas.ts';
import { addDays, fromMinutes, toMinutes, weekday } from '../lib/time.ts';

type AgendaRow = Selectable<AgendaConfigsTable>;
export const STATUS = ['agendado', 'aguardando_confirmacao', 'confirmado', 'checkin', 'em_atendimento', 'finalizado', 'cancelado', 'nao_compareceu'] as const;
/** Statuses from which cancel and reschedule are refused. */
const FINAIS = new Set(['cancelado', 'finalizado']);
const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/);
const rule = (message: string, details: Record<string, unknown> | null = null) => new BackendError('BUSINESS_RULE', message, details);
const SEM_DURACAO = 'Procedimento sem duracao configurada para esta agenda.';

// ---------- agenda configs ----------

export const configListSchema = z.object({
  medico_id: z.coerce.number().int().positive().optional(),
  sala_id: z.coerce.number().int().positive().optional(),
  unidade_id: z.coerce.number().int().positive().optional(),
  tipo_vinculo: z.enum(['medico', 'sala']).optional(),
  ativo: z.enum(['0', '1']).optional(),
  nome: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

export async function listConfigs(db: Db, f: z.infer<typeof configListSchema>, ctx: CallContext) {
  let q = db
    .selectFrom('agenda_configs as ac')
    .innerJoin('unidades as u', 'u.id', 'ac.unidade_id')
    .leftJoin('medicos as m', 'm.id', 'ac.medico_id')
    .leftJoin('salas as s', 's.id', 'ac.sala_id');
  if (ctx.medicoFiltroId) q = q.where('ac.medico_id', '=', ctx.medicoFiltroId);
  else if (f.medico_id) q = q.where('ac.medico_id', '=', f.medico_id);
  if (f.sala_id) q = q.where('ac.sala_id', '=', f.sala_id);
  if (f.unidade_id) q = q.where('ac.unidade_id', '=', f.unidade_id);
  if (f.tipo_vinculo) q = q.where('ac.tipo_vinculo', '=', f.tipo_vinculo);
  if (f.ativo) q = q.where('ac.ativo', '=', Number(f.ativo));
  if (f.nome) q = q.where(sql<boolean>`instr(lower(ac.nome), lower(${f.nome.trim()})) > 0`);
  const [rows, count] = await Promise.all([
    q
      .select(['ac.id', 'ac.nome', 'ac.tipo_vinculo', 'ac.medico_id', 'm.nome as medico_nome', 'ac.sala_id', 's.nome as sala_nome', 'ac.unidade_id', 'u.nome as unidade_nome', 'ac.ativo', 'ac.data_inicio', 'ac.data_fim', 'ac.criado_em'])
      .orderBy('ac.nome')
      .orderBy('ac.id')
      .limit(f.limit)
      .offset(f.offset)
      .execute(),
    q.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return {
    total: Number(count.total),
    data: rows.map((r) => ({
      id: r.id,
      nome: r.nome,
      tipo_vinculo: r.tipo_vinculo,
      medico: r.medico_id ? { id: r.medico_id, nome: r.medico_nome ?? '' } : null,
      sala: r.sala_id ? { id: r.sala_id, nome: r.sala_nome ?? '' } : null,
      unidade: { id: r.unidade_id, nome: r.unidade_nome },
      ativo: r.ativo === 1,
      data_inicio: r.data_inicio,
      data_fim: r.data_fim,
      criado_em: r.criado_em,
    })),
  };
}

/** An agenda visible to the caller (SIMPLES: it must belong to the bound doctor), else 404. */
async function visibleAgenda(db: Db, id: number, ctx: CallContext): Promise<AgendaRow> {
  const a = await db.selectFrom('agenda_configs').selectAll().where('id', '=', id).executeTakeFirst();
  if (!a || (ctx.medicoFiltroId && a.medico_id !== ctx.medicoFiltroId)) throw notFound();
  return a;
}

async function duracao(db: Db, agendaId: number, procedimentoId: number): Promise<number> {
  const row = await db.selectFrom('agenda_procedimentos').select('duracao_minutos').where('agenda_config_id', '=', agendaId).where('procedimento_id', '=', procedimentoId).executeTakeFirst();
  if (!row || !row.duracao_minutos) throw rule(SEM_DURACAO, { field: 'procedimento_id' });
  return row.duracao_minutos;
}

/** Appointments that occupy the same resource: same agenda, or same doctor / room through another agenda. */
async function ocupados(db: Db, a: AgendaRow, de: string, ate: string, excluirId: number | null) {
  let q = db
    .selectFrom('agendamentos')
    .select(['id', 'data_agendamento', 'hora_inicio', 'hora_fim'])
    .where('status', '!=', 'cancelado')
    .where('encaixe', '=', 0)
    .where('data_agendamento', '>=', de)
    .where('data_agendamento', '<=', ate)
    .where((eb) => {
      const same = [eb('agenda_config_id', '=', a.id)];
      if (a.medico_id) same.push(eb('medico_id', '=', a.medico_id));
      if (a.sala_id) same.push(eb('sala_id', '=', a.sala_id));
      return eb.or(same);
    });
  if (excluirId) q = q.where('id', '!=', excluirId);
  return q.execute();
}

const overlaps = (s1: number, e1: number, s2: number, e2: number) => s1 < e2 && s2 < e1;

interface Slot {
  agenda: AgendaRow;
  data: string;
  inicio: number;
  fim: number;
  encaixe: boolean;
  convenioId: number;
}

/** One clock tick: `now` ISO timestamp, `today` YYYY-MM-DD and `hora` HH:MM:SS, all UTC. */
export interface Stamp {
  now: string;
  today: string;
  hora: string;
}

/** Appointments of the grid (not overbookings, not cancelled) an agenda holds on a day: what its daily limit counts. */
async function gradeDoDia(db: Db, agendaId: number, data: string, excluirId: number | null): Promise<number> {
  let q = db
    .selectFrom('agendamentos')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('agenda_config_id', '=', agendaId)
    .where('data_agendamento', '=', data)
    .where('status', '!=', 'cancelado')
    .where('encaixe', '=', 0);
  if (excluirId) q = q.where('id', '!=', excluirId);
  return Number((await q.executeTakeFirstOrThrow()).n);
}

/**
 * The rules shared by create and reschedule (the 422 BUSINESS_RULEs). Runs inside the write
 * transaction, so the daily limit cannot be passed by two concurrent bookings.
 */
async function checkSlot(db: Db, s: Slot, clock: Stamp, excluirId: number | null) {
  const { agenda: a } = s;
  if (!a.ativo) throw rule('Agenda inativa.', { field: 'agenda_config_id' });
  if (s.data < clock.today) throw rule('Nao e possivel agendar em data passada.', { field: 'data' });
  if (s.data === clock.today && s.inicio <= toMinutes(clock.hora.slice(0, 5))) throw rule('Nao e possivel agendar em horario passado.', { field: 'hora_inicio' });
  if (s.data < a.data_inicio || (a.data_fim && s.data > a.data_fim)) throw rule('Data fora da vigencia da agenda.', { field: 'data' });
  if (s.convenioId) {
    if (!(await db.selectFrom('convenios').select('id').where('id', '=', s.convenioId).executeTakeFirst())) throw rule('Convenio inexistente.', { field: 'convenio_id' });
    const bloqueado = await db.selectFrom('agenda_convenios_bloqueados').select('convenio_id').where('agenda_config_id', '=', a.id).where('convenio_id', '=', s.convenioId).executeTakeFirst();
    if (bloqueado) throw rule('Convenio bloqueado para esta agenda.', { field: 'convenio_id' });
  }
  if (s.encaixe) {
    if (!a.permite_encaixe) throw rule('Agenda nao permite encaixe.', { field: 'encaixe' });
  } else {
    const horarios = await db.selectFrom('agenda_horarios').select(['hora_inicio', 'hora_fim']).where('agenda_config_id', '=', a.id).where('dia_semana', '=', weekday(s.data)).execute();
    if (!horarios.some((h) => toMinutes(h.hora_inicio) <= s.inicio && s.fim <= toMinutes(h.hora_fim))) throw rule('Horario fora da grade da agenda.', { field: 'hora_inicio' });
    // Overbookings are outside the grid: the daily limit counts (and applies to) grid appointments only.
    if (a.limite_diario && (await gradeDoDia(db, a.id, s.data, excluirId)) >= a.limite_diario) throw rule('Limite de agendamentos atingido para o dia.', { field: 'data' });
  }
}

async function checkConflict(db: Db, s: Slot, excluirId: number | null) {
  // Overbooking (encaixe) never blocks and is never blocked by the grid.
  if (s.encaixe) return;
  const busy = await ocupados(db, s.agenda, s.data, s.data, excluirId);
  if (busy.some((b) => overlaps(s.inicio, s.fim, toMinutes(b.hora_inicio), toMinutes(b.hora_fim))))
    throw new BackendError('CONFLICT', 'Horario ja ocupado nesta agenda.', { field: 'hora_inicio' });
}

// ---------- appointments ----------

function apptQuery(db: Db) {
  return db
    .selectFrom('agendamentos as ag')
    .innerJoin('agenda_configs as ac', 'ac.id', 'ag.agenda_config_id')
    .innerJoin('unidades as u', 'u.id', 'ag.unidade_id')
    .innerJoin('procedimentos as pr', 'pr.id', 'ag.procedimento_id')
    .leftJoin('pacientes as p', 'p.id', 'ag.paciente_id')
    .leftJoin('medicos as m', 'm.id', 'ag.medico_id')
    .leftJoin('salas as s', 's.id', 'ag.sala_id')
    .select([
      'ag.id', 'ag.paciente_id', 'p.nome as paciente_nome', 'ag.paciente_nome as snapshot_nome', 'ag.medico_id', 'm.nome as medico_nome',
      'ag.sala_id', 's.nome as sala_nome', 'ag.unidade_id', 'u.nome as unidade_nome', 'ag.procedimento_id', 'pr.nome as procedimento_nome',
      'ag.agenda_config_id', 'ac.medico_id as agenda_medico_id', 'ag.data_agendamento', 'ag.hora_inicio', 'ag.hora_fim', 'ag.status', 'ag.encaixe',
      'ag.cancelado_em', 'ag.cancelado_motivo', 'ag.reagendado_em', 'ag.reagendado_motivo', 'ag.criado_em',
    ]);
}
type ApptRow = Awaited<ReturnType<ReturnType<typeof apptQuery>['executeTakeFirstOrThrow']>>;

export function apptItem(r: ApptRow) {
  return {
    id: r.id,
    paciente: { id: r.paciente_id, nome: r.paciente_nome ?? r.snapshot_nome ?? '' },
    medico: r.medico_id ? { id: r.medico_id, nome: r.medico_nome ?? '' } : null,
    sala: r.sala_id ? { id: r.sala_id, nome: r.sala_nome ?? '' } : null,
    unidade: { id: r.unidade_id, nome: r.unidade_nome },
    procedimento: { id: r.procedimento_id, nome: r.procedimento_nome },
    agenda_config_id: r.agenda_config_id,
    data_agendamento: r.data_agendamento,
    hora_inicio: r.hora_inicio,
    hora_fim: r.hora_fim,
    status: r.status,
    encaixe: r.encaixe === 1,
    cancelado_em: r.cancelado_em,
    criado_em: r.criado_em,
  };
}

async function historico(db: Db, id: number) {
  const rows = await db.selectFrom('agendamento_historico').select(['status_anterior', 'status_novo', 'data_hora', 'observacao']).where('agendamento_id', '=', id).orderBy('data_hora').orderBy('id').execute();
  return rows;
}

export async function apptDetail(db: Db, r: ApptRow) {
  return { ...apptItem(r), historico: await historico(db, r.id) };
}

export const apptListSchema = z.object({
  paciente_id: z.coerce.number().int().positive(),
  data_inicio: date.optional(),
  data_fim: date.optional(),
  status: z.enum(STATUS).optional(),
  medico_id: z.coerce.number().int().positive().optional(),
  unidade_id: z.coerce.number().int().positive().optional(),
  agenda_config_id: z.coerce.number().int().positive().optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

export async function listAgendamentos(db: Db, f: z.infer<typeof apptListSchema>, ctx: CallContext) {
  let q = apptQuery(db).where('ag.paciente_id', '=', f.paciente_id);
  if (ctx.medicoFiltroId) q = q.where('ac.medico_id', '=', ctx.medicoFiltroId);
  else if (f.medico_id) q = q.where('ag.medico_id', '=', f.medico_id);
  if (f.data_inicio) q = q.where('ag.data_agendamento', '>=', f.data_inicio);
  if (f.data_fim) q = q.where('ag.data_agendamento', '<=', f.data_fim);
  if (f.status) q = q.where('ag.status', '=', f.status);
  if (f.unidade_id) q = q.where('ag.unidade_id', '=', f.unidade_id);
  if (f.agenda_config_id) q = q.where('ag.agenda_config_id', '=', f.agenda_config_id);
  const [rows, count] = await Promise.all([
    q.orderBy('ag.data_agendamento', 'desc').orderBy('ag.hora_inicio', 'desc').orderBy('ag.id', 'desc').limit(f.limit).offset(f.offset).execute(),
    q.clearSelect().select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { data: rows.map(apptItem), total: Number(count.total) };
}

/** Visible appointment (with a patient; SIMPLES on the agenda's doctor) or 404. */
export async function findVisibleAgendamento(db: Db, id: number, ctx: CallContext): Promise<ApptRow> {
  const r = await apptQuery(db).where('ag.id', '=', id).executeTakeFirst();
  if (!r || (ctx.medicoFiltroId && r.agenda_medico_id !== ctx.medicoFiltroId)) throw notFound();
  return r;
}

const optText = z.string().nullable().optional();
export const apptCreateSchema = z.object({
  agenda_config_id: z.number().int().positive(),
  procedimento_id: z.number().int().positive(),
  convenio_id: z.number().int().min(0),
  data: date,
  hora_inicio: hhmm,
  paciente_id: z.number().int().positive().nullable().optional(),
  paciente_nome: optText,
  paciente_celular: optText,
  paciente_cpf: optText,
  paciente_nascimento: optText,
  paciente_sexo: optText,
  paciente_email: optText,
  plano_id: z.number().int().positive().nullable().optional(),
  encaixe: z.boolean().nullable().optional(),
  observacoes: z.string().max(500).nullable().optional(),
  unidade_id: z.number().int().positive().nullable().optional(),
});

/** An insurer's plan: it must exist and belong to the appointment's insurer (none for a private booking). */
async function checkPlano(db: Db, convenioId: number, planoId: number | null | undefined) {
  if (!planoId) return;
  const plano = await db.selectFrom('planos').select('convenio_id').where('id', '=', planoId).executeTakeFirst();
  if (!plano || plano.convenio_id !== convenioId) throw rule('Plano inexistente ou de outro convenio.', { field: 'plano_id' });
}

export async function createAgendamento(db: Db, b: z.infer<typeof apptCreateSchema>, ctx: CallContext, clock: Stamp) {
  const agenda = await visibleAgenda(db, b.agenda_config_id, ctx);
  if (b.paciente_id) {
    if (!(await db.selectFrom('pacientes').select('id').where('id', '=', b.paciente_id).executeTakeFirst())) throw rule('Paciente nao encontrado.', { field: 'paciente_id' });
  } else if (!b.paciente_nome?.trim() || !b.paciente_celular?.trim()) {
    throw rule('Informe paciente_id ou paciente_nome e paciente_celular.', { field: 'paciente_id' });
  }
  if (b.unidade_id && b.unidade_id !== agenda.unidade_id) throw rule('Unidade nao permitida para esta agenda.', { field: 'unidade_id' });
  await checkPlano(db, b.convenio_id, b.plano_id);
  const dur = await duracao(db, agenda.id, b.procedimento_id);
  const slot: Slot = { agenda, data: b.data, inicio: toMinutes(b.hora_inicio), fim: toMinutes(b.hora_inicio) + dur, encaixe: b.encaixe === true, convenioId: b.convenio_id };
  if (slot.fim > 24 * 60) throw rule('Horario fora da grade da agenda.', { field: 'hora_inicio' });
  return db.transaction().execute(async (trx) => {
    await checkSlot(trx, slot, clock, null);
    if (b.paciente_id) {
      // "Same day/hour": same date and start, on any agenda, unless cancelled.
      const dup = await trx
        .selectFrom('agendamentos')
        .select('id')
        .where('paciente_id', '=', b.paciente_id)
        .where('data_agendamento', '=', b.data)
        .where('hora_inicio', '=', b.hora_inicio)
        .where('status', '!=', 'cancelado')
        .executeTakeFirst();
      if (dup) throw new BackendError('DUPLICATE', 'Paciente ja possui agendamento neste dia e horario.', { agendamento_id_existente: dup.id });
    }
    await checkConflict(trx, slot, null);
    const snapshot = !b.paciente_id;
    const { id } = await trx
      .insertInto('agendamentos')
      .values({
        agenda_config_id: agenda.id, paciente_id: b.paciente_id ?? null, medico_id: agenda.medico_id, sala_id: agenda.sala_id, unidade_id: agenda.unidade_id,
        procedimento_id: b.procedimento_id, convenio_id: b.convenio_id, plano_id: b.plano_id ?? null, data_agendamento: b.data,
        hora_inicio: b.hora_inicio, hora_fim: fromMinutes(slot.fim), status: 'agendado', encaixe: slot.encaixe ? 1 : 0, observacoes: b.observacoes ?? null,
        paciente_nome: snapshot ? b.paciente_nome!.trim().toUpperCase() : null,
        paciente_cpf: snapshot ? (b.paciente_cpf ?? null) : null,
        paciente_celular: snapshot ? (b.paciente_celular ?? null) : null,
        paciente_nascimento: snapshot ? (b.paciente_nascimento ?? null) : null,
        paciente_sexo: snapshot ? (b.paciente_sexo ?? null) : null,
        paciente_email: snapshot ? (b.paciente_email ?? null) : null,
        criado_em: clock.now, criado_por_chave_id: ctx.chaveId,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await trx.insertInto('agendamento_historico').values({ agendamento_id: id, status_anterior: null, status_novo: 'agendado', data_hora: clock.now, observacao: 'Agendamento criado via API', origem: 'API', chave_id: ctx.chaveId }).execute();
    return apptDetail(trx, await apptQuery(trx).where('ag.id', '=', id).executeTakeFirstOrThrow());
  });
}

/** Cancel and reschedule are refused from these statuses; read inside the write transaction (two concurrent cancels: one wins). */
async function assertAberto(db: Db, id: number, acao: string) {
  const atual = await db.selectFrom('agendamentos').select(['status', 'data_agendamento', 'hora_inicio']).where('id', '=', id).executeTakeFirstOrThrow();
  if (FINAIS.has(atual.status)) throw new BackendError('INVALID_STATE', `Agendamento ja ${atual.status}; nao pode ser ${acao}.`, { status: atual.status });
  return atual;
}

export const cancelSchema = z.object({ motivo: z.string().trim().min(3).max(500) });

export async function cancelAgendamento(db: Db, id: number, motivo: string, ctx: CallContext, now: string) {
  const r = await findVisibleAgendamento(db, id, ctx);
  await db.transaction().execute(async (trx) => {
    const { status: anterior } = await assertAberto(trx, id, 'cancelado');
    await trx.updateTable('agendamentos').set({ status: 'cancelado', cancelado_em: now, cancelado_motivo: motivo, cancelado_por_chave_id: ctx.chaveId, atualizado_em: now }).where('id', '=', id).execute();
    await trx.insertInto('agendamento_historico').values({ agendamento_id: id, status_anterior: anterior, status_novo: 'cancelado', data_hora: now, observacao: motivo, origem: 'API', chave_id: ctx.chaveId }).execute();
  });
  return {
    id,
    status: 'cancelado' as const,
    cancelado_em: now,
    cancelado_motivo: motivo,
    data_agendamento: r.data_agendamento,
    hora_inicio: r.hora_inicio,
    paciente: { id: r.paciente_id, nome: r.paciente_nome ?? r.snapshot_nome ?? '' },
  };
}

export const reagendarSchema = z.object({
  nova_data: date,
  nova_hora_inicio: hhmm,
  agenda_config_id: z.number().int().positive().nullable().optional(),
  motivo: z.string().max(500).nullable().optional(),
});

/**
 * Same id, updated in place, back to `agendado`, one history entry noting the previous date/hour.
 * The doctor filter applies to the original appointment and to the target agenda (404 for either).
 */
export async function reagendarAgendamento(db: Db, id: number, b: z.infer<typeof reagendarSchema>, ctx: CallContext, clock: Stamp) {
  const r = await findVisibleAgendamento(db, id, ctx);
  const agenda = await visibleAgenda(db, b.agenda_config_id ?? r.agenda_config_id, ctx);
  if (FINAIS.has(r.status)) throw new BackendError('INVALID_STATE', `Agendamento ja ${r.status}; nao pode ser reagendado.`, { status: r.status });
  const atual = await db.selectFrom('agendamentos').select(['convenio_id']).where('id', '=', id).executeTakeFirstOrThrow();
  const dur = await duracao(db, agenda.id, r.procedimento_id);
  const slot: Slot = { agenda, data: b.nova_data, inicio: toMinutes(b.nova_hora_inicio), fim: toMinutes(b.nova_hora_inicio) + dur, encaixe: false, convenioId: atual.convenio_id };
  if (slot.fim > 24 * 60) throw rule('Horario fora da grade da agenda.', { field: 'nova_hora_inicio' });
  const motivo = b.motivo?.trim() || null;
  await db.transaction().execute(async (trx) => {
    const anterior = await assertAberto(trx, id, 'reagendado');
    await checkSlot(trx, slot, clock, id);
    await checkConflict(trx, slot, id);
    await trx
      .updateTable('agendamentos')
      .set({
        agenda_config_id: agenda.id, medico_id: agenda.medico_id, sala_id: agenda.sala_id, unidade_id: agenda.unidade_id,
        data_agendamento: b.nova_data, hora_inicio: b.nova_hora_inicio, hora_fim: fromMinutes(slot.fim), status: 'agendado', encaixe: 0,
        reagendado_em: clock.now, reagendado_motivo: motivo, atualizado_em: clock.now,
      })
      .where('id', '=', id)
      .execute();
    const nota = `Reagendado de ${anterior.data_agendamento} ${anterior.hora_inicio} para ${b.nova_data} ${b.nova_hora_inicio}${motivo ? `: ${motivo}` : ''}`;
    await trx.insertInto('agendamento_historico').values({ agendamento_id: id, status_anterior: anterior.status, status_novo: 'agendado', data_hora: clock.now, observacao: nota, origem: 'API', chave_id: ctx.chaveId }).execute();
  });
  const updated = await apptQuery(db).where('ag.id', '=', id).executeTakeFirstOrThrow();
  return { ...(await apptDetail(db, updated)), reagendado_em: updated.reagendado_em, reagendado_motivo: updated.reagendado_motivo };
}

// ---------- free slots ----------

export const slotsSchema = z.object({
  procedimento_id: z.coerce.number().int().positive(),
  unidade_id: z.coerce.number().int().positive().optional(),
  horizonte_dias: z.coerce.number().int().min(1).max(180).default(60),
});

/**
 * Next free slot per doctor/room (per unit) within the horizon, computed from the weekly schedule,
 * the procedure's duration on each agenda and the appointments that occupy the resource. Clock is UTC.
 * Overbookings (encaixe) and cancelled appointments never block the grid. Ordered by the next slot's
 * date (then hour, then label); groups without a slot in the horizon last, by label.
 */
export async function computeSlots(db: Db, f: z.infer<typeof slotsSchema>, ctx: CallContext, clock: Date) {
  const today = clock.toISOString().slice(0, 10);
  const nowMin = clock.getUTCHours() * 60 + clock.getUTCMinutes();
  const ultimo = addDays(today, f.horizonte_dias - 1);
  let q = db
    .selectFrom('agenda_configs as ac')
    .innerJoin('agenda_procedimentos as ap', 'ap.agenda_config_id', 'ac.id')
    .leftJoin('medicos as m', 'm.id', 'ac.medico_id')
    .leftJoin('salas as s', 's.id', 'ac.sala_id')
    .selectAll('ac')
    .select(['ap.duracao_minutos', 'm.nome as medico_nome', 's.nome as sala_nome'])
    .where('ac.ativo', '=', 1)
    .where('ap.procedimento_id', '=', f.procedimento_id)
    .where('ap.duracao_minutos', 'is not', null)
    .where('ap.duracao_minutos', '>', 0);
  if (f.unidade_id) q = q.where('ac.unidade_id', '=', f.unidade_id);
  if (ctx.medicoFiltroId) q = q.where('ac.medico_id', '=', ctx.medicoFiltroId);
  const agendas = await q.orderBy('ac.id').execute();

  type Group = { medico_id: number; sala_id: number; is_medico: boolean; label: string; unidade_id: number; proximo_slot: { data: string; hora_inicio: string; hora_fim: string; agenda_config_id: number } | null };
  const groups = new Map<string, Group>();
  for (const a of agendas) {
    const isMedico = a.tipo_vinculo === 'medico';
    const key = `${isMedico ? 'm' : 's'}:${isMedico ? a.medico_id : a.sala_id}:${a.unidade_id}`;
    const group = groups.get(key) ?? {
      medico_id: isMedico ? (a.medico_id ?? 0) : 0,
      sala_id: isMedico ? 0 : (a.sala_id ?? 0),
      is_medico: isMedico,
      label: (isMedico ? a.medico_nome : a.sala_nome) ?? a.nome,
      unidade_id: a.unidade_id,
      proximo_slot: null,
    };
    groups.set(key, group);
    const horarios = await db.selectFrom('agenda_horarios').select(['dia_semana', 'hora_inicio', 'hora_fim']).where('agenda_config_id', '=', a.id).orderBy('hora_inicio').execute();
    const busy = await ocupados(db, a, today, ultimo, null);
    const busyByDay = new Map<string, [number, number][]>();
    for (const b of busy) {
      const list = busyByDay.get(b.data_agendamento) ?? [];
      list.push([toMinutes(b.hora_inicio), toMinutes(b.hora_fim)]);
      busyByDay.set(b.data_agendamento, list);
    }
    // A day whose grid appointments reached the agenda's daily limit offers nothing (booking it would be a BUSINESS_RULE).
    const cheios = new Set<string>();
    if (a.limite_diario) {
      const porDia = await db
        .selectFrom('agendamentos')
        .select(['data_agendamento', (eb) => eb.fn.countAll<number>().as('n')])
        .where('agenda_config_id', '=', a.id)
        .where('status', '!=', 'cancelado')
        .where('encaixe', '=', 0)
        .where('data_agendamento', '>=', today)
        .where('data_agendamento', '<=', ultimo)
        .groupBy('data_agendamento')
        .execute();
      for (const p of porDia) if (Number(p.n) >= a.limite_diario) cheios.add(p.data_agendamento);
    }
    const dur = a.duracao_minutos!;
    let found: Group['proximo_slot'] = null;
    for (let d = 0; d < f.horizonte_dias && !found; d++) {
      const dia = addDays(today, d);
      if (dia < a.data_inicio || (a.data_fim && dia > a.data_fim) || cheios.has(dia)) continue;
      // Stop early when the group already has an earlier day than this agenda could offer.
      if (group.proximo_slot && group.proximo_slot.data < dia) break;
      const wd = weekday(dia);
      for (const h of horarios.filter((x) => x.dia_semana === wd)) {
        for (let ini = toMinutes(h.hora_inicio); ini + dur <= toMinutes(h.hora_fim); ini += dur) {
          if (dia === today && ini <= nowMin) continue;
          if ((busyByDay.get(dia) ?? []).some(([s, e]) => overlaps(ini, ini + dur, s, e))) continue;
          found = { data: dia, hora_inicio: fromMinutes(ini), hora_fim: fromMinutes(ini + dur), agenda_config_id: a.id };
          break;
        }
        if (found) break;
      }
    }
    if (found && (!group.proximo_slot || `${found.data} ${found.hora_inicio}` < `${group.proximo_slot.data} ${group.proximo_slot.hora_inicio}`)) group.proximo_slot = found;
  }
  const data = [...groups.values()].sort((x, y) => {
    if (x.proximo_slot && y.proximo_slot) {
      const a = `${x.proximo_slot.data} ${x.proximo_slot.hora_inicio}`;
      const b = `${y.proximo_slot.data} ${y.proximo_slot.hora_inicio}`;
      return a < b ? -1 : a > b ? 1 : x.label.localeCompare(y.label);
    }
    if (x.proximo_slot) return -1;
    if (y.proximo_slot) return 1;
    return x.label.localeCompare(y.label);
  });
  return { data, total: data.length };
}
