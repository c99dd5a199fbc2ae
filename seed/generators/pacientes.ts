import { PACIENTE_COLUMNS } from '../../backend-sim/domain/pacientes/pacientes.repository.ts';
import { cpfCheckDigits } from '../../backend-sim/lib/cpf.ts';
import { addDays, isoSeconds } from '../../backend-sim/lib/time.ts';
import { batched, inserter } from '../bulk-load.ts';
import * as D from '../data.ts';
import { ascii, type Catalogos, enderecoSintetico, type SeedContext } from './context.ts';

/**
 * `count` patients with valid, unique CPFs (a few without one), 11-digit mobiles and addresses; 70% with
 * an insurer and plan. Answers each patient's insurer by id (0: none), which their exams and appointments bill.
 */
export function seedPacientes(
  ctx: SeedContext,
  count: number,
  { planosPorConvenio }: Catalogos,
  senhaHash: string,
): Int32Array {
  const { sqlite, rnd, rich, ref, refDate } = ctx;
  const conveniosComPlano = [...planosPorConvenio.entries()].filter(([, planos]) => planos.length > 0);
  const insPaciente = inserter(sqlite, 'pacientes', ['id', ...PACIENTE_COLUMNS]);
  const cpfOffset = rnd.int(1, 999_999_999);
  const convenioDoPaciente = new Int32Array(count + 1);
  batched(
    sqlite,
    count,
    (i) => {
      const id = i + 1;
      const sexo = rnd.weighted([
        ['FEM', 50],
        ['MAS', 48],
        ['OUT', 2],
      ] as const);
      const fem = sexo === 'FEM' || (sexo === 'OUT' && rnd.chance(0.5));
      const first = rnd.pick(fem ? D.NOMES_FEMININOS : D.NOMES_MASCULINOS);
      const s1 = rnd.pick(D.SOBRENOMES);
      const s2 = rnd.pick(D.SOBRENOMES);
      const nome = rich ? `${first} ${s1} ${s2}`.toUpperCase() : `PACIENTE SINTETICO ${String(id).padStart(7, '0')}`;
      // i -> (i * 3^18 + offset) mod 1e9 is a bijection, so CPF bases never repeat.
      const base = String((i * 387_420_489 + cpfOffset) % 1_000_000_000).padStart(9, '0');
      const hasCpf = !/^(\d)\1{8}$/.test(base) && (!rich || rnd.chance(0.96));
      const cidadeIdx = rnd.int(0, D.CIDADES.length - 1);
      const ddd = D.CIDADES[cidadeIdx][3];
      const conv = rnd.chance(0.7) ? rnd.pick(conveniosComPlano) : null;
      convenioDoPaciente[id] = conv ? conv[0] : 0;
      const criado = isoSeconds(new Date(ref.getTime() - rnd.int(0, 5 * 365 * 86400) * 1000));
      const email = rich
        ? `${ascii(first).toLowerCase()}.${ascii(s1).toLowerCase()}${rnd.int(1, 999)}@${rnd.pick(D.DOMINIOS)}`
        : `paciente${id}@example.com`;
      insPaciente(
        id,
        rich ? rnd.pick(D.SAUDACOES_PACIENTE) : null,
        nome,
        null,
        String(id),
        hasCpf ? base + cpfCheckDigits(base) : null,
        rnd.digits(9),
        addDays(refDate, -rnd.int(0, 95 * 365)),
        sexo,
        rnd.int(1, D.ESTADOS_CIVIS.length),
        rnd.chance(0.4) ? `${ddd}3${rnd.digits(7)}` : null,
        `${ddd}9${rnd.digits(8)}`,
        rnd.chance(0.85) ? email : null,
        ...enderecoSintetico(rnd, cidadeIdx, 4000),
        conv ? conv[0] : null,
        conv ? rnd.pick(conv[1]) : null,
        conv ? rnd.digits(16) : null,
        `paciente${id}`,
        senhaHash,
        1,
        criado,
        rnd.chance(0.97) ? 1 : 0,
        criado,
        // Never updated, written by no API key.
        null,
        null,
        null,
      );
    },
    ctx.report('pacientes', count),
  );
  return convenioDoPaciente;
}
