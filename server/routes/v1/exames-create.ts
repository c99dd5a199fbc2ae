import type { z } from 'zod';
import type { ErrorCode } from '../../../contracts/errors.ts';
import { documented } from '../../../contracts/schemas/wire.ts';
import {
  decodedBase64Size,
  exameCreateBody,
  exameCreated,
  MAX_INLINE_FILE_BYTES,
  parseCrm,
  type ExameAlias,
  type ExameCreateBody,
} from '../../../contracts/schemas/exames.ts';
import { exameCreateResolved, resolucaoMatches } from '../../../contracts/backend/exames.ts';
import { clinicRequires, exameSettings, type ExameSettings } from '../../../contracts/backend/settings.ts';
import { ApiError } from '../../errors.ts';
import { addMeta } from '../../http/envelope.ts';
import type { OperationContext, TenantBackend } from '../operation.ts';

/**
 * POST /v1/exames before the backend call (spec 02 § POST /v1/exames, spec 01 § Alias resolution codes):
 * 1. inline files above 20 MB decoded → 400 VAL_FILE_TOO_LARGE (size computed from the base64 length);
 * 2. every foreign key: id > 0 wins, else the first alias present, else the tenant default; a required
 *    key left with none of them → 400 `Obrigatorio (sem default no tenant).` with a teaching lista;
 * 3. aliases resolved by exact match in backend-sim, all at once → 422 consolidated, primary code by
 *    severity PARAM_CONFLICT > RESOLUTION_AMBIGUOUS > RESOLUTION_NOT_FOUND;
 * 4. the resolved body goes to backend-sim; `meta.resolvido` / `meta.defaults_aplicados` tell what was inferred.
 * Format errors (malformed aliases included) never get here: the route's zod schema answered 400 first.
 */

type Settings = ExameSettings;
type DefaultKey = keyof Settings['defaults'];
type IdField =
  | 'paciente_id'
  | 'unidade_id'
  | 'procedimento_id'
  | 'medico_exame_id'
  | 'medico_laudo_id'
  | 'medico_solicitante_id'
  | 'convenio_id';
type Ref = { id: number; nome: string };

export interface ListaItem {
  field: string;
  msg: string;
  code?: ErrorCode;
  candidatos?: Ref[];
  id_informado?: number;
  id_resolvido?: number;
  limite_bytes?: number;
  tamanho_bytes?: number;
  fonte?: string;
  alias_aceito?: string | null;
}

interface ForeignKey {
  field: IdField;
  /** What the id names, for messages. */
  what: string;
  /** In the spec's order: with two aliases for one key the first present wins (precedence rule 3). */
  aliases: ExameAlias[];
  /** Where the integrator looks the id up (teaching field `fonte`). */
  fonte: string;
  defaultKey?: DefaultKey;
  /**
   * What the OpenAPI document says of it: `always` required (id, alias or tenant default), required when the
   * `clinic` is configured so, or `optional`. `required` below is the rule itself.
   */
  requirement: 'always' | 'clinic' | 'optional';
  /** Another field whose presence lifts the requirement (and the default). */
  replacedBy?: 'grupos_laudos_id';
  /** Whether the exam cannot be created without it (spec body table, clinic configuration). */
  required(body: ExameCreateBody, settings: Settings): boolean;
}

/** Spec body table order: `details.field` is the first failing one in this order. */
const FOREIGN_KEYS: ForeignKey[] = [
  {
    field: 'paciente_id',
    what: 'paciente',
    aliases: ['paciente_cpf'],
    fonte: 'GET /v1/pacientes?cpf={cpf}',
    requirement: 'always',
    required: () => true,
  },
  {
    field: 'unidade_id',
    what: 'unidade',
    aliases: ['unidade_nome'],
    fonte: 'GET /v1/unidades',
    defaultKey: 'unidade_id',
    requirement: 'always',
    required: () => true,
  },
  {
    field: 'procedimento_id',
    what: 'procedimento',
    aliases: ['procedimento_codigo_tuss', 'procedimento_abreviacao'],
    fonte: 'GET /v1/procedimentos?q={nome}',
    requirement: 'always',
    required: () => true,
  },
  {
    field: 'medico_exame_id',
    what: 'medico executante (papel EXAME)',
    aliases: ['medico_exame_crm'],
    fonte: 'GET /v1/medicos?papel=EXAME',
    defaultKey: 'medico_exame_id',
    requirement: 'always',
    required: () => true,
  },
  {
    field: 'medico_laudo_id',
    what: 'medico laudador (papel LAUDO)',
    aliases: ['medico_laudo_crm'],
    fonte: 'GET /v1/medicos?papel=LAUDO',
    defaultKey: 'medico_laudo_id',
    // "required per clinic configuration; ... may be replaced by grupos_laudos_id".
    requirement: 'clinic',
    replacedBy: 'grupos_laudos_id',
    required: (b, s) => clinicRequires.medico_laudo_id(s, b),
  },
  {
    field: 'medico_solicitante_id',
    what: 'medico solicitante',
    aliases: [],
    fonte: 'GET /v1/medicos?papel=SOLICITANTE',
    requirement: 'clinic',
    required: (b, s) => clinicRequires.medico_solicitante_id(s, b),
  },
  {
    field: 'convenio_id',
    what: 'convenio',
    aliases: ['convenio_codigo_ans', 'convenio_nome'],
    fonte: 'GET /v1/convenios',
    defaultKey: 'convenio_id',
    requirement: 'optional',
    required: () => false,
  },
];

