import { exameIdParams } from '../../../contracts/schemas/exames.ts';
import {
  laudoDetail,
  laudoIdParams,
  laudoIngestBody,
  laudoIngested,
  laudoItem,
  laudosListQuery,
} from '../../../contracts/schemas/laudos.ts';
import { fileBodyLimit } from '../operation.ts';
import { checkFileSizes } from './exames-create.ts';
import { family, listIgnoringForBoundKeys, PRESIGNED_FILE, presignedFile } from './family.ts';

const laudos = family({ tags: ['Laudos'], read: 'laudos:read', write: 'laudos:write' });

/**
 * Reports (spec 02 § Reports). Reads and the file redirect use the AMPLIADO doctor filter (the
 * report's doctor, or an exam visible under SIMPLES); ingest has no doctor filter.
 */
export const laudosOperations = [
  laudos.list({
    url: '/laudos',
    summary: 'Lista laudos',
    description:
      'Filtro AMPLIADO para chaves vinculadas a um medico; medico_laudo_id e ignorado. Laudos avulsos aparecem com exame null.',
    query: laudosListQuery,
    item: laudoItem,
    handler: listIgnoringForBoundKeys('/laudos', laudoItem, 'medico_laudo_id'),
    example: { query: { assinado: '1', limit: '20' } },
  }),
  laudos.detail({ url: '/laudos/:id', summary: 'Detalhe de um laudo', params: laudoIdParams, data: laudoDetail }),
  laudos.redirect({
    url: '/laudos/:id/arquivo',
    summary: 'Redireciona (302) para o PDF do laudo',
    description: PRESIGNED_FILE,
    params: laudoIdParams,
    handler: (ctx) =>
      presignedFile(ctx, { path: `/laudos/${ctx.params.id}/arquivo` }, { id: ctx.params.id, tipo: 'laudo' }),
    errors: ['RES_NOT_FOUND', 'RES_ARQUIVO_NAO_DISPONIVEL', 'RES_ARQUIVO_S3_FALHA'],
  }),
  laudos.create({
    url: '/exames/:id/laudo',
    summary: 'Recebe o laudo assinado (PDF) de um exame',
    description:
      'O laudo e sempre gravado como assinado; o servico nao assina nem gera PDFs. Um exame aceita um unico laudo.',
    bodyLimit: fileBodyLimit(1),
    params: exameIdParams,
    body: laudoIngestBody,
    data: laudoIngested,
    readUrl: '/laudos/:id',
    handler: async ({ params, body, backend }) => {
      checkFileSizes([{ path: 'arquivo.base64', base64: body.arquivo.base64 }]);
      const result = await backend.call(laudoIngested, { method: 'POST', path: `/exames/${params.id}/laudo`, body });
      return result.data;
    },
    errors: ['RES_NOT_FOUND', 'VAL_FILE_TOO_LARGE', 'REPORT_ALREADY_EXISTS', 'INVALID_REFERENCE', 'VALIDATION_ERROR'],
    example: { body: { medico_laudo_id: 1, arquivo: { nome: 'laudo.pdf', base64: 'JVBERi0xLjQK' }, titulo: 'Laudo' } },
  }),
];
