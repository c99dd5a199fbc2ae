import * as D from '../data.ts';
import type { SeedContext } from './context.ts';

/** The reference tables (marital statuses, greetings, cities, procedures, insurers and plans, units, rooms, complements, ICD-10). */
export function seedCatalogos({ sqlite, rnd }: SeedContext) {
  const procedimentosComImagem: number[] = [];
  const procedimentoIds: number[] = [];
  const planosPorConvenio = new Map<number, number[]>();
  D.ESTADOS_CIVIS.forEach((n, i) => {
    sqlite.prepare('INSERT INTO estados_civis (id, nome) VALUES (?, ?)').run(i + 1, n);
  });
  D.SAUDACOES_MEDICO.forEach((n, i) => {
    sqlite.prepare('INSERT INTO saudacoes (id, nome) VALUES (?, ?)').run(i + 1, n);
  });
  D.GRUPOS_PERMISSAO.forEach((n, i) => {
    sqlite.prepare('INSERT INTO grupos_permissao (id, nome) VALUES (?, ?)').run(i + 1, n);
  });
  D.CIDADES.forEach(([nome, uf], i) => {
    sqlite.prepare('INSERT INTO cidades (id, nome, uf) VALUES (?, ?, ?)').run(i + 1, nome, uf);
  });
  D.PROCEDIMENTOS.forEach(([nome, abrev, tuss, desc, laudo, imagens], i) => {
    sqlite
      .prepare(
        'INSERT INTO procedimentos (id, nome, abreviacao, codigo_tuss, descricao_tuss, requer_laudo, possui_imagens, ativo) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(i + 1, nome, abrev, tuss, desc, laudo, imagens, 1);
    if (laudo) procedimentoIds.push(i + 1);
    if (imagens) procedimentosComImagem.push(i + 1);
  });
  let planoId = 1;
  D.CONVENIOS.forEach(([nome, abrev, ans, planos], i) => {
    sqlite
      .prepare('INSERT INTO convenios (id, nome, abreviacao, codigo_ans, ativo) VALUES (?, ?, ?, ?, 1)')
      .run(i + 1, nome, abrev, ans);
    const ids: number[] = [];
    for (const p of planos) {
      sqlite
        .prepare('INSERT INTO planos (id, convenio_id, nome, codigo_ans, ativo) VALUES (?, ?, ?, ?, 1)')
        .run(planoId, i + 1, p, `${ans}${String(ids.length + 1).padStart(3, '0')}`);
      ids.push(planoId++);
    }
    planosPorConvenio.set(i + 1, ids);
  });
  D.UNIDADES.forEach(([nome, abrev], i) => {
    const [cidade, uf] = D.CIDADES[0];
    sqlite
      .prepare('INSERT INTO unidades (id, nome, abreviacao, cnpj, cidade, uf, ativo) VALUES (?, ?, ?, ?, ?, ?, 1)')
      .run(i + 1, nome, abrev, `1234567800${String(i + 1).padStart(2, '0')}${rnd.digits(2)}`, cidade, uf);
  });
  D.SALAS.forEach((nome, i) => {
    sqlite
      .prepare('INSERT INTO salas (id, unidade_id, nome, ativo) VALUES (?, ?, ?, 1)')
      .run(i + 1, (i % D.UNIDADES.length) + 1, nome);
  });
  D.COMPLEMENTOS.forEach((nome, i) => {
    sqlite.prepare('INSERT INTO complementos (id, nome, ativo) VALUES (?, ?, 1)').run(i + 1, nome);
  });
  D.CIDS.forEach(([codigo, nome], i) => {
    sqlite.prepare('INSERT INTO cids (id, codigo, nome) VALUES (?, ?, ?)').run(i + 1, codigo, nome);
  });
  return { procedimentoIds, procedimentosComImagem, planosPorConvenio };
}
