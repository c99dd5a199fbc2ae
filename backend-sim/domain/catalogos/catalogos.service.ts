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
import * as view from './catalogos.views.ts';

export async function listProcedimentos(db: Db, f: ProcedimentosFilter) {
  return pageOf(await repo.listProcedimentos(db, f), view.procedimentoItem);
}

export async function listConvenios(db: Db, f: ConveniosFilter) {
  const page = await repo.listConvenios(db, f);
  const planos = await repo.listPlanos(
    db,
    page.rows.map((r) => r.id),
  );
  return pageOf(page, (c) => view.convenioItem(c, planos));
}

/** ICD-10 search: code prefix (dot optional) or name contains; `q` is required. */
export async function listCids(db: Db, f: CidsFilter) {
  const needle = f.q?.trim();
  if (!needle) throw new BackendError('VAL_INVALID_PARAM', 'Parametro q obrigatorio.', { field: 'q' });
  return pageOf(await repo.listCids(db, needle, f), view.cidItem);
}

export async function listUnidades(db: Db, f: SimpleCatalogFilter) {
  return pageOf(await repo.listUnidades(db, f), view.unidadeItem);
}

export async function listComplementos(db: Db, f: SimpleCatalogFilter) {
  return pageOf(await repo.listByName(db, 'complementos', f), view.complementoItem);
}

export async function listGruposLaudos(db: Db, f: SimpleCatalogFilter) {
  const page = await repo.listByName(db, 'grupos_laudos', f);
  const membros = await repo.listGrupoMembros(
    db,
    page.rows.map((r) => r.id),
  );
  return pageOf(page, (g) => view.grupoLaudoItem(g, membros));
}
