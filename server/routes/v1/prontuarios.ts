import {
  anexoLocation,
  anexoMeta,
  anexoUrlParams,
  decodedSize,
  prontuario,
  prontuarioCreateBody,
  prontuarioCriado,
  prontuarioPacienteParams,
  prontuariosListQuery,
} from '../../../contracts/schemas/prontuarios.ts';
import { backendUnavailable } from '../../backend/client.ts';
import { ApiError } from '../../errors.ts';
import { PRESIGNED_URL_SECONDS } from '../../storage/presigner.ts';
import { defineOperation, fileBodyLimit, MAX_FILE_BYTES } from '../operation.ts';
import { family } from './family.ts';

const prontuarios = family({ tags: ['Prontuarios'], read: 'prontuarios:read', write: 'prontuarios:write' });

/**
 * Body limit of a record create: two attachments of the maximum 20 MB (base64) plus the JSON around
 * them (~56 MB, under the gateway's 64 MiB ceiling). More attachments fit when they are smaller.
 */
export const PRONTUARIO_BODY_FILES = 2;

/** A tiny valid PDF, for the OpenAPI example and the generated security suite. */
const EXAMPLE_PDF = Buffer.from('%PDF-1.4\n%%EOF\n').toString('base64');

/** Patient records: no doctor filter (spec 01 § Doctor auto-filter); attachments belong to the patient. */
export const prontuariosOperations = [
  defineOperation({
    method: 'POST',
    url: '/pacientes/:id/prontuarios',
    summary: 'Cria um registro de prontuario (mensagem e/ou anexos)',
    description:
      `Anexos PDF, PNG ou JPG (a extensao do nome define o tipo), ate 20 MB cada depois de decodificado, prefixo data-URI aceito; ` +
      `ate ${PRONTUARIO_BODY_FILES} anexos de 20 MB por requisicao (corpo de no maximo ${fileBodyLimit(PRONTUARIO_BODY_FILES)} bytes). ` +
      'Gravado sempre finalizado (rascunho = 0).',
    tags: prontuarios.tags,
    scope: 'prontuarios:write',
    idempotent: true,
    bodyLimit: fileBodyLimit(PRONTUARIO_BODY_FILES),
    params: prontuarioPacienteParams,
    body: prontuarioCreateBody,
    response: {
      status: 201,
      data: prontuarioCriado,
      read: { url: '/pacientes/:id/prontuarios', parameters: { id: '$request.path.id' } },
    },
    handler: async (ctx) => {
      (ctx.body.anexos ?? []).forEach((anexo, i) => {
        if (decodedSize(anexo.base64) > MAX_FILE_BYTES) {
          throw new ApiError('VAL_FILE_TOO_LARGE', 'Anexo acima de 20 MB.', {
            field: `anexos.${i}.base64`,
            limite_bytes: MAX_FILE_BYTES,
          });
        }
      });
      const { data } = await ctx.backend.call(prontuarioCriado, {
        method: 'POST',
        path: `/pacientes/${ctx.params.id}/prontuarios`,
        body: ctx.body,
      });
      // Spec: `Location: /v1/pacientes/{id}/prontuarios` (the patient's records, not the new one).
      ctx.reply.header('location', `/v1/pacientes/${ctx.params.id}/prontuarios`);
      return data;
    },
    errors: ['RES_NOT_FOUND', 'VAL_FILE_TOO_LARGE', 'VALIDATION_ERROR'],
    example: {
      body: {
        mensagem: '<p>Paciente retorna em 30 dias com exames.</p>',
        anexos: [{ nome: 'pedido-medico.pdf', base64: EXAMPLE_PDF, descricao: 'Pedido medico' }],
        exibir: 1,
      },
    },
  }),
  prontuarios.list({
    url: '/pacientes/:id/prontuarios',
    summary: 'Registros de prontuario de um paciente',
    description: 'Todos os registros (exibir 0 e 1), mais recentes primeiro; nunca o conteudo dos anexos.',
    params: prontuarioPacienteParams,
    query: prontuariosListQuery,
    item: prontuario,
    errors: ['RES_NOT_FOUND'],
  }),
  prontuarios.list({
    url: '/pacientes/:id/prontuarios/anexos',
    summary: 'Metadados dos anexos de um paciente',
    description:
      'id, descricao, extensao e tamanho; nunca uma URL ou caminho de armazenamento. O arquivo: GET .../anexos/{anexoId}/url.',
    params: prontuarioPacienteParams,
    query: prontuariosListQuery,
    item: anexoMeta,
    errors: ['RES_NOT_FOUND'],
  }),
  prontuarios.redirect({
    url: '/pacientes/:id/prontuarios/anexos/:anexoId/url',
    summary: 'Redireciona para o arquivo de um anexo (URL pre-assinada, 300 s)',
    description:
      'Nao guarde a URL nem assine o pedido redirecionado com HMAC. Anexo de outro paciente e anexo inexistente respondem o mesmo 404.',
    params: anexoUrlParams,
    handler: async (ctx) => {
      const { id, anexoId } = ctx.params;
      const { data } = await ctx.backend.call(anexoLocation, {
        method: 'GET',
        path: `/pacientes/${id}/prontuarios/anexos/${anexoId}/url`,
      });
      if (!data)
        throw backendUnavailable('O sistema da clinica nao forneceu a URL do anexo. Tente novamente mais tarde.');
      const url = await ctx.presigner.presignGet(data);
      // Metadata only: never the storage key or the URL.
      ctx.request.auditDetail = { id: anexoId, tipo: 'anexo', expira_em_segundos: PRESIGNED_URL_SECONDS };
      return url;
    },
    errors: ['RES_NOT_FOUND', 'RES_ARQUIVO_S3_FALHA'],
  }),
];
