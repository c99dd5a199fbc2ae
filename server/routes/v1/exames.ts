import {
  exameArquivoQuery,
  exameCreateBody,
  exameCreated,
  exameDeleteBody,
  exameDeleteResult,
  exameDetail,
  exameIdParams,
  exameListItem,
  exameListQuery,
} from '../../../contracts/schemas/exames.ts';
import { exameCreateMeta } from '../../../contracts/schemas/envelope.ts';
import { fileBodyLimit } from '../operation.ts';
import { createExameHandler } from './exames-create.ts';
import { family, listIgnoringForBoundKeys, PRESIGNED_FILE, presignedFile } from './family.ts';

const exames = family({ tags: ['Exames'], read: 'exames:read', write: 'exames:write' });

/**
 * Exams (spec 02 § Exams). Reads and the file redirect use the SIMPLES doctor filter (backend-sim
 * applies it from the key's doctor; `medico_id` is dropped here for bound keys); create and delete
 * have no doctor filter (spec 01 § Doctor auto-filter).
 */
export const examesOperations = [
  exames.list({
    url: '/exames',
    summary: 'Lista exames',
    description:
      'Filtro SIMPLES: uma chave vinculada a um medico ve os exames em que ele e medico do exame, laudador ou solicitante; medico_id e ignorado.',
    query: exameListQuery,
    item: exameListItem,
    handler: listIgnoringForBoundKeys('/exames', exameListItem, 'medico_id'),
    example: { query: { status_laudo: 'ASSINADO', periodo_realizado_inicio: '2026-01-01', limit: '20' } },
  }),
  exames.detail({ url: '/exames/:id', summary: 'Detalhe de um exame', params: exameIdParams, data: exameDetail }),
  exames.redirect({
    url: '/exames/:id/arquivo',
    summary: 'Redireciona (302) para o arquivo do exame ou do laudo',
    description: PRESIGNED_FILE,
    params: exameIdParams,
    query: exameArquivoQuery,
    handler: (ctx) =>
      presignedFile(
        ctx,
        { path: `/exames/${ctx.params.id}/arquivo`, query: { tipo: ctx.query.tipo } },
        { id: ctx.params.id, tipo: ctx.query.tipo },
      ),
    errors: ['RES_NOT_FOUND', 'RES_ARQUIVO_NAO_DISPONIVEL', 'RES_ARQUIVO_S3_FALHA'],
    example: { query: { tipo: 'exame' } },
  }),
  exames.create({
    url: '/exames',
    summary: 'Cria um exame (aliases, defaults do tenant, arquivos em base64)',
    description:
      'Ids ou aliases (paciente_cpf, procedimento_codigo_tuss, procedimento_abreviacao, convenio_codigo_ans, convenio_nome, medico_exame_crm, medico_laudo_crm, unidade_nome); sem id nem alias valem os defaults do tenant (GET /v1/config).',
    // One exam file and one report PDF of the maximum size each.
    bodyLimit: fileBodyLimit(2),
    body: exameCreateBody,
    data: exameCreated,
    meta: [exameCreateMeta],
    readUrl: '/exames/:id',
    handler: createExameHandler,
    errors: [
      'VAL_FILE_TOO_LARGE',
      'PARAM_CONFLICT',
      'RESOLUTION_NOT_FOUND',
      'RESOLUTION_AMBIGUOUS',
      'VALIDATION_ERROR',
      'INVALID_REFERENCE',
      'REPORT_ALREADY_EXISTS',
    ],
    example: {
      body: {
        paciente_cpf: '52998224725',
        procedimento_codigo_tuss: '40901122',
        data_exame: '2026-11-02',
        prioridade: 1,
        arquivos: { exames: [{ nome: 'exame.pdf', base64: 'JVBERi0xLjQK' }] },
      },
    },
  }),
  exames.write({
    method: 'DELETE',
    url: '/exames/:id',
    summary: 'Exclui um exame (e seus laudos, em cascata)',
    description: 'Escopo dedicado exames:delete. Corpo JSON assinado obrigatorio com motivo (3 a 500 caracteres).',
    scope: 'exames:delete',
    params: exameIdParams,
    body: exameDeleteBody,
    data: exameDeleteResult,
    errors: ['NOT_FOUND', 'EXAME_LAUDO_CENTRAL', 'BACKEND_CENTRAL_SYNC'],
    example: { body: { motivo: 'Exame cadastrado em duplicidade.' } },
  }),
];
