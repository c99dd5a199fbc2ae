import type { z } from 'zod';
import {
  agendaConfig,
  agendamento,
  agendamentoCancelado,
  agendamentoCreateBody,
  agendamentoDetail,
  agendamentoReagendado,
  cancelarBody,
  historicoItem,
  reagendarBody,
  slotGroup,
} from '../../contracts/schemas/agenda.ts';
import {
  cidItem,
  complementoItem,
  convenioItem,
  grupoLaudoItem,
  procedimentoItem,
  unidadeItem,
} from '../../contracts/schemas/catalogos.ts';
import {
  catalogMeta,
  exameCreateMeta,
  meta,
  paginationMeta,
  totalMeta,
  versionMeta,
  writeMeta,
} from '../../contracts/schemas/envelope.ts';
import {
  arquivoExameInput,
  arquivoLaudoInput,
  arquivosInput,
  exameCreateBody,
  exameCreated,
  exameDeleteBody,
  exameDeleteResult,
  exameDetail,
  exameListItem,
} from '../../contracts/schemas/exames.ts';
import { laudoDetail, laudoIngestBody, laudoIngested, laudoItem } from '../../contracts/schemas/laudos.ts';
import {
  conselhoInput,
  enderecoInput as enderecoMedicoInput,
  medicoCreateBody,
  medicoDetail,
  medicoListItem,
  medicoPatchBody,
} from '../../contracts/schemas/medicos.ts';
import {
  convenioInput,
  enderecoInput as enderecoPacienteInput,
  pacienteCreateBody,
  pacienteDetailRead,
  pacienteDetailWrite,
  pacienteListItem,
  pacientePatchBody,
  unificarBody,
  unificarResult,
} from '../../contracts/schemas/pacientes.ts';
import {
  anexoInput,
  anexoMeta,
  prontuario,
  prontuarioCreateBody,
  prontuarioCriado,
} from '../../contracts/schemas/prontuarios.ts';
import { capabilities } from '../routes/v1/config.ts';
import { pingData } from '../routes/v1/ping.ts';

/**
 * The named schemas of the OpenAPI document (`components.schemas`). Anything named here is a `$ref` wherever
 * it appears; request and response shapes with the same fields keep separate names (what is sent is not what
 * is answered). Names follow the spec's domain words.
 */

/** What clients send: request bodies and the objects inside them (converted as input). */
export const REQUEST_SCHEMAS: ReadonlyArray<[string, z.ZodType]> = [
  ['PacienteCreate', pacienteCreateBody],
  ['PacientePatch', pacientePatchBody],
  ['PacientesUnificar', unificarBody],
  ['EnderecoPacienteInput', enderecoPacienteInput],
  ['ConvenioPacienteInput', convenioInput],
  ['ExameCreate', exameCreateBody],
  ['ExameDelete', exameDeleteBody],
  ['ArquivosInput', arquivosInput],
  ['ArquivoExameInput', arquivoExameInput],
  ['ArquivoLaudoInput', arquivoLaudoInput],
  ['LaudoIngest', laudoIngestBody],
  ['AgendamentoCreate', agendamentoCreateBody],
  ['AgendamentoCancelar', cancelarBody],
  ['AgendamentoReagendar', reagendarBody],
  ['ProntuarioCreate', prontuarioCreateBody],
  ['AnexoInput', anexoInput],
  ['MedicoCreate', medicoCreateBody],
  ['MedicoPatch', medicoPatchBody],
  ['ConselhoInput', conselhoInput],
  ['EnderecoMedicoInput', enderecoMedicoInput],
];

/** What the gateway answers in `data` (converted as output: exactly the fields that can leave it). */
export const RESOURCE_SCHEMAS: ReadonlyArray<[string, z.ZodType]> = [
  ['Ping', pingData],
  ['Capacidades', capabilities],
  ['PacienteItem', pacienteListItem],
  ['PacienteDetalhe', pacienteDetailRead],
  ['PacienteDetalheEscrita', pacienteDetailWrite],
  ['Unificacao', unificarResult],
  ['ExameItem', exameListItem],
  ['ExameDetalhe', exameDetail],
  ['ExameCriado', exameCreated],
  ['ExameExclusao', exameDeleteResult],
  ['LaudoItem', laudoItem],
  ['LaudoDetalhe', laudoDetail],
  ['LaudoRecebido', laudoIngested],
  ['Agendamento', agendamento],
  ['AgendamentoDetalhe', agendamentoDetail],
  ['HistoricoAgendamento', historicoItem],
  ['AgendamentoCancelado', agendamentoCancelado],
  ['AgendamentoReagendado', agendamentoReagendado],
  ['GrupoSlots', slotGroup],
  ['AgendaConfig', agendaConfig],
  ['Prontuario', prontuario],
  ['ProntuarioCriado', prontuarioCriado],
  ['AnexoMeta', anexoMeta],
  ['Procedimento', procedimentoItem],
  ['Convenio', convenioItem],
  ['Cid', cidItem],
  ['Unidade', unidadeItem],
  ['Complemento', complementoItem],
  ['GrupoLaudo', grupoLaudoItem],
  ['MedicoItem', medicoListItem],
  ['MedicoDetalhe', medicoDetail],
];

/** The envelope's `meta` parts (open objects: converted as input, no `additionalProperties`). */
export const META_SCHEMAS: ReadonlyArray<[string, z.ZodType]> = [
  ['Meta', meta],
  ['PaginationMeta', paginationMeta],
  ['WriteMeta', writeMeta],
  ['TotalMeta', totalMeta],
  ['VersionMeta', versionMeta],
  ['CatalogMeta', catalogMeta],
  ['ExameCreateMeta', exameCreateMeta],
];
