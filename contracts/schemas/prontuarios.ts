import { z } from 'zod';
import { closedObjectBlocking } from './agenda.ts';
import { fileNameJson } from './exames.ts';
import { idParam, paginationQuery, queryObject } from './params.ts';
import { base64Body, documented, trimmedLength } from './wire.ts';

/** Patient records (spec 02 § Patient records, § Patient record (prontuario)). */

/** Spec § Limits: record attachments are PDF, PNG or JPG (the extension of `nome` defines the type). */
export const ANEXO_EXTENSOES = ['PDF', 'PNG', 'JPG'] as const;
/** Attachments per request (a decision: the spec gives no count; the body limit allows two of 20 MB). */
export const MAX_ANEXOS = 10;
/** A message counts only when longer than 3 characters (after trimming). */
export const MENSAGEM_MIN_CHARS = 4;

export const prontuarioPacienteParams = z.strictObject({ id: idParam });
export const anexoUrlParams = z.strictObject({ id: idParam, anexoId: idParam });
export const prontuariosListQuery = queryObject({ ...paginationQuery });

const DATA_URI = /^data:[^,]*;base64,/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The base64 payload without its optional data-URI prefix. */
export function base64Payload(value: string): string {
  const m = DATA_URI.exec(value);
  return m ? value.slice(m[0].length) : value;
}

/** Bytes the base64 text decodes to (padding aware), without decoding it. */
export function decodedSize(value: string): number {
  const payload = base64Payload(value);
  const padding = payload.endsWith('==') ? 2 : payload.endsWith('=') ? 1 : 0;
  return Math.floor(((payload.length - padding) * 3) / 4);
}

export const extensaoDe = (nome: string): string => /\.([A-Za-z0-9]+)$/.exec(nome)?.[1]?.toUpperCase() ?? '';

export const anexoInput = closedObjectBlocking(
  {
    nome: documented(
      z
        .string('Obrigatorio: nome do arquivo com extensao (PDF, PNG ou JPG).')
        .trim()
        .min(1, 'Obrigatorio: nome do arquivo com extensao (PDF, PNG ou JPG).')
        .max(255, 'Deve ter no maximo 255 caracteres.')
        .refine(
          (nome) => (ANEXO_EXTENSOES as readonly string[]).includes(extensaoDe(nome)),
          `Extensao nao permitida (aceitas: ${ANEXO_EXTENSOES.join(', ')}).`,
        ),
      { replace: fileNameJson(ANEXO_EXTENSOES) },
    ),
    base64: documented(
      z.string('Obrigatorio: conteudo do arquivo em base64 (prefixo data-URI aceito).').refine((v) => {
        const payload = base64Payload(v);
        return payload.length % 4 !== 1 && BASE64.test(payload);
      }, 'Conteudo base64 invalido (alfabeto padrao, sem quebras de linha; prefixo data:...;base64, aceito).'),
      {
        replace: {
          type: 'string',
          contentEncoding: 'base64',
          pattern: `^(?:data:[^,]*;base64,)?(?:${base64Body(true)})$`,
          description:
            'Conteudo em base64 (alfabeto padrao, sem quebras de linha), ate 20 MB decodificado (senao 400 VAL_FILE_TOO_LARGE); prefixo data:...;base64, aceito.',
        },
      },
    ),
    /** Default: the file name. */
    descricao: z
      .preprocess(
        (v) => (v === '' ? null : v),
        documented(z.string().trim().max(255, 'Deve ter no maximo 255 caracteres.'), {
          replace: trimmedLength(0, 255),
        }).nullable(),
      )
      .optional(),
  },
  {},
  'Cada anexo',
);

const RECORD_BLOCKED = 'Campo bloqueado neste endpoint.';

/**
 * Spec § POST /v1/pacientes/{id}/prontuarios: a message and/or attachments, `exibir` 0|1.
 * Blocked fields are 400 naming the field. The 20 MB per decoded file is checked by the route
 * (it answers VAL_FILE_TOO_LARGE, not a format error).
 */
export const prontuarioCreateBody = documented(
  closedObjectBlocking(
    {
      mensagem: z
        .string('Deve ser texto (HTML).')
        .max(200_000, 'Deve ter no maximo 200000 caracteres.')
        .nullable()
        .optional(),
      anexos: z
        .array(anexoInput, 'Deve ser uma lista de anexos.')
        .max(MAX_ANEXOS, `No maximo ${MAX_ANEXOS} anexos por requisicao.`)
        .nullable()
        .optional(),
      /** Default 1; `null` means "no value" (default), as in every optional field. */
      exibir: documented(
        z.preprocess(
          (v) => (v === null ? undefined : v),
          z.union([z.literal(0), z.literal(1)], 'Valores aceitos: 0 ou 1.').optional(),
        ),
        {
          replace: {
            enum: [0, 1, null],
            default: 1,
            description: '1 = visivel ao paciente (default), 0 = oculto; null = default.',
          },
        },
      ).optional(),
    },
    {
      rascunho: 'Campo bloqueado: prontuarios sao sempre gravados finalizados (rascunho = 0).',
      _via_api_chave_id: 'Campo bloqueado: a chave e registrada pelo gateway.',
      paciente_id: 'Campo bloqueado: o paciente e o {id} do caminho.',
      id: RECORD_BLOCKED,
      unidade_id: RECORD_BLOCKED,
      tipo: RECORD_BLOCKED,
    },
  ).superRefine((b, ctx) => {
    const temMensagem = (b.mensagem ?? '').trim().length >= MENSAGEM_MIN_CHARS;
    if (!temMensagem && !(b.anexos && b.anexos.length > 0)) {
      ctx.addIssue({
        code: 'custom',
        path: ['mensagem'],
        message: 'Informe mensagem (mais de 3 caracteres) ou ao menos um anexo.',
      });
    }
  }),
  {
    json: {
      description:
        'Uma mensagem (mais de 3 caracteres depois de remover os espacos das pontas) e/ou ao menos um anexo.',
      anyOf: [
        {
          required: ['mensagem'],
          properties: { mensagem: { type: 'string', pattern: trimmedLength(MENSAGEM_MIN_CHARS, null).pattern } },
        },
        // `items: {}`: the property's own schema types the items; an array schema without `items` is a lint error.
        { required: ['anexos'], properties: { anexos: { type: 'array', minItems: 1, items: {} } } },
      ],
    },
  },
);

// ---------------------------------------------------------------- responses

export const anexoMeta = z.object({
  id: z.number().int(),
  descricao: z.string(),
  extensao: z.string(),
  tamanho: z.number().int(),
});

export const prontuarioCriado = z.object({
  prontuario_id: z.number().int(),
  anexos: z.array(anexoMeta),
});

export const prontuario = z.object({
  id: z.number().int(),
  data_emissao: z.string(),
  mensagem: z.string(),
  exibir: z.boolean(),
  /** Always false: drafts are not records yet and are never listed. */
  rascunho: z.literal(false),
  medico: z.object({ id: z.number().int(), nome: z.string() }).nullable(),
});

/** Where backend-sim says the file is, or null when it has none (the route answers 503). Never shown to a client. */
export const anexoLocation = z.object({ bucket: z.string().min(1), object_key: z.string().min(1) }).nullable();
