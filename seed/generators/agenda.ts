import { addDays, fromMinutes, isoSeconds, weekday } from '../../backend-sim/lib/time.ts';
import { batched, inserter } from '../bulk-load.ts';
import * as D from '../data.ts';
import { MINUTO_MS } from '../tempo.ts';
import type { Catalogos, SeedContext } from './context.ts';

type Transicao = [anterior: string | null, novo: string, observacao: string | null];

/**
 * When each step of an appointment's history happened, oldest first: each at its natural moment (the
 * reminder two days before, the confirmation the day before, check-in, care and end around the slot,
 * a no-show after it), but strictly after the step before it, and none after the reference instant: the
 * steps a future appointment already went through are spread between its booking and the reference.
 */
export function momentosDoHistorico(
  caminho: Transicao[],
  criadoMs: number,
  data: string,
  inicioMs: number,
  fimMs: number,
  referenciaMs: number,
): number[] {
  const natural = (novo: string): number => {
    switch (novo) {
      case 'aguardando_confirmacao':
        return Date.parse(`${addDays(data, -2)}T10:00:00Z`);
      case 'confirmado':
        return Date.parse(`${addDays(data, -1)}T16:00:00Z`);
      case 'cancelado':
        return Date.parse(`${addDays(data, -1)}T09:00:00Z`);
      case 'checkin':
        return inicioMs - 15 * MINUTO_MS;
      case 'em_atendimento':
        return inicioMs;
      case 'finalizado':
        return fimMs;
      default: // nao_compareceu: noted once the slot is over
        return fimMs + 30 * MINUTO_MS;
    }
  };
  const momentos = [criadoMs];
  for (let k = 1; k < caminho.length; k++) {
    const anterior = momentos[k - 1];
    let t = Math.max(natural(caminho[k][1]), anterior + MINUTO_MS);
    if (t > referenciaMs) {
      // Not yet at its natural moment: an even share of what is left before the reference, whole minutes.
      const restantes = caminho.length - k;
      t = anterior + Math.max(1, Math.floor((referenciaMs - anterior) / (restantes + 1) / MINUTO_MS)) * MINUTO_MS;
    }
    momentos.push(t);
  }
  return momentos;
}

interface Agenda {
  id: number;
  medicoId: number | null;
  salaId: number | null;
  unidadeId: number;
  dias: number[];
  procs: [number, number][];
}

/**
 * An agenda per exam doctor and two room agendas (weekday grids, six procedures each with a duration),
 * one insurer blocked on the first.
 */
