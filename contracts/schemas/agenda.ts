import { z } from 'zod';
import { birthDate, cpfField, emailField, positiveInt, resettable } from './fields.ts';
import { dateString, flagQuery, orderedDates, paginationQuery, queryObject, searchText } from './params.ts';
import { DATE_JSON, documented, integerParam, trimmedLength } from './wire.ts';

/**
 * Agenda (spec 02 § Agenda, § Appointment status, § Appointment, § Free-slot group, § Agenda config).
 * Response schemas name only what the spec lets out: the patient snapshots of an appointment
 * (`paciente_cpf`, `paciente_celular`, `paciente_nascimento`, `paciente_sexo`, `paciente_email`),
 * `cancelado_motivo` (outside the cancel answer), `cancelado_por`, `observacoes` and `exame_id` are
 * stripped here whatever the backend sends.
 */

export const AGENDAMENTO_STATUS = [
  'agendado',
  'aguardando_confirmacao',
  'confirmado',
  'checkin',
  'em_atendimento',
  'finalizado',
  'cancelado',
  'nao_compareceu',
] as const;

/** Never returned by any endpoint (spec 01 § Data protection rules). */
export const AGENDAMENTO_SNAPSHOT_FIELDS = [
  'paciente_cpf',
  'paciente_celular',
  'paciente_nascimento',
  'paciente_sexo',
  'paciente_email',
] as const;

const POSITIVE_INT = /^[1-9]\d{0,15}$/;

/** A query/path integer > 0, digits only; `required` gives the message shown when it is absent. */
const idText = (required = 'Deve ser um inteiro positivo.') =>
  documented(
    z
      .string(required)
      .regex(POSITIVE_INT, 'Deve ser um inteiro positivo.')
      .transform(Number)
      .pipe(z.number().int().positive().max(Number.MAX_SAFE_INTEGER)),
    { replace: integerParam(1) },
  );

const requiredDate = (what: string) =>
  documented(z.string(`Obrigatorio: ${what} no formato YYYY-MM-DD.`).pipe(dateString), { replace: DATE_JSON });

/** `HH:MM`, 00:00-23:59. */
export const hhmmField = (what = 'hora') =>
  z
    .string(`Obrigatorio: ${what} no formato HH:MM.`)
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'Hora no formato HH:MM (00:00 a 23:59).');

const requiredId = (what: string) =>
  z
    .number(`Obrigatorio: ${what} (inteiro > 0).`)
    .int('Deve ser um inteiro positivo.')
    .positive('Deve ser um inteiro positivo.')
    .max(Number.MAX_SAFE_INTEGER);

/**
 * A JSON object that refuses every field it does not name, like `closedObject`, with a specific
 * message for the fields the spec blocks (`force`, `ignorar_conflito`, ...). Every refused field is
 * its own issue at its own path, so `details.field` / `lista[]` name it in the same pass as the rest.
 */
export function closedObjectBlocking<T extends z.ZodRawShape>(
  shape: T,
  blocked: Record<string, string>,
  what = 'O corpo',
) {
  const refuse = documented(
    z.custom<never>(() => false, {
      error: (issue) => {
        const key = String(issue.path?.at(-1) ?? '');
        return Object.hasOwn(blocked, key) ? blocked[key] : 'Campo nao aceito neste endpoint.';
      },
    }),
    { refuses: true },
  );
  return documented(
    z
      .object(shape, {
        error: (issue) => (issue.code === 'invalid_type' ? `${what} deve ser um objeto JSON.` : undefined),
      })
      .catchall(refuse),
    { blockedKeys: Object.keys(blocked) },
  );
}

const NO_FORCE =
  'Campo bloqueado: a API nao agenda por cima de conflitos; escolha um horario livre em GET /v1/agenda/slots.';
const BLOCKED_CONFLICT_OVERRIDES = { force: NO_FORCE, ignorar_conflito: NO_FORCE };

// ---------------------------------------------------------------- query / path

export const agendamentoIdParams = z.strictObject({ id: idText() });

