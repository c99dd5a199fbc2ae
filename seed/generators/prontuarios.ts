import { SEED_SAMPLES } from '../../backend-sim/seed-samples.ts';
import { addDays, fromMinutes } from '../../backend-sim/lib/time.ts';
import { batched, inserter } from '../bulk-load.ts';
import * as D from '../data.ts';
import { horaNoPassado } from '../tempo.ts';
import type { Catalogos, SeedContext } from './context.ts';

/** 1-3 records for 15% of the patients over the last two years, 30% with the sample PDF attached. Answers how many records. */
export function seedProntuarios(ctx: SeedContext, pacientes: number, { medicoIds }: Catalogos): number {
  const { sqlite, rnd, ref, refDate } = ctx;
  let prontuarios = 0;
  const insPront = inserter(sqlite, 'prontuarios', [
    'id',
    'paciente_id',
    'medico_id',
    'data_emissao',
    'mensagem',
    'exibir',
    'rascunho',
    'criado_em',
  ]);
  const insAnexo = inserter(sqlite, 'prontuario_anexos', [
    'id',
    'paciente_id',
    'prontuario_id',
    'descricao',
    'nome_arquivo',
    'extensao',
    'tamanho',
    'object_key',
    'criado_em',
  ]);
  const tamanho = SEED_SAMPLES['seed-samples/anexo.pdf'].length;
  let anexoId = 0;
  const comProntuario = Math.ceil(pacientes * 0.15);
  batched(
    sqlite,
    comProntuario,
    () => {
      const pacienteId = rnd.int(1, pacientes);
      const n = rnd.int(1, 3);
      for (let k = 0; k < n; k++) {
        const dia = addDays(refDate, -rnd.int(0, 720));
        const quando = `${dia}T${horaNoPassado(dia, `${fromMinutes(rnd.int(420, 1140))}:00`, ref)}Z`;
        const id = ++prontuarios;
        insPront(
          id,
          pacienteId,
          rnd.pick(medicoIds.exame),
          quando,
          rnd.pick(D.MENSAGENS_PRONTUARIO),
          rnd.chance(0.8) ? 1 : 0,
          0,
          quando,
        );
        if (rnd.chance(0.3))
          insAnexo(
            ++anexoId,
            pacienteId,
            id,
            'Pedido medico',
            'pedido-medico.pdf',
            'PDF',
            tamanho,
            'seed-samples/anexo.pdf',
            quando,
          );
      }
    },
    ctx.report('prontuarios', comProntuario),
  );
  return prontuarios;
}
