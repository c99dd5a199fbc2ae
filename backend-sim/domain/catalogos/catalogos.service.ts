import type { Db } from '../../db/database.ts';
import { BackendError } from '../../errors.ts';
import { pageOf } from '../paginas.ts';
import * as repo from './catalogos.repository.ts';
import type {
  CidsFilter,
  ConveniosFilter,
  ProcedimentosFilter,
  SimpleCatalogFilter,
} from '../../../contracts/backend/catalogos.ts';
import {
  cidItem,
  complementoItem,
  convenioItem,
  grupoLaudoItem,
  procedimentoItem,
  unidadeItem,
} from './catalogos.views.ts';

export async function listProcedimentos(db: Db, f: ProcedimentosFilter) {
  return pageOf(await repo.listProcedimentos(db, f), procedimentoItem);
}

export async function listConvenios(db: Db, f: ConveniosFilter) {
  const page = await repo.listConvenios(db, f);
  const planos = await repo.listPlanos(
    db,
    page.rows.map((r) => r.id),
  );
  return pageOf(page, (c) => convenioItem(c, planos));
}

/** ICD-10 search: code prefix (dot optional) or name contains; `q` is required. */
export async function listCids(db: Db, f: CidsFilter) {
  const needle = f.q?.trim();
  if (!needle) throw new BackendError('VAL_INVALID_PARAM', 'Parametro q obrigatorio.', { field: 'q' });
  return pageOf(await repo.listCids(db, needle, f), cidItem);
}

export async function listUnidades(db: Db, f: SimpleCatalogFilter) {
  return pageOf(await repo.listUnidades(db, f), unidadeItem);
}

export async function listComplementos(db: Db, f: SimpleCatalogFilter) {
  return pageOf(await repo.listByName(db, 'complementos', f), complementoItem);
}

export async function listGruposLaudos(db: Db, f: SimpleCatalogFilter) {
  const page = await repo.listByName(db, 'grupos_laudos', f);
  const membros = await repo.listGrupoMembros(
    db,
    page.rows.map((r) => r.id),
  );
  return pageOf(page, (g) => grupoLaudoItem(g, membros));
}
