import { ContagemBuilder } from '../../backend-sim/db/derived.ts';
import { addDays } from '../../backend-sim/lib/time.ts';
import { batched, inserter } from '../bulk-load.ts';
import * as D from '../data.ts';
import { horaNoPassado, segundos } from '../tempo.ts';
import type { Catalogos, SeedContext } from './context.ts';

/**
 * `count` exams of the last three years (skewed towards recent ones), most with a report (signed, or
 * issued and unsigned), plus a few orphan reports. Answers how many reports, and the per-date counts
 * gathered on the way (the list counts are built from them, not recounted).
 */
export function seedExames(
  ctx: SeedContext,
  count: number,
  pacientes: number,
  { procedimentoIds, procedimentosComImagem, planosPorConvenio, medicoIds }: Catalogos,
  convenioDoPaciente: Int32Array,
) {
  const { sqlite, rnd, rich, ref, refDate } = ctx;
  const insExame = inserter(sqlite, 'exames', [
    'id',
    'paciente_id',
    'procedimento_id',
    'unidade_id',
    'medico_exame_id',
    'medico_laudo_id',
    'medico_solicitante_id',
    'convenio_id',
    'plano_id',
    'cid_id',
    'complemento_id',
    'data_realizado',
    'hora_realizado',
    'numero',
    'referencia',
    'requer_laudo',
    'prioridade',
    'arquivo_exame_key',
    'arquivo_laudo_key',
    'laudo_central',
    'exportado_central',
    'criado_em',
    'atualizado_em',
  ]);
  const insLaudo = inserter(sqlite, 'laudos', [
    'id',
    'exame_id',
    'medico_laudo_id',
    'data_laudo',
    'hora_laudo',
    'titulo',
    'referencia',
    'cid_id',
    'assinado',
    'assinado_em',
    'assinatura_tipo',
    'arquivo_key',
    'criado_em',
    'atualizado_em',
  ]);
  let laudoId = 0;
  const contagens = new ContagemBuilder();
  // The date `n` days before the reference date, computed once per n (a million exams share ~1,100 dates).
  const datas: string[] = [];
  const diasAntes = (n: number) => (datas[n] ??= addDays(refDate, -n));
  const hhmmss = () =>
    `${String(rnd.int(7, 19)).padStart(2, '0')}:${String(rnd.int(0, 59)).padStart(2, '0')}:${String(rnd.int(0, 59)).padStart(2, '0')}`;
  batched(
    sqlite,
    count,
    (i) => {
      const id = i + 1;
      const pacienteId = rnd.int(1, pacientes);
      const proc = rnd.pick(procedimentoIds);
      const diasAtras = Math.floor(rnd.float() ** 1.5 * 3 * 365); // skewed towards recent exams
      const data = diasAntes(diasAtras);
      const hora = horaNoPassado(data, hhmmss(), ref);
      const medicoLaudo = rnd.pick(medicoIds.laudo);
      const status =
        diasAtras < 2
          ? rnd.weighted([
              ['PENDENTE', 80],
              ['ASSINADO', 20],
            ] as const)
          : rnd.weighted([
              ['ASSINADO', 65],
              ['EMITIDO', 10],
              ['PENDENTE', 25],
            ] as const);
      const temLaudo = status !== 'PENDENTE';
      const conv = convenioDoPaciente[pacienteId];
      const criado = `${data}T${hora}Z`;
      // Drawn in the order the arguments below used to draw them: same seed, same rows.
      const unidade = rnd.int(1, D.UNIDADES.length);
      const medicoExame = rnd.pick(medicoIds.exame);
      const solicitante = medicoIds.solicitante.length && rnd.chance(0.6) ? rnd.pick(medicoIds.solicitante) : null;
      contagens.exame(
        data,
        proc,
        medicoExame,
        medicoLaudo,
        solicitante,
        status === 'PENDENTE' ? 0 : status === 'EMITIDO' ? 1 : 2,
      );
      insExame(
        id,
        pacienteId,
        proc,
        unidade,
        medicoExame,
        medicoLaudo,
        solicitante,
        conv || null,
        conv ? rnd.pick(planosPorConvenio.get(conv)!) : null,
        rnd.chance(0.5) ? rnd.int(1, D.CIDS.length) : null,
        rnd.chance(0.1) ? rnd.int(1, D.COMPLEMENTOS.length) : null,
        data,
        hora,
        `${data.slice(0, 4)}${String(id).padStart(8, '0')}`,
        rich && rnd.chance(0.3) ? `REF-${rnd.digits(6)}` : null,
        1,
        rnd.weighted([
          [1, 85],
          [2, 10],
          [3, 5],
        ] as const),
        procedimentosComImagem.includes(proc) && rnd.chance(0.8) ? 'seed-samples/exame.pdf' : null,
        temLaudo ? 'seed-samples/laudo.pdf' : null,
        temLaudo && rnd.chance(0.02) ? 1 : 0,
        rnd.chance(0.05) ? 1 : 0,
        criado,
        temLaudo ? criado : null,
      );
      if (temLaudo) {
        const dataLaudo = diasAntes(diasAtras - rnd.int(0, Math.min(3, diasAtras)));
        // Not before the exam it reports on.
        const horaLaudo = horaNoPassado(dataLaudo, hhmmss(), ref, dataLaudo === data ? segundos(hora) : 0);
        const assinado = status === 'ASSINADO';
        contagens.laudo(dataLaudo, medicoLaudo, assinado ? 1 : 0);
        insLaudo(
          ++laudoId,
          id,
          medicoLaudo,
          dataLaudo,
          horaLaudo,
          'Laudo',
          null,
          null,
          assinado ? 1 : 0,
          assinado ? `${dataLaudo}T${horaLaudo}Z` : null,
          assinado ? 'ICP-Brasil A3' : null,
          'seed-samples/laudo.pdf',
          `${dataLaudo}T${horaLaudo}Z`,
          null,
        );
      }
      // A few reports arrive without their exam (orphans).
      if (rnd.chance(0.003)) {
        const dataLaudo = diasAntes(rnd.int(0, 365));
        const medicoAvulso = rnd.pick(medicoIds.laudo);
        contagens.laudo(dataLaudo, medicoAvulso, 1);
        const horaAvulso = horaNoPassado(dataLaudo, hhmmss(), ref);
        const emitido = `${dataLaudo}T${horaAvulso}Z`;
        insLaudo(
          ++laudoId,
          null,
          medicoAvulso,
          dataLaudo,
          horaAvulso,
          'Laudo avulso',
          null,
          null,
          1,
          emitido,
          'ICP-Brasil A3',
          'seed-samples/laudo.pdf',
          emitido,
          null,
        );
      }
    },
    ctx.report('exames', count),
  );
  return { laudos: laudoId, contagens };
}