function seedAgendaConfigs({ sqlite, rnd, refDate }: SeedContext, { procedimentoIds, medicoIds }: Catalogos): Agenda[] {
  const agendas: Agenda[] = [];
  sqlite.transaction(() => {
    const insConfig = inserter(sqlite, 'agenda_configs', [
      'id',
      'nome',
      'tipo_vinculo',
      'medico_id',
      'sala_id',
      'unidade_id',
      'ativo',
      'data_inicio',
      'data_fim',
      'permite_encaixe',
      'limite_diario',
      'criado_em',
    ]);
    const insHorario = inserter(sqlite, 'agenda_horarios', [
      'agenda_config_id',
      'dia_semana',
      'hora_inicio',
      'hora_fim',
    ]);
    const insProc = inserter(sqlite, 'agenda_procedimentos', [
      'agenda_config_id',
      'procedimento_id',
      'duracao_minutos',
    ]);
    const nomes = sqlite.prepare('SELECT id, nome FROM medicos').all() as { id: number; nome: string }[];
    const specs: { medicoId: number | null; salaId: number | null }[] = [
      ...medicoIds.exame.map((m) => ({ medicoId: m, salaId: null })),
      { medicoId: null, salaId: 1 },
      { medicoId: null, salaId: 3 },
    ];
    const inicio = addDays(refDate, -2 * 365);
    specs.forEach((s, i) => {
      const id = i + 1;
      const unidadeId = s.salaId ? ((s.salaId - 1) % D.UNIDADES.length) + 1 : (i % D.UNIDADES.length) + 1;
      const nome = s.medicoId
        ? `Agenda ${nomes.find((n) => n.id === s.medicoId)!.nome}`
        : `Agenda ${D.SALAS[s.salaId! - 1]}`;
      insConfig(
        id,
        nome,
        s.medicoId ? 'medico' : 'sala',
        s.medicoId,
        s.salaId,
        unidadeId,
        1,
        inicio,
        null,
        1,
        0,
        `${inicio}T08:00:00Z`,
      );
      const dias = s.salaId ? [1, 2, 3, 4, 5, 6] : [1, 2, 3, 4, 5];
      for (const d of dias) {
        insHorario(id, d, '08:00', '12:00');
        if (d !== 6) insHorario(id, d, '13:00', '18:00');
      }
      const procs: [number, number][] = [];
      const offered = new Set<number>();
      while (offered.size < 6) offered.add(rnd.pick(procedimentoIds));
      for (const p of [...offered].sort((a, b) => a - b)) {
        const dur = rnd.pick([15, 20, 30]);
        insProc(id, p, dur);
        procs.push([p, dur]);
      }
      // The consultation is offered by room agendas but without a configured duration (BUSINESS_RULE on booking).
      const consulta = D.PROCEDIMENTOS.length;
      if (s.salaId && !offered.has(consulta)) insProc(id, consulta, null);
      agendas.push({ id, medicoId: s.medicoId, salaId: s.salaId, unidadeId, dias, procs });
    });
    // One insurer blocked on the first agenda.
    const hapvida = D.CONVENIOS.findIndex(([n]) => n === 'Hapvida') + 1;
    sqlite
      .prepare('INSERT INTO agenda_convenios_bloqueados (agenda_config_id, convenio_id) VALUES (?, ?)')
      .run(1, hapvida);
  })();
  return agendas;
}

/**
 * The agendas, then `count` appointments on their grids (a few overbookings, a few without a registered
 * patient) around the reference date, each with the history its status went through. Answers how many
 * were written (a saturated grid skips rather than overlaps).
 */
