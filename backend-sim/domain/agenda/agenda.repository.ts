import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Db } from '../../db/database.ts';
import { pageWithTotal } from '../paginas.ts';
import type { AgendaConfigsTable } from '../../db/tables/agenda-configs.ts';
import type { AgendamentoHistoricoTable, AgendamentosTable } from '../../db/tables/agendamentos.ts';
import type { ApptListFilter, ConfigListFilter } from '../../../contracts/backend/agenda.ts';

export type AgendaRow = Selectable<AgendaConfigsTable>;

// ---------- agenda configs ----------

/** Agendas by name; a bound doctor (`medicoFiltroId`) sees only its own, whatever `medico_id` asks. */
export async function listConfigs(db: Db, f: ConfigListFilter, medicoFiltroId: number) {
  let q = db
    .selectFrom('agenda_configs as ac')
    .innerJoin('unidades as u', 'u.id', 'ac.unidade_id')
    .leftJoin('medicos as m', 'm.id', 'ac.medico_id')
    .leftJoin('salas as s', 's.id', 'ac.sala_id');
  if (medicoFiltroId) q = q.where('ac.medico_id', '=', medicoFiltroId);
  else if (f.medico_id) q = q.where('ac.medico_id', '=', f.medico_id);
  if (f.sala_id) q = q.where('ac.sala_id', '=', f.sala_id);
  if (f.unidade_id) q = q.where('ac.unidade_id', '=', f.unidade_id);
  if (f.tipo_vinculo) q = q.where('ac.tipo_vinculo', '=', f.tipo_vinculo);
  if (f.ativo) q = q.where('ac.ativo', '=', Number(f.ativo));
  if (f.nome) q = q.where(sql<boolean>`instr(lower(ac.nome), lower(${f.nome.trim()})) > 0`);
  return pageWithTotal(
    q
      .select([
        'ac.id',
        'ac.nome',
        'ac.tipo_vinculo',
        'ac.medico_id',
        'm.nome as medico_nome',
        'ac.sala_id',
        's.nome as sala_nome',
        'ac.unidade_id',
        'u.nome as unidade_nome',
        'ac.ativo',
        'ac.data_inicio',
        'ac.data_fim',
        'ac.criado_em',
      ])
      .orderBy('ac.nome')
      .orderBy('ac.id')
      .limit(f.limit)
      .offset(f.offset)
      .execute(),
    q,
  );
}

