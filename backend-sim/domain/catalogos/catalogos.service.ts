import type { Db } from '../../db/database.ts';
import { BackendError } from '../../errors.ts';
import * as repo from './catalogos.repository.ts';
import type { CidsFilter, ConveniosFilter, ProcedimentosFilter, SimpleCatalogFilter } from './catalogos.schemas.ts';

const bool = (v: number) => v === 1;

export async function listProcedimentos(db: Db, f: ProcedimentosFilter) {
  const { rows, total } = await repo.listProcedimentos(db, f);
  return {
    total,
    data: rows.map((p) => ({
      id: p.id,
      nome: p.nome,
      abreviacao: p.abreviacao,
      codigo_tuss: p.codigo_tuss ?? '',
      descricao_tuss: p.descricao_tuss,
      requer_laudo: bool(p.requer_laudo),
      possui_imagens: bool(p.possui_imagens),
      ativo: bool(p.ativo),
    })),
  };
}

export async function listConvenios(db: Db, f: ConveniosFilter) {
  const { rows, total } = await repo.listConvenios(db, f);
  const planos = await repo.listPlanos(db, rows.map((r) => r.id));
  return {
    total,
    data: rows.map((c) => ({
      id: c.id,
      nome: c.nome,
      abreviacao: c.abreviacao,
      codigo_ans: c.codigo_ans,
      ativo: bool(c.ativo),
      planos: planos.filter((p) => p.convenio_id === c.id).map((p) => ({ id: p.id, nome: p.nome, codigo_ans: p.codigo_ans, ativo: bool(p.ativo) })),
    })),
  };
}

/** ICD-10 search: code prefix (dot optional) or name contains; `q` is required. */
export async function listCids(db: Db, f: CidsFilter) {
  const needle = f.q?.trim();
  if (!needle) throw new BackendError('VAL_INVALID_PARAM', 'Parametro q obrigatorio.', { field: 'q' });
  const { rows, total } = await repo.listCids(db, needle, f);
  return { total, data: rows.map((c) => ({ id: c.id, codigo: c.codigo, nome: c.nome })) };
}

export async function listUnidades(db: Db, f: SimpleCatalogFilter) {
  const { rows, total } = await repo.listUnidades(db, f);
  return {
    total,
    data: rows.map((u) => ({ id: u.id, nome: u.nome, abreviacao: u.abreviacao, cidade: u.cidade ?? '', uf: u.uf ?? '', ativo: bool(u.ativo) })),
  };
}

export async function listComplementos(db: Db, f: SimpleCatalogFilter) {
  const { rows, total } = await repo.listByName(db, 'complementos', f);
  return { total, data: rows.map((c) => ({ id: c.id, nome: c.nome, ativo: bool(c.ativo) })) };
}

export async function listGruposLaudos(db: Db, f: SimpleCatalogFilter) {
  const { rows, total } = await repo.listByName(db, 'grupos_laudos', f);
  const membros = await repo.listGrupoMembros(db, rows.map((r) => r.id));
  return {
    total,
    data: rows.map((g) => ({
      id: g.id,
      nome: g.nome,
      ativo: bool(g.ativo),
      medicos: membros.filter((m) => m.grupo_laudo_id === g.id).map((m) => ({ id: m.id, nome: m.nome })),
    })),
  };
}