export function seedAgenda(
  ctx: SeedContext,
  count: number,
  pacientes: number,
  catalogos: Catalogos,
  convenioDoPaciente: Int32Array,
): number {
  const { sqlite, rnd, ref, refDate } = ctx;
  const { planosPorConvenio } = catalogos;
  const agendas = seedAgendaConfigs(ctx, catalogos);
  // 18 half-hour grid slots per weekday (08:00-12:00, 13:00-18:00); the date window widens with volume.
  const grid = [...Array(8).keys()].map((k) => 480 + k * 30).concat([...Array(10).keys()].map((k) => 780 + k * 30));
  const window = Math.max(120, Math.ceil((count * 2) / (agendas.length * grid.length * (5 / 7))));
  const firstDay = addDays(refDate, -Math.floor(window / 2));
  const usados = new Set<number>();
  const insAg = inserter(sqlite, 'agendamentos', [
    'id',
    'agenda_config_id',
    'paciente_id',
    'medico_id',
    'sala_id',
    'unidade_id',
    'procedimento_id',
    'convenio_id',
    'plano_id',
    'data_agendamento',
    'hora_inicio',
    'hora_fim',
    'status',
    'encaixe',
    'observacoes',
    'paciente_nome',
    'paciente_celular',
    'cancelado_em',
    'cancelado_motivo',
    'criado_em',
    'atualizado_em',
  ]);
  const insHist = inserter(sqlite, 'agendamento_historico', [
    'id',
    'agendamento_id',
    'status_anterior',
    'status_novo',
    'data_hora',
    'observacao',
    'origem',
    'chave_id',
  ]);
  let histId = 0;
  let agId = 0;
  batched(
    sqlite,
    count,
    () => {
      let agenda: Agenda | undefined;
      let dayIdx = 0;
      let minuto = 0;
      let encaixe = rnd.chance(0.03);
      for (let attempt = 0; attempt < 30; attempt++) {
        const a = rnd.pick(agendas);
        const d = rnd.int(0, window - 1);
        const wd = weekday(addDays(firstDay, d));
        if (!a.dias.includes(wd)) continue;
        const slots = wd === 6 ? grid.slice(0, 8) : grid;
        const s = rnd.int(0, slots.length - 1);
        if (encaixe) {
          agenda = a;
          dayIdx = d;
          minuto = slots[s] + 10;
          break;
        }
        const key = (a.id * 100_000 + d) * 100 + s;
        if (usados.has(key)) continue;
        usados.add(key);
        agenda = a;
        dayIdx = d;
        minuto = slots[s];
        break;
      }
      if (!agenda) return; // grid saturated: skip rather than overlap
      const id = ++agId;
      const data = addDays(firstDay, dayIdx);
      const [proc, dur] = rnd.pick(agenda.procs);
      const semPaciente = rnd.chance(0.03);
      const pacienteId = semPaciente ? null : rnd.int(1, pacientes);
      const conv = pacienteId ? convenioDoPaciente[pacienteId] : 0;
      const passado = data < refDate;
      const status = passado
        ? rnd.weighted([
            ['finalizado', 65],
            ['nao_compareceu', 10],
            ['cancelado', 20],
            ['confirmado', 5],
          ] as const)
        : rnd.weighted([
            ['agendado', 45],
            ['aguardando_confirmacao', 20],
            ['confirmado', 20],
            ['cancelado', 15],
          ] as const);
      // Booked 1-30 days before the appointment; a future one, 1-30 days before the reference instant.
      const criadoEm = `${addDays(passado ? data : refDate, -rnd.int(1, 30))}T${fromMinutes(rnd.int(420, 1140))}:00Z`;
      const hora = fromMinutes(minuto);
      const caminho: Transicao[] = [[null, 'agendado', null]];
      if (
        status === 'aguardando_confirmacao' ||
        status === 'confirmado' ||
        status === 'finalizado' ||
        status === 'nao_compareceu'
      )
        caminho.push(['agendado', 'aguardando_confirmacao', 'Lembrete automatico enviado por SMS']);
      if (status === 'confirmado' || status === 'finalizado' || status === 'nao_compareceu')
        caminho.push(['aguardando_confirmacao', 'confirmado', 'Confirmado pelo paciente']);
      if (status === 'finalizado')
        caminho.push(
          ['confirmado', 'checkin', null],
          ['checkin', 'em_atendimento', null],
          ['em_atendimento', 'finalizado', null],
        );
      if (status === 'nao_compareceu') caminho.push(['confirmado', 'nao_compareceu', null]);
      if (status === 'cancelado') caminho.push(['agendado', 'cancelado', 'Paciente solicitou cancelamento']);
      const inicioMs = Date.parse(`${data}T${hora}:00Z`);
      const momentos = momentosDoHistorico(
        caminho,
        Date.parse(criadoEm),
        data,
        inicioMs,
        inicioMs + dur * MINUTO_MS,
        ref.getTime(),
      ).map((ms) => isoSeconds(new Date(ms)));
      const canceladoEm = status === 'cancelado' ? momentos[momentos.length - 1] : null;
      insAg(
        id,
        agenda.id,
        pacienteId,
        agenda.medicoId,
        agenda.salaId,
        agenda.unidadeId,
        proc,
        conv,
        conv ? rnd.pick(planosPorConvenio.get(conv)!) : null,
        data,
        hora,
        fromMinutes(minuto + dur),
        status,
        encaixe ? 1 : 0,
        null,
        semPaciente ? `${rnd.pick(D.NOMES_FEMININOS)} ${rnd.pick(D.SOBRENOMES)}`.toUpperCase() : null,
        semPaciente ? `119${rnd.digits(8)}` : null,
        canceladoEm,
        status === 'cancelado' ? 'Paciente solicitou cancelamento' : null,
        criadoEm,
        caminho.length > 1 ? momentos[momentos.length - 1] : null,
      );
      caminho.forEach(([de, para, obs], k) => {
        insHist(++histId, id, de, para, momentos[k], obs, k === 0 ? 'API' : 'SISTEMA', null);
      });
      encaixe = false;
    },
    ctx.report('agendamentos', count),
  );
  return agId;
}
