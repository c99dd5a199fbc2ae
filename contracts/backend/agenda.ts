import type { z } from 'zod';
import {
  agendaConfigsQuery,
  agendamentoCreateBody,
  agendamentosListQuery,
  cancelarBody,
  reagendarBody,
  slotsQuery,
} from '../schemas/agenda.ts';
import { resettable } from '../schemas/fields.ts';
import { backendPage, forwarded, forwardedBirthDate, queryFlag } from './forwarded.ts';

/** gateway → backend-sim `/tenants/{slug}/agenda/...`: the public agenda schemas as backend-sim reads them (forwarded.ts). */

export const configListForwarded = forwarded(agendaConfigsQuery, { ativo: queryFlag.optional(), ...backendPage });
export type ConfigListFilter = z.output<typeof configListForwarded>;

export const apptListForwarded = forwarded(agendamentosListQuery, backendPage);
export type ApptListFilter = z.output<typeof apptListForwarded>;

export const slotsForwarded = forwarded(slotsQuery);
export type SlotsFilter = z.output<typeof slotsForwarded>;

/** Without `paciente_id`, the name and mobile the snapshot needs are backend-sim's 422 BUSINESS_RULE. */
export const apptCreateForwarded = forwarded(agendamentoCreateBody, {
  paciente_nascimento: resettable(forwardedBirthDate),
});
export type ApptCreate = z.output<typeof apptCreateForwarded>;

export const cancelForwarded = forwarded(cancelarBody);

export const reagendarForwarded = forwarded(reagendarBody);
export type Reagendar = z.output<typeof reagendarForwarded>;
