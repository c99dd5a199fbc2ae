import type { Db } from '../../db/database.ts';
import { BackendError } from '../../errors.ts';
import type { Listed } from '../../lib/http.ts';
import { jsonOrRows, pageOf } from '../paginas.ts';
import * as repo from './catalogos.repository.ts';
import type {
  CidsFilter,
  ConveniosFilter,
  ProcedimentosFilter,
  SimpleCatalogFilter,
} from '../../../contracts/backend/catalogos.ts';
import * as view from './catalogos.views.ts';

// Each list answers its page written by SQLite (decisions L32-1); its `…Rows` twin, the rows through the view, is
// the path of a page outside the contract (and of the test that the two answer the same bytes).

export async function listProcedimentos(db: Db, f: ProcedimentosFilter): Promise<Listed> {
  return jsonOrRows(await repo.listProcedimentosJson(db, f, view.PROCEDIMENTO_JSON), () =>
    listProcedimentosRows(db, f),
  );
}
export async function listProcedimentosRows(db: Db, f: ProcedimentosFilter) {
  return pageOf(await repo.listProcedimentos(db, f), view.procedimentoItem);
}

export async function listConvenios(db: Db, f: ConveniosFilter): Promise<Listed> {
  return jsonOrRows(await repo.listConveniosJson(db, f, view.CONVENIO_JSON), () => listConveniosRows(db, f));
}
export async function listConveniosRows(db: Db, f: ConveniosFilter) {
  const page = await repo.listConvenios(db, f);
  const planos = await repo.listPlanos(
    db,
    page.rows.map((r) => r.id),
  );
  return pageOf(page, (c) => view.convenioItem(c, planos));
}

/** ICD-10 search: code prefix (dot optional) or name contains; `q` is required. */
export async function listCids(db: Db, f: CidsFilter): Promise<Listed> {
  const needle = cidNeedle(f);
  return jsonOrRows(await repo.listCidsJson(db, needle, f, view.CID_JSON), () => listCidsRows(db, f));
}
export async function listCidsRows(db: Db, f: CidsFilter) {
  return pageOf(await repo.listCids(db, cidNeedle(f), f), view.cidItem);
}
function cidNeedle(f: CidsFilter): string {
  const needle = f.q?.trim();
  if (!needle) throw new BackendError('VAL_INVALID_PARAM', 'Parametro q obrigatorio.', { field: 'q' });
  return needle;
}

export async function listUnidades(db: Db, f: SimpleCatalogFilter): Promise<Listed> {
  return jsonOrRows(await repo.listUnidadesJson(db, f, view.UNIDADE_JSON), () => listUnidadesRows(db, f));
}
export async function listUnidadesRows(db: Db, f: SimpleCatalogFilter) {
  return pageOf(await repo.listUnidades(db, f), view.unidadeItem);
}

export async function listComplementos(db: Db, f: SimpleCatalogFilter): Promise<Listed> {
  return jsonOrRows(await repo.listByNameJson(db, 'complementos', f, view.COMPLEMENTO_JSON), () =>
    listComplementosRows(db, f),
  );
}
export async function listComplementosRows(db: Db, f: SimpleCatalogFilter) {
  return pageOf(await repo.listByName(db, 'complementos', f), view.complementoItem);
}

export async function listGruposLaudos(db: Db, f: SimpleCatalogFilter): Promise<Listed> {
  return jsonOrRows(await repo.listByNameJson(db, 'grupos_laudos', f, view.GRUPO_LAUDO_JSON), () =>
    listGruposLaudosRows(db, f),
  );
}
export async function listGruposLaudosRows(db: Db, f: SimpleCatalogFilter) {
  const page = await repo.listByName(db, 'grupos_laudos', f);
  const membros = await repo.listGrupoMembros(
    db,
    page.rows.map((r) => r.id),
  );
  return pageOf(page, (g) => view.grupoLaudoItem(g, membros));
}