/**
 * The foreign keys as the OpenAPI document states them (issue 21): a key required in every clinic and without
 * a tenant default is a JSON Schema rule (an id > 0 or one of its aliases); the others depend on the tenant,
 * so `x-tenant-required` lists them with their aliases and the `GET /v1/config` default that stands in.
 */
documented(exameCreateBody, {
  json: {
    allOf: FOREIGN_KEYS.filter((fk) => fk.requirement === 'always' && !fk.defaultKey).map((fk) => ({
      anyOf: [
        { required: [fk.field], properties: { [fk.field]: { type: 'integer', minimum: 1 } } },
        ...fk.aliases.map((alias) => ({
          required: [alias],
          properties: { [alias]: { type: 'string', minLength: 1 } },
        })),
      ],
    })),
    'x-tenant-required': FOREIGN_KEYS.filter(
      (fk) => fk.requirement !== 'optional' && (fk.defaultKey || fk.requirement === 'clinic'),
    ).map((fk) => ({
      field: fk.field,
      aliases: fk.aliases,
      ...(fk.defaultKey ? { default: `GET /v1/config defaults.${fk.defaultKey}` } : {}),
      ...(fk.requirement === 'clinic' ? { when: 'a clinica exige este campo (configuracao da clinica)' } : {}),
      ...(fk.replacedBy ? { unless: fk.replacedBy } : {}),
    })),
    description:
      'Chaves estrangeiras: um *_id > 0, ou um alias, ou o default do tenant (GET /v1/config). paciente e procedimento sao sempre obrigatorios ' +
      '(id ou alias); os listados em x-tenant-required sao obrigatorios sem default no tenant ou por configuracao da clinica: ' +
      'faltando, 400 VAL_INVALID_PARAM "Obrigatorio (sem default no tenant)." com lista[] (fonte, alias_aceito).',
  },
});

const ALIAS_NAMES: ExameAlias[] = FOREIGN_KEYS.flatMap((fk) => fk.aliases);

/** Spec § Alias resolution codes: the primary `error.code` of a consolidated 422. */
const SEVERITY: ErrorCode[] = ['PARAM_CONFLICT', 'RESOLUTION_AMBIGUOUS', 'RESOLUTION_NOT_FOUND'];

/** `error.message` is the single error's message, or `N campos precisam de atencao.` when several fields failed. */
export function consolidated(code: ErrorCode, lista: ListaItem[], extra: Record<string, unknown> = {}): ApiError {
  const message = lista.length === 1 ? lista[0].msg : `${lista.length} campos precisam de atencao.`;
  return new ApiError(code, message, { field: lista[0].field, lista, ...extra });
}

/** 400 VAL_FILE_TOO_LARGE for every inline file above 20 MB once decoded; nothing is decoded to know it. */
export function checkFileSizes(files: { path: string; base64: string }[]): void {
  const lista: ListaItem[] = [];
  for (const f of files) {
    const size = decodedBase64Size(f.base64);
    if (size > MAX_INLINE_FILE_BYTES) {
      lista.push({
        field: f.path,
        msg: `Arquivo acima do limite de 20 MB (${MAX_INLINE_FILE_BYTES} bytes) apos decodificar o base64.`,
        limite_bytes: MAX_INLINE_FILE_BYTES,
        tamanho_bytes: size,
      });
    }
  }
  if (lista.length) throw consolidated('VAL_FILE_TOO_LARGE', lista);
}

const presentAlias = (body: ExameCreateBody, fk: ForeignKey): ExameAlias | undefined =>
  fk.aliases.find((a) => body[a] !== undefined && body[a] !== null);

/** The exact-match lookup in backend-sim behind one alias. */
function lookup(backend: TenantBackend, alias: ExameAlias, value: string) {
  const get = (path: string, query: Record<string, string | undefined>) =>
    backend.call(resolucaoMatches, { method: 'GET', path, query });
  switch (alias) {
    case 'paciente_cpf':
      return get('/resolucao/pacientes', { cpf: value });
    case 'procedimento_codigo_tuss':
      return get('/resolucao/procedimentos', { codigo_tuss: value });
    case 'procedimento_abreviacao':
      return get('/resolucao/procedimentos', { abreviacao: value });
    case 'convenio_codigo_ans':
      return get('/resolucao/convenios', { codigo_ans: value });
    case 'convenio_nome':
      return get('/resolucao/convenios', { nome: value });
    case 'medico_exame_crm':
    case 'medico_laudo_crm': {
      const { numero, uf } = parseCrm(value);
      return get('/resolucao/medicos', {
        crm: numero,
        uf: uf ?? undefined,
        papel: alias === 'medico_exame_crm' ? 'EXAME' : 'LAUDO',
      });
    }
    case 'unidade_nome':
      return get('/resolucao/unidades', { nome: value });
  }
}

