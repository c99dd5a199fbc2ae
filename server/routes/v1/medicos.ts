import {
  medicoCreateBody,
  medicoDetail,
  medicoIdParams,
  medicoListItem,
  medicoPatchBody,
  medicosListQuery,
} from '../../../contracts/schemas/medicos.ts';
import { catalog, catalogs } from './catalogos.ts';
import { family } from './family.ts';

const medicos = family({ tags: ['Medicos'], read: 'catalogos:read', write: 'medicos:write' });
/** Spec: the doctor endpoints' own codes are "not shown"; these are the ones docs/decisions.md settles on. */
const WRITE_ERRORS = ['USUARIO_ALREADY_EXISTS', 'INVALID_REFERENCE', 'VALIDATION_ERROR', 'BUSINESS_RULE'] as const;

/** List and detail are catalogs (`catalogos:read`, cacheable); create and update need `medicos:write`. */
export const medicosOperations = [
  catalog('/medicos', 'Medicos (lista)', medicosListQuery, medicoListItem, true, { papel: 'LAUDO' }),
  catalogs.detail({ url: '/medicos/:id', summary: 'Detalhe de um medico', params: medicoIdParams, data: medicoDetail }),
  medicos.create({
    url: '/medicos',
    summary: 'Cria um medico (usuario do sistema)',
    body: medicoCreateBody,
    data: medicoDetail,
    readUrl: '/medicos/:id',
    errors: [...WRITE_ERRORS],
    example: { body: { nome: 'Dra. Ana Souza', usuario: 'ana.souza', senha: 'troque-me', papeis: ['LAUDO'] } },
  }),
  medicos.update({
    url: '/medicos/:id',
    summary: 'Atualiza parte de um medico',
    params: medicoIdParams,
    body: medicoPatchBody,
    data: medicoDetail,
    errors: WRITE_ERRORS,
    example: { body: { telefone: '1133334444' } },
  }),
];