export async function findAgenda(db: Db, id: number): Promise<AgendaRow | undefined> {
  return db.selectFrom('agenda_configs').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The procedure's duration on the agenda (the row is absent when the agenda does not offer it). */
export async function findDuracao(db: Db, agendaId: number, procedimentoId: number) {
  return db
    .selectFrom('agenda_procedimentos')
    .select('duracao_minutos')
    .where('agenda_config_id', '=', agendaId)
    .where('procedimento_id', '=', procedimentoId)
    .executeTakeFirst();
}

export async function isConvenioBloqueado(db: Db, agendaId: number, convenioId: number): Promise<boolean> {
  return !!(await db
    .selectFrom('agenda_convenios_bloqueados')
    .select('convenio_id')
    .where('agenda_config_id', '=', agendaId)
    .where('convenio_id', '=', convenioId)
    .executeTakeFirst());
}

/** The agenda's working hours on a weekday. */
export async function findHorariosDoDia(db: Db, agendaId: number, diaSemana: number) {
  return db
    .selectFrom('agenda_horarios')
    .select(['hora_inicio', 'hora_fim'])
    .where('agenda_config_id', '=', agendaId)
    .where('dia_semana', '=', diaSemana)
    .execute();
}

/** The agenda's working hours, every weekday, by start. */
export async function findHorarios(db: Db, agendaId: number) {
  return db
    .selectFrom('agenda_horarios')
    .select(['dia_semana', 'hora_inicio', 'hora_fim'])
    .where('agenda_config_id', '=', agendaId)
    .orderBy('hora_inicio')
    .execute();
}

/** Appointments that occupy the same resource: same agenda, or same doctor / room through another agenda. */
export async function ocupados(db: Db, a: AgendaRow, de: string, ate: string, excluirId: number | null) {
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

/** Appointments of the grid (not overbookings, not cancelled) an agenda holds on a day: what its daily limit counts. */
export async function gradeDoDia(db: Db, agendaId: number, data: string, excluirId: number | null): Promise<number> {
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

/** Grid appointments per day of [de, ate] on an agenda. */
export async function gradePorDia(db: Db, agendaId: number, de: string, ate: string) {
  return db
    .selectFrom('agendamentos')
    .select(['data_agendamento', (eb) => eb.fn.countAll<number>().as('n')])
    .where('agenda_config_id', '=', agendaId)
    .where('status', '!=', 'cancelado')
    .where('encaixe', '=', 0)
    .where('data_agendamento', '>=', de)
    .where('data_agendamento', '<=', ate)
    .groupBy('data_agendamento')
    .execute();
}

/** Active agendas offering the procedure with a duration, with their doctor's and room's names, by id. */
export async function findAgendasDoProcedimento(
  db: Db,
  procedimentoId: number,
  unidadeId: number | undefined,
  medicoFiltroId: number,
) {
  let q = db
    .selectFrom('agenda_configs as ac')
    .innerJoin('agenda_procedimentos as ap', 'ap.agenda_config_id', 'ac.id')
    .leftJoin('medicos as m', 'm.id', 'ac.medico_id')
    .leftJoin('salas as s', 's.id', 'ac.sala_id')
    .selectAll('ac')
    .select(['ap.duracao_minutos', 'm.nome as medico_nome', 's.nome as sala_nome'])
    .where('ac.ativo', '=', 1)
    .where('ap.procedimento_id', '=', procedimentoId)
    .where('ap.duracao_minutos', 'is not', null)
    .where('ap.duracao_minutos', '>', 0);
  if (unidadeId) q = q.where('ac.unidade_id', '=', unidadeId);
  if (medicoFiltroId) q = q.where('ac.medico_id', '=', medicoFiltroId);
  return q.orderBy('ac.id').execute();
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
      'ag.id',
      'ag.paciente_id',
      'p.nome as paciente_nome',
      'ag.paciente_nome as snapshot_nome',
      'ag.medico_id',
      'm.nome as medico_nome',
      'ag.sala_id',
      's.nome as sala_nome',
      'ag.unidade_id',
      'u.nome as unidade_nome',
      'ag.procedimento_id',
      'pr.nome as procedimento_nome',
      'ag.agenda_config_id',
      'ac.medico_id as agenda_medico_id',
      'ag.data_agendamento',
      'ag.hora_inicio',
      'ag.hora_fim',
      'ag.status',
      'ag.encaixe',
      'ag.cancelado_em',
      'ag.cancelado_motivo',
      'ag.reagendado_em',
      'ag.reagendado_motivo',
      'ag.criado_em',
    ]);
}
export type ApptRow = Awaited<ReturnType<ReturnType<typeof apptQuery>['executeTakeFirstOrThrow']>>;

export async function findHistorico(db: Db, id: number) {
  return db
    .selectFrom('agendamento_historico')
    .select(['status_anterior', 'status_novo', 'data_hora', 'observacao'])
    .where('agendamento_id', '=', id)
    .orderBy('data_hora')
    .orderBy('id')
    .execute();
}

/** A patient's appointments, newest first; a bound doctor (`medicoFiltroId`) sees its agendas' only. */
export async function listAgendamentos(db: Db, f: ApptListFilter, medicoFiltroId: number) {
  let q = apptQuery(db).where('ag.paciente_id', '=', f.paciente_id);
  if (medicoFiltroId) q = q.where('ac.medico_id', '=', medicoFiltroId);
  else if (f.medico_id) q = q.where('ag.medico_id', '=', f.medico_id);
  if (f.data_inicio) q = q.where('ag.data_agendamento', '>=', f.data_inicio);
  if (f.data_fim) q = q.where('ag.data_agendamento', '<=', f.data_fim);
  if (f.status) q = q.where('ag.status', '=', f.status);
  if (f.unidade_id) q = q.where('ag.unidade_id', '=', f.unidade_id);
  if (f.agenda_config_id) q = q.where('ag.agenda_config_id', '=', f.agenda_config_id);
  return pageWithTotal(
    q
      .orderBy('ag.data_agendamento', 'desc')
      .orderBy('ag.hora_inicio', 'desc')
      .orderBy('ag.id', 'desc')
      .limit(f.limit)
      .offset(f.offset)
      .execute(),
    q.clearSelect(),
  );
}

/** An appointment (the doctor filter is the service's: it is on the agenda's doctor). */
export async function findAgendamento(db: Db, id: number): Promise<ApptRow | undefined> {
  return apptQuery(db).where('ag.id', '=', id).executeTakeFirst();
}

export async function findPlano(db: Db, id: number) {
  return db.selectFrom('planos').select('convenio_id').where('id', '=', id).executeTakeFirst();
}

/** The patient's appointment at that date and start, on any agenda, unless cancelled. */
export async function findNoMesmoHorario(db: Db, pacienteId: number, data: string, horaInicio: string) {
  return db
    .selectFrom('agendamentos')
    .select('id')
    .where('paciente_id', '=', pacienteId)
    .where('data_agendamento', '=', data)
    .where('hora_inicio', '=', horaInicio)
    .where('status', '!=', 'cancelado')
    .executeTakeFirst();
}

export async function insertAgendamento(trx: Db, values: Insertable<AgendamentosTable>): Promise<number> {
  const { id } = await trx.insertInto('agendamentos').values(values).returning('id').executeTakeFirstOrThrow();
  return id;
}

export async function insertHistorico(trx: Db, values: Insertable<AgendamentoHistoricoTable>): Promise<void> {
  await trx.insertInto('agendamento_historico').values(values).execute();
}

/** The status and slot an appointment has now. */
export async function findEstado(db: Db, id: number) {
  return db
    .selectFrom('agendamentos')
    .select(['status', 'data_agendamento', 'hora_inicio'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

export async function findConvenioId(db: Db, id: number) {
  return db.selectFrom('agendamentos').select(['convenio_id']).where('id', '=', id).executeTakeFirstOrThrow();
}

export async function updateAgendamento(trx: Db, id: number, set: Updateable<AgendamentosTable>): Promise<void> {
  await trx.updateTable('agendamentos').set(set).where('id', '=', id).execute();
}
