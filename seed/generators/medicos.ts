import { ENDERECO_COLUMNS } from '../../backend-sim/domain/endereco.ts';
import { cpfCheckDigits } from '../../backend-sim/lib/cpf.ts';
import { addDays } from '../../backend-sim/lib/time.ts';
import { inserter } from '../bulk-load.ts';
import * as D from '../data.ts';
import type { MedicoIds } from '../types.ts';
import { ascii, enderecoSintetico, type SeedContext } from './context.ts';

/** Doctors: a fixed role rotation so every tenant has exam, reporting and requesting doctors. */
export function seedMedicos(
  { sqlite, rnd, rich, refDate }: SeedContext,
  senhaHash: string,
  criadoEm: string,
): MedicoIds {
  const medicoIds: MedicoIds = { exame: [], laudo: [], solicitante: [] };
  const roles: [number, number, number][] = [
    [1, 1, 0],
    [1, 1, 0],
    [1, 0, 0],
    [0, 1, 0],
    [0, 0, 1],
    [1, 1, 1],
  ];
  const nMedicos = rich ? 12 : 6;
  const insMedico = inserter(sqlite, 'medicos', [
    'id',
    'nome',
    'nome_registro',
    'saudacao_id',
    'grupo_permissao_id',
    'usuario',
    'senha_hash',
    'cpf',
    'rg',
    'data_nascimento',
    'sexo',
    'conselho_sigla',
    'conselho_numero',
    'conselho_uf',
    'especialidade',
    'papel_exame',
    'papel_laudo',
    'papel_solicitante',
    'telefone',
    'celular',
    'email',
    ...ENDERECO_COLUMNS,
    'cor_agenda',
    'ativo',
    'criado_em',
  ]);
  for (let i = 0; i < nMedicos; i++) {
    const id = i + 1;
    const fem = rnd.chance(0.5);
    const first = rich ? rnd.pick(fem ? D.NOMES_FEMININOS : D.NOMES_MASCULINOS) : 'Medico';
    const last = rich ? `${rnd.pick(D.SOBRENOMES)} ${rnd.pick(D.SOBRENOMES)}` : `Sintetico ${id}`;
    const nome = `${first} ${last}`;
    const cidadeIdx = rnd.int(0, D.CIDADES.length - 1);
    const [, uf, , ddd] = D.CIDADES[cidadeIdx];
    const [e, l, s] = roles[i % roles.length];
    const usuario = `dr.${ascii(first).toLowerCase()}.${ascii(last.split(' ')[0]).toLowerCase()}${id}`;
    const cpfBase = String(100_000_000 + rnd.int(0, 899_999_999));
    insMedico(
      id,
      nome,
      null,
      fem ? 2 : 1,
      e || l ? 1 : 2,
      usuario,
      senhaHash,
      cpfBase + cpfCheckDigits(cpfBase),
      rnd.digits(9),
      addDays(refDate, -rnd.int(30 * 365, 65 * 365)),
      fem ? 'FEM' : 'MAS',
      'CRM',
      String(rnd.int(10_000, 199_999)),
      uf,
      rnd.pick(D.ESPECIALIDADES),
      e,
      l,
      s,
      `${ddd}3${rnd.digits(7)}`,
      `${ddd}9${rnd.digits(8)}`,
      `${usuario.replace(/^dr\./, '')}@clinica.med.br`,
      ...enderecoSintetico(rnd, cidadeIdx, 3000),
      D.CORES_AGENDA[i % D.CORES_AGENDA.length],
      1,
      criadoEm,
    );
    if (e) medicoIds.exame.push(id);
    if (l) medicoIds.laudo.push(id);
    if (s) medicoIds.solicitante.push(id);
  }
  return medicoIds;
}

/** Report groups, each with every other reporting doctor. */
export function seedGruposLaudos({ sqlite }: SeedContext, medicoIds: MedicoIds): void {
  D.GRUPOS_LAUDOS.forEach((nome, i) => {
    sqlite.prepare('INSERT INTO grupos_laudos (id, nome, ativo) VALUES (?, ?, 1)').run(i + 1, nome);
    const membros = medicoIds.laudo.filter((_, j) => (j + i) % 2 === 0);
    for (const m of membros)
      sqlite.prepare('INSERT INTO grupos_laudos_medicos (grupo_laudo_id, medico_id) VALUES (?, ?)').run(i + 1, m);
  });
}