const positive = (v: number | null | undefined): number | undefined => (v && v > 0 ? v : undefined);

export async function createExameHandler(ctx: OperationContext<undefined, undefined, z.ZodType<ExameCreateBody>>) {
  const body = ctx.body;

  checkFileSizes([
    ...(body.arquivos?.exames ?? []).map((f, i) => ({ path: `arquivos.exames.${i}.base64`, base64: f.base64 })),
    ...(body.arquivos?.laudos ?? []).map((f, i) => ({ path: `arquivos.laudos.${i}.base64`, base64: f.base64 })),
  ]);

  const settings = (await ctx.backend.call(exameSettings, { method: 'GET', path: '/settings' })).data;

  // Precedence rules 1-4, and the 400 of a required key left without id, alias or default.
  const ids: Partial<Record<IdField, number>> = {};
  const defaultsAplicados: Partial<Record<IdField, number>> = {};
  const pending: { fk: ForeignKey; alias: ExameAlias; value: string; informado?: number }[] = [];
  const missing: ListaItem[] = [];
  for (const fk of FOREIGN_KEYS) {
    const informado = positive(body[fk.field]);
    const alias = presentAlias(body, fk);
    if (informado) ids[fk.field] = informado;
    if (alias) pending.push({ fk, alias, value: body[alias]!, informado });
    if (informado || alias) continue;
    // "Defaults never overwrite a present value"; a report group replaces the reporting doctor.
    const fallback =
      fk.defaultKey && !(fk.field === 'medico_laudo_id' && body.grupos_laudos_id)
        ? positive(settings.defaults[fk.defaultKey])
        : undefined;
    if (fallback) {
      ids[fk.field] = fallback;
      defaultsAplicados[fk.field] = fallback;
    } else if (fk.required(body, settings)) {
      missing.push({
        field: fk.field,
        msg: 'Obrigatorio (sem default no tenant).',
        fonte: fk.fonte,
        alias_aceito: fk.aliases[0] ?? null,
      });
    }
  }
  if (missing.length) throw consolidated('VAL_INVALID_PARAM', missing);

  const resolved = await Promise.all(pending.map((p) => lookup(ctx.backend, p.alias, p.value)));
  const problems: ListaItem[] = [];
  const resolvido: Partial<Record<IdField, number>> = {};
  pending.forEach(({ fk, alias, informado }, i) => {
    const { data, meta } = resolved[i];
    const total = Number(meta.total ?? data.length);
    const teaching = { fonte: fk.fonte, alias_aceito: alias };
    if (informado) {
      // Rule 1: the id wins; a disagreeing alias is a conflict, one that does not resolve is ignored.
      if (total === 1 && data[0].id !== informado) {
        problems.push({
          field: alias,
          code: 'PARAM_CONFLICT',
          msg: `${alias} corresponde ao id ${data[0].id} (${fk.what}), diferente de ${fk.field} = ${informado}.`,
          id_informado: informado,
          id_resolvido: data[0].id,
          ...teaching,
        });
      }
      return;
    }
    if (total === 0) {
      problems.push({
        field: alias,
        code: 'RESOLUTION_NOT_FOUND',
        msg: `Nenhum registro (${fk.what}) corresponde exatamente a ${alias}.`,
        ...teaching,
      });
    } else if (total > 1) {
      problems.push({
        field: alias,
        code: 'RESOLUTION_AMBIGUOUS',
        msg: `${alias} corresponde a ${total} registros (${fk.what}); informe ${fk.field}.`,
        candidatos: data.slice(0, 10),
        ...teaching,
      });
    } else {
      ids[fk.field] = data[0].id;
      resolvido[fk.field] = data[0].id;
    }
  });
  if (problems.length) {
    const code = SEVERITY.find((c) => problems.some((p) => p.code === c))!;
    const ambiguous = problems.find((p) => p.candidatos);
    throw consolidated(code, problems, ambiguous ? { candidatos: ambiguous.candidatos } : {});
  }

  const forward: Record<string, unknown> = { ...body };
  for (const name of [...ALIAS_NAMES, ...FOREIGN_KEYS.map((fk) => fk.field)]) delete forward[name];
  for (const name of ['grupos_laudos_id', 'cid_id', 'complementos_id', 'plano_id'] as const) {
    if (!positive(body[name])) delete forward[name];
  }
  if (forward.data_exame === null) delete forward.data_exame;
  if (forward.arquivos === null) delete forward.arquivos;
  // Parsed with backend-sim's own contract rather than cast: a body the resolution got wrong is the gateway's bug
  // (500, logged), never a request backend-sim has to guess about.
  const resolvedBody = exameCreateResolved.parse({ ...forward, ...ids });
  const result = await ctx.backend.call(exameCreated, { method: 'POST', path: '/exames', body: resolvedBody });

  if (Object.keys(resolvido).length) addMeta(ctx.reply, { resolvido });
  if (Object.keys(defaultsAplicados).length) addMeta(ctx.reply, { defaults_aplicados: defaultsAplicados });
  return result.data;
}
