import type { Db } from '../../db/database.ts';
import { BackendError, notFound } from '../../errors.ts';
import type { CallContext } from '../../lib/http.ts';
import { addDays, fromMinutes, toMinutes, weekday } from '../../lib/time.ts';
import { pageOf } from '../paginas.ts';
import { exists } from '../referencias.ts';
import * as repo from './agenda.repository.ts';
import type { AgendaRow, ApptRow } from './agenda.repository.ts';
import type {
  ApptCreate,
  ApptListFilter,
  ConfigListFilter,
  Reagendar,
  SlotsFilter,
} from '../../../contracts/backend/agenda.ts';
import { apptItem, configItem } from './agenda.views.ts';

/** Statuses from which cancel and reschedule are refused. */
const FINAIS = new Set(['cancelado', 'finalizado']);
const rule = (message: string, details: Record<string, unknown> | null = null) =>
  new BackendError('BUSINESS_RULE', message, details);
const SEM_DURACAO = 'Procedimento sem duracao configurada para esta agenda.';

/** One clock tick: `now` ISO timestamp, `today` YYYY-MM-DD and `hora` HH:MM:SS, all UTC. */
export interface Stamp {
  now: string;
  today: string;
  hora: string;
}

// ---------- agenda configs ----------

export async function listConfigs(db: Db, f: ConfigListFilter, ctx: CallContext) {
  return pageOf(await repo.listConfigs(db, f, ctx.medicoFiltroId), configItem);
}

/** SIMPLES on agendas: a row whose agenda belongs to another doctor than the bound one is hidden (404, as a missing one). */
function visible<R>(row: R | undefined, medicoDaAgenda: (row: R) => number | null, ctx: CallContext): R {
  if (!row || (ctx.medicoFiltroId && medicoDaAgenda(row) !== ctx.medicoFiltroId)) throw notFound();
  return row;
}

/** An agenda visible to the caller, else 404. */
async function visibleAgenda(db: Db, id: number, ctx: CallContext): Promise<AgendaRow> {
  return visible(await repo.findAgenda(db, id), (a) => a.medico_id, ctx);
}

