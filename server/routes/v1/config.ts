import { z } from 'zod';
import { ALL_SCOPES } from '../../../contracts/scopes.ts';
import { API_RELEASE } from '../../config.ts';
import { versionMeta } from '../../../contracts/schemas/envelope.ts';
import { addMeta } from '../../http/envelope.ts';
import { defineOperation } from '../operation.ts';
import { exameSettings } from '../../../contracts/backend/settings.ts';

const nullableId = z.number().int().positive().nullable();

export const capabilities = z.object({
  version: z.string(),
  api_version: z.literal('v1'),
  escopos: z.array(z.string()),
  enums: z.object({
    sexo: z.array(z.string()),
    arquivo_tipo: z.array(z.string()),
    status_laudo: z.array(z.string()),
    prioridade: z.array(z.number().int()),
    prioridade_rotulos: z.record(z.string(), z.string()),
    requer_laudo: z.array(z.number().int()),
  }),
  defaults: z.object({
    unidade_id: nullableId,
    medico_exame_id: nullableId,
    medico_laudo_id: nullableId,
    convenio_id: nullableId,
  }),
});

/** `0`, absent or null all mean "no default": the client must send the id or an alias. */
const asDefault = (value: number | null | undefined): number | null => (value && value > 0 ? value : null);

export const configOperations = [
  defineOperation({
    method: 'GET',
    url: '/config',
    summary: 'Capacidades: escopos, enums e defaults do tenant para POST /v1/exames',
    tags: ['Saude'],
    public: true,
    cache: 'private-5min',
    response: { status: 200, data: capabilities, meta: [versionMeta] },
    handler: async ({ backend, reply }) => {
      const settings = (await backend.call(exameSettings, { method: 'GET', path: '/settings' })).data;
      addMeta(reply, { version: API_RELEASE });
      return {
        version: API_RELEASE,
        api_version: 'v1' as const,
        escopos: [...ALL_SCOPES],
        enums: {
          sexo: ['MAS', 'FEM', 'OUT'],
          arquivo_tipo: ['exame', 'laudo'],
          status_laudo: ['PENDENTE', 'EMITIDO', 'ASSINADO'],
          prioridade: [1, 2, 3],
          prioridade_rotulos: { '1': 'Normal', '2': 'Alta', '3': 'Urgente' },
          requer_laudo: [0, 1],
        },
        defaults: {
          unidade_id: asDefault(settings.defaults.unidade_id),
          medico_exame_id: asDefault(settings.defaults.medico_exame_id),
          medico_laudo_id: asDefault(settings.defaults.medico_laudo_id),
          convenio_id: asDefault(settings.defaults.convenio_id),
        },
      };
    },
    errors: [],
  }),
];