/** `paciente_id` is required (anti-dump): no listing of a whole clinic's appointments. */
export const agendamentosListQuery = orderedDates(
  queryObject({
    paciente_id: idText('Obrigatorio: paciente_id (inteiro > 0). A listagem de agendamentos e sempre de um paciente.'),
    data_inicio: dateString.optional(),
    data_fim: dateString.optional(),
    status: z.enum(AGENDAMENTO_STATUS, `Valores aceitos: ${AGENDAMENTO_STATUS.join(', ')}.`).optional(),
    /** Ignored for keys bound to a doctor (spec 01 § Doctor auto-filter): the backend applies the key's doctor. */
    medico_id: idText().optional(),
    unidade_id: idText().optional(),
    agenda_config_id: idText().optional(),
    ...paginationQuery,
  }),
  'data_fim',
  'data_inicio',
);

export const HORIZONTE_DIAS = { min: 1, max: 180, default: 60 } as const;

export const slotsQuery = queryObject({
  procedimento_id: idText('Obrigatorio: procedimento_id (inteiro > 0).'),
  unidade_id: idText().optional(),
  horizonte_dias: documented(
    z
      .string()
      .regex(/^[1-9]\d{0,3}$/, 'Deve ser um inteiro entre 1 e 180.')
      .transform(Number)
      .pipe(
        z
          .number()
          .int()
          .min(HORIZONTE_DIAS.min, 'Deve ser um inteiro entre 1 e 180.')
          .max(HORIZONTE_DIAS.max, 'Deve ser um inteiro entre 1 e 180.'),
      )
      .default(HORIZONTE_DIAS.default),
    { replace: integerParam(HORIZONTE_DIAS.min, HORIZONTE_DIAS.max, { default: HORIZONTE_DIAS.default }) },
  ),
});

export const agendaConfigsQuery = queryObject({
  /** Ignored for keys bound to a doctor. */
  medico_id: idText().optional(),
  sala_id: idText().optional(),
  unidade_id: idText().optional(),
  tipo_vinculo: z.enum(['medico', 'sala'], 'Valores aceitos: medico, sala.').optional(),
  ativo: flagQuery.optional(),
  nome: searchText(3).optional(),
  ...paginationQuery,
});

// ---------------------------------------------------------------- bodies

export const PACIENTE_SEXO_SNAPSHOT = ['M', 'F', 'O'] as const;

/**
 * Spec § POST /v1/agenda/agendamentos. The patient is `paciente_id`, or, without it, the snapshot
 * fields (`paciente_nome` and `paciente_celular` required). `paciente_id` wins when both are sent
 * (the snapshots are then not stored). `hora_fim` is derived by the backend, never sent.
 */
export const agendamentoCreateBody = documented(
  closedObjectBlocking(
    {
      agenda_config_id: requiredId('agenda_config_id'),
      procedimento_id: requiredId('procedimento_id'),
      convenio_id: z
        .number('Obrigatorio: convenio_id (inteiro; 0 = particular).')
        .int('Deve ser um inteiro >= 0 (0 = particular).')
        .min(0, 'Deve ser um inteiro >= 0 (0 = particular).')
        .max(Number.MAX_SAFE_INTEGER),
      data: requiredDate('data'),
      hora_inicio: hhmmField('hora_inicio'),
      paciente_id: positiveInt.nullable().optional(),
      paciente_nome: resettable(
        documented(
          z.string().trim().min(1, 'Deve ter de 1 a 200 caracteres.').max(200, 'Deve ter de 1 a 200 caracteres.'),
          { replace: trimmedLength(1, 200) },
        ),
      ),
      paciente_celular: resettable(
        documented(
          z.string().trim().min(1, 'Deve ter de 1 a 20 caracteres.').max(20, 'Deve ter de 1 a 20 caracteres.'),
          { replace: trimmedLength(1, 20) },
        ),
      ),
      paciente_cpf: resettable(cpfField),
      paciente_nascimento: resettable(birthDate),
      paciente_sexo: resettable(
        z.enum(PACIENTE_SEXO_SNAPSHOT, `Valores aceitos: ${PACIENTE_SEXO_SNAPSHOT.join(', ')}.`),
      ),
      paciente_email: resettable(emailField),
      plano_id: positiveInt.nullable().optional(),
      encaixe: z.boolean('Deve ser booleano (true ou false).').nullable().optional(),
      observacoes: resettable(z.string().max(500, 'Deve ter no maximo 500 caracteres.')),
      unidade_id: positiveInt.nullable().optional(),
    },
    {
      ...BLOCKED_CONFLICT_OVERRIDES,
      hora_fim: 'hora_fim nao e enviado: e calculado pela duracao configurada do procedimento na agenda.',
    },
  ).superRefine((b, ctx) => {
    if (b.paciente_id) return;
    const missing = 'Obrigatorio sem paciente_id.';
    if (!b.paciente_nome) ctx.addIssue({ code: 'custom', path: ['paciente_nome'], message: missing });
    if (!b.paciente_celular) ctx.addIssue({ code: 'custom', path: ['paciente_celular'], message: missing });
  }),
  {
    json: {
      description:
        'O paciente e paciente_id, ou, sem ele, paciente_nome e paciente_celular (obrigatorios); com ambos vale paciente_id.',
      anyOf: [
        { required: ['paciente_id'], properties: { paciente_id: { type: 'integer' } } },
        {
          required: ['paciente_nome', 'paciente_celular'],
          properties: {
            paciente_nome: { type: 'string', minLength: 1 },
            paciente_celular: { type: 'string', minLength: 1 },
          },
        },
      ],
    },
  },
);