async function duracao(db: Db, agendaId: number, procedimentoId: number): Promise<number> {
  const row = await repo.findDuracao(db, agendaId, procedimentoId);
  if (!row?.duracao_minutos) throw rule(SEM_DURACAO, { field: 'procedimento_id' });
  return row.duracao_minutos;
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

/** The slot of `duracao` minutes from `hora` (HH:MM) on `data`; one that would end after midnight is refused, naming `field`. */
function slotOf(
  agenda: AgendaRow,
  data: string,
  hora: string,
  duracao: number,
  field: string,
  rest: Pick<Slot, 'encaixe' | 'convenioId'>,
): Slot {
  const inicio = toMinutes(hora);
  const slot = { agenda, data, inicio, fim: inicio + duracao, ...rest };
  if (slot.fim > 24 * 60) throw rule('Horario fora da grade da agenda.', { field });
  return slot;
}

/**
 * The rules shared by create and reschedule (the 422 BUSINESS_RULEs). Runs inside the write
 * transaction, so the daily limit cannot be passed by two concurrent bookings.
 */
async function checkSlot(db: Db, s: Slot, clock: Stamp, excluirId: number | null) {
  const { agenda: a } = s;
  if (!a.ativo) throw rule('Agenda inativa.', { field: 'agenda_config_id' });
  if (s.data < clock.today) throw rule('Nao e possivel agendar em data passada.', { field: 'data' });
  if (s.data === clock.today && s.inicio <= toMinutes(clock.hora.slice(0, 5)))
    throw rule('Nao e possivel agendar em horario passado.', { field: 'hora_inicio' });
  if (s.data < a.data_inicio || (a.data_fim && s.data > a.data_fim))
    throw rule('Data fora da vigencia da agenda.', { field: 'data' });
  if (s.convenioId) {
    if (!(await exists(db, 'convenios', s.convenioId))) throw rule('Convenio inexistente.', { field: 'convenio_id' });
    if (await repo.isConvenioBloqueado(db, a.id, s.convenioId))
      throw rule('Convenio bloqueado para esta agenda.', { field: 'convenio_id' });
  }
  if (s.encaixe) {
    if (!a.permite_encaixe) throw rule('Agenda nao permite encaixe.', { field: 'encaixe' });
  } else {
    const horarios = await repo.findHorariosDoDia(db, a.id, weekday(s.data));
    if (!horarios.some((h) => toMinutes(h.hora_inicio) <= s.inicio && s.fim <= toMinutes(h.hora_fim)))
      throw rule('Horario fora da grade da agenda.', { field: 'hora_inicio' });
    // Overbookings are outside the grid: the daily limit counts (and applies to) grid appointments only.
    if (a.limite_diario && (await repo.gradeDoDia(db, a.id, s.data, excluirId)) >= a.limite_diario)
      throw rule('Limite de agendamentos atingido para o dia.', { field: 'data' });
  }
}

async function checkConflict(db: Db, s: Slot, excluirId: number | null) {
  // Overbooking (encaixe) never blocks and is never blocked by the grid.
  if (s.encaixe) return;
  const busy = await repo.ocupados(db, s.agenda, s.data, s.data, excluirId);
  if (busy.some((b) => overlaps(s.inicio, s.fim, toMinutes(b.hora_inicio), toMinutes(b.hora_fim))))
    throw new BackendError('CONFLICT', 'Horario ja ocupado nesta agenda.', { field: 'hora_inicio' });
}

// ---------- appointments ----------

async function apptDetail(db: Db, r: ApptRow) {
  return { ...apptItem(r), historico: await repo.findHistorico(db, r.id) };
}

export async function listAgendamentos(db: Db, f: ApptListFilter, ctx: CallContext) {
  return pageOf(await repo.listAgendamentos(db, f, ctx.medicoFiltroId), apptItem);
}

/** Visible appointment (with a patient; SIMPLES on the agenda's doctor) or 404. */
async function findVisibleAgendamento(db: Db, id: number, ctx: CallContext): Promise<ApptRow> {
  return visible(await repo.findAgendamento(db, id), (r) => r.agenda_medico_id, ctx);
}

export async function getAgendamento(db: Db, id: number, ctx: CallContext) {
  return apptDetail(db, await findVisibleAgendamento(db, id, ctx));
}

/** An insurer's plan: it must exist and belong to the appointment's insurer (none for a private booking). */
async function checkPlano(db: Db, convenioId: number, planoId: number | null | undefined) {
  if (!planoId) return;
  const plano = await repo.findPlano(db, planoId);
  if (!plano || plano.convenio_id !== convenioId)
    throw rule('Plano inexistente ou de outro convenio.', { field: 'plano_id' });
}

export async function createAgendamento(db: Db, b: ApptCreate, ctx: CallContext, clock: Stamp) {
  const agenda = await visibleAgenda(db, b.agenda_config_id, ctx);
  if (b.paciente_id) {
    if (!(await exists(db, 'pacientes', b.paciente_id)))
      throw rule('Paciente nao encontrado.', { field: 'paciente_id' });
  } else if (!b.paciente_nome?.trim() || !b.paciente_celular?.trim()) {
    throw rule('Informe paciente_id ou paciente_nome e paciente_celular.', { field: 'paciente_id' });
  }
  if (b.unidade_id && b.unidade_id !== agenda.unidade_id)
    throw rule('Unidade nao permitida para esta agenda.', { field: 'unidade_id' });
  await checkPlano(db, b.convenio_id, b.plano_id);
  const dur = await duracao(db, agenda.id, b.procedimento_id);
  const slot = slotOf(agenda, b.data, b.hora_inicio, dur, 'hora_inicio', {
    encaixe: b.encaixe === true,
    convenioId: b.convenio_id,
  });
  return db.transaction().execute(async (trx) => {
    await checkSlot(trx, slot, clock, null);
    if (b.paciente_id) {
      // "Same day/hour": same date and start, on any agenda, unless cancelled.
      const dup = await repo.findNoMesmoHorario(trx, b.paciente_id, b.data, b.hora_inicio);
      if (dup)
        throw new BackendError('DUPLICATE', 'Paciente ja possui agendamento neste dia e horario.', {
          agendamento_id_existente: dup.id,
        });
    }
    await checkConflict(trx, slot, null);
    const snapshot = !b.paciente_id;
    const id = await repo.insertAgendamento(trx, {
      agenda_config_id: agenda.id,
      paciente_id: b.paciente_id ?? null,
      medico_id: agenda.medico_id,
      sala_id: agenda.sala_id,
      unidade_id: agenda.unidade_id,
      procedimento_id: b.procedimento_id,
      convenio_id: b.convenio_id,
      plano_id: b.plano_id ?? null,
      data_agendamento: b.data,
      hora_inicio: b.hora_inicio,
      hora_fim: fromMinutes(slot.fim),
      status: 'agendado',
      encaixe: slot.encaixe ? 1 : 0,
      observacoes: b.observacoes ?? null,
      paciente_nome: snapshot ? b.paciente_nome!.trim().toUpperCase() : null,
      paciente_cpf: snapshot ? (b.paciente_cpf ?? null) : null,
      paciente_celular: snapshot ? (b.paciente_celular ?? null) : null,
      paciente_nascimento: snapshot ? (b.paciente_nascimento ?? null) : null,
      paciente_sexo: snapshot ? (b.paciente_sexo ?? null) : null,
      paciente_email: snapshot ? (b.paciente_email ?? null) : null,
      criado_em: clock.now,
      criado_por_chave_id: ctx.chaveId,
    });
    await repo.insertHistorico(trx, {
      agendamento_id: id,
      status_anterior: null,
      status_novo: 'agendado',
      data_hora: clock.now,
      observacao: 'Agendamento criado via API',
      origem: 'API',
      chave_id: ctx.chaveId,
    });
    return apptDetail(trx, (await repo.findAgendamento(trx, id))!);
  });
}

/** Cancel and reschedule are refused from these statuses; read inside the write transaction (two concurrent cancels: one wins). */
async function assertAberto(db: Db, id: number, acao: string) {
  const atual = await repo.findEstado(db, id);
  if (FINAIS.has(atual.status))
    throw new BackendError('INVALID_STATE', `Agendamento ja ${atual.status}; nao pode ser ${acao}.`, {
      status: atual.status,
    });
  return atual;
}

export async function cancelAgendamento(db: Db, id: number, motivo: string, ctx: CallContext, now: string) {
  const r = await findVisibleAgendamento(db, id, ctx);
  await db.transaction().execute(async (trx) => {
    const { status: anterior } = await assertAberto(trx, id, 'cancelado');
    await repo.updateAgendamento(trx, id, {
      status: 'cancelado',
      cancelado_em: now,
      cancelado_motivo: motivo,
      cancelado_por_chave_id: ctx.chaveId,
      atualizado_em: now,
    });
    await repo.insertHistorico(trx, {
      agendamento_id: id,
      status_anterior: anterior,
      status_novo: 'cancelado',
      data_hora: now,
      observacao: motivo,
      origem: 'API',
      chave_id: ctx.chaveId,
    });
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

/**
 * Same id, updated in place, back to `agendado`, one history entry noting the previous date/hour.
 * The doctor filter applies to the original appointment and to the target agenda (404 for either).
 */
export async function reagendarAgendamento(db: Db, id: number, b: Reagendar, ctx: CallContext, clock: Stamp) {
  const r = await findVisibleAgendamento(db, id, ctx);
  const agenda = await visibleAgenda(db, b.agenda_config_id ?? r.agenda_config_id, ctx);
  if (FINAIS.has(r.status))
    throw new BackendError('INVALID_STATE', `Agendamento ja ${r.status}; nao pode ser reagendado.`, {
      status: r.status,
    });
  const atual = await repo.findConvenioId(db, id);
  const dur = await duracao(db, agenda.id, r.procedimento_id);
  const slot = slotOf(agenda, b.nova_data, b.nova_hora_inicio, dur, 'nova_hora_inicio', {
    encaixe: false,
    convenioId: atual.convenio_id,
  });
  const motivo = b.motivo?.trim() || null;
  await db.transaction().execute(async (trx) => {
    const anterior = await assertAberto(trx, id, 'reagendado');
    await checkSlot(trx, slot, clock, id);
    await checkConflict(trx, slot, id);
    await repo.updateAgendamento(trx, id, {
      agenda_config_id: agenda.id,
      medico_id: agenda.medico_id,
      sala_id: agenda.sala_id,
      unidade_id: agenda.unidade_id,
      data_agendamento: b.nova_data,
      hora_inicio: b.nova_hora_inicio,
      hora_fim: fromMinutes(slot.fim),
      status: 'agendado',
      encaixe: 0,
      reagendado_em: clock.now,
      reagendado_motivo: motivo,
      atualizado_em: clock.now,
    });
    const nota = `Reagendado de ${anterior.data_agendamento} ${anterior.hora_inicio} para ${b.nova_data} ${b.nova_hora_inicio}${motivo ? `: ${motivo}` : ''}`;
    await repo.insertHistorico(trx, {
      agendamento_id: id,
      status_anterior: anterior.status,
      status_novo: 'agendado',
      data_hora: clock.now,
      observacao: nota,
      origem: 'API',
      chave_id: ctx.chaveId,
    });
  });
  const updated = (await repo.findAgendamento(db, id))!;
  return {
    ...(await apptDetail(db, updated)),
    reagendado_em: updated.reagendado_em,
    reagendado_motivo: updated.reagendado_motivo,
  };
}

// ---------- free slots ----------

/**
 * Next free slot per doctor/room (per unit) within the horizon, computed from the weekly schedule,
 * the procedure's duration on each agenda and the appointments that occupy the resource. Clock is UTC.
 * Overbookings (encaixe) and cancelled appointments never block the grid. Ordered by the next slot's
 * date (then hour, then label); groups without a slot in the horizon last, by label.
 */
export async function computeSlots(db: Db, f: SlotsFilter, ctx: CallContext, clock: Date) {
  const today = clock.toISOString().slice(0, 10);
  const nowMin = clock.getUTCHours() * 60 + clock.getUTCMinutes();
  const ultimo = addDays(today, f.horizonte_dias - 1);
  const agendas = await repo.findAgendasDoProcedimento(db, f.procedimento_id, f.unidade_id, ctx.medicoFiltroId);

  type Group = {
    medico_id: number;
    sala_id: number;
    is_medico: boolean;
    label: string;
    unidade_id: number;
    proximo_slot: { data: string; hora_inicio: string; hora_fim: string; agenda_config_id: number } | null;
  };
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
    const horarios = await repo.findHorarios(db, a.id);
    const busy = await repo.ocupados(db, a, today, ultimo, null);
    const busyByDay = new Map<string, [number, number][]>();
    for (const b of busy) {
      const list = busyByDay.get(b.data_agendamento) ?? [];
      list.push([toMinutes(b.hora_inicio), toMinutes(b.hora_fim)]);
      busyByDay.set(b.data_agendamento, list);
    }
    // A day whose grid appointments reached the agenda's daily limit offers nothing (booking it would be a BUSINESS_RULE).
    const cheios = new Set<string>();
    if (a.limite_diario) {
      const porDia = await repo.gradePorDia(db, a.id, today, ultimo);
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
          found = {
            data: dia,
            hora_inicio: fromMinutes(ini),
            hora_fim: fromMinutes(ini + dur),
            agenda_config_id: a.id,
          };
          break;
        }
        if (found) break;
      }
    }
    if (
      found &&
      (!group.proximo_slot ||
        `${found.data} ${found.hora_inicio}` < `${group.proximo_slot.data} ${group.proximo_slot.hora_inicio}`)
    )
      group.proximo_slot = found;
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