const motivoCancelamento = documented(
  z
    .string('Obrigatorio: motivo de 3 a 500 caracteres.')
    .trim()
    .min(3, 'Deve ter de 3 a 500 caracteres.')
    .max(500, 'Deve ter de 3 a 500 caracteres.'),
  { replace: trimmedLength(3, 500) },
);

export const cancelarBody = closedObjectBlocking(
  { motivo: motivoCancelamento },
  { force: 'Campo bloqueado: force nao e aceito no cancelamento.' },
);

export const reagendarBody = closedObjectBlocking(
  {
    nova_data: requiredDate('nova_data'),
    nova_hora_inicio: hhmmField('nova_hora_inicio'),
    /** Default: the appointment's current agenda. */
    agenda_config_id: positiveInt.nullable().optional(),
    motivo: resettable(
      documented(z.string().trim().max(500, 'Deve ter no maximo 500 caracteres.'), { replace: trimmedLength(0, 500) }),
    ),
  },
  BLOCKED_CONFLICT_OVERRIDES,
);

// ---------------------------------------------------------------- responses

const ref = z.object({ id: z.number().int(), nome: z.string() });
/** `id` is null for an appointment booked without `paciente_id` (its name is the one sent). */
const pacienteRef = z.object({ id: z.number().int().nullable(), nome: z.string() });
const status = z.enum(AGENDAMENTO_STATUS);

export const agendamento = z.object({
  id: z.number().int(),
  paciente: pacienteRef,
  /** null on an agenda linked to a room. */
  medico: ref.nullable(),
  sala: ref.nullable(),
  unidade: ref,
  procedimento: ref,
  agenda_config_id: z.number().int(),
  data_agendamento: z.string(),
  hora_inicio: z.string(),
  hora_fim: z.string(),
  status,
  encaixe: z.boolean(),
  cancelado_em: z.string().nullable(),
  criado_em: z.string(),
});

/** Oldest first; the user / key id is never exposed. */
export const historicoItem = z.object({
  status_anterior: status.nullable(),
  status_novo: status,
  data_hora: z.string(),
  observacao: z.string().nullable(),
});

export const agendamentoDetail = agendamento.extend({ historico: z.array(historicoItem) });

/** The only answer that carries `cancelado_motivo`. */
export const agendamentoCancelado = z.object({
  id: z.number().int(),
  status: z.literal('cancelado'),
  cancelado_em: z.string(),
  cancelado_motivo: z.string(),
  data_agendamento: z.string(),
  hora_inicio: z.string(),
  paciente: pacienteRef,
});

export const agendamentoReagendado = agendamentoDetail.extend({
  reagendado_em: z.string(),
  reagendado_motivo: z.string().nullable(),
});

export const slotGroup = z.object({
  medico_id: z.number().int(),
  sala_id: z.number().int(),
  is_medico: z.boolean(),
  label: z.string(),
  unidade_id: z.number().int(),
  proximo_slot: z
    .object({ data: z.string(), hora_inicio: z.string(), hora_fim: z.string(), agenda_config_id: z.number().int() })
    .nullable(),
});

export const agendaConfig = z.object({
  id: z.number().int(),
  nome: z.string(),
  tipo_vinculo: z.enum(['medico', 'sala']),
  medico: ref.nullable(),
  sala: ref.nullable(),
  unidade: ref,
  ativo: z.boolean(),
  data_inicio: z.string(),
  data_fim: z.string().nullable(),
  criado_em: z.string().nullable(),
});
