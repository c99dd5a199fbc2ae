import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { bootstrapFirstStart, seedDefaultData, type DemoCredentials } from '../../appliance/bootstrap.ts';
import { ephemeralConfig } from '../../server/config.ts';
import type { Credentials } from './signed-client.ts';
import { startTestStack, type TestStack } from './stack.ts';

export interface FirstStartStack {
  stack: TestStack;
  dataDir: string;
  credentials: DemoCredentials;
  /** The demo clinic's all-scopes key, as the first start issues it. */
  demo: Credentials;
  stop(): Promise<void>;
}

/** What `npm start` does on an empty data dir: the real seed of demo, sandbox and clinica-b, then bootstrap. */
export async function startFirstStartStack(): Promise<FirstStartStack> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-first-start-'));
  const doctors = await seedDefaultData(ephemeralConfig(dataDir));
  const stack = await startTestStack({}, { dataDir });
  const { credentials } = await bootstrapFirstStart(stack, doctors, stack.gatewayUrl);
  return {
    stack,
    dataDir,
    credentials,
    demo: { apiKey: credentials.keys.demo.api_key, apiSecret: credentials.keys.demo.api_secret },
    stop: async () => {
      try {
        await stack.stop();
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}

/** Every page of a list, `data` and `meta` as answered (request id and timing aside). */
async function listAll(stack: TestStack, creds: Credentials, target: string): Promise<unknown[]> {
  const pages: unknown[] = [];
  for (let offset = 0; ; offset += 200) {
    const res = await stack.call(
      { path: `${target}${target.includes('?') ? '&' : '?'}limit=200&offset=${offset}` },
      creds,
    );
    expect(res.status, target).toBe(200);
    const { request_id: _id, duracao_ms: _ms, ...meta } = res.body.meta;
    pages.push({ data: res.body.data, meta });
    if (!res.body.meta.has_more) return pages;
  }
}

/** The lists an integrator sees: patients, exams, reports (every page) and the appointments of the given patients. */
export async function clinicLists(stack: TestStack, creds: Credentials, patientIds: number[]) {
  const agendamentos: Record<number, unknown> = {};
  for (const id of patientIds) {
    const res = await stack.call({ path: `/v1/agenda/agendamentos?paciente_id=${id}` }, creds);
    const { request_id: _id, duracao_ms: _ms, ...meta } = res.body.meta;
    agendamentos[id] =
      res.status === 200 ? { data: res.body.data, meta } : { status: res.status, code: res.body.error?.code };
  }
  return {
    pacientes: await listAll(stack, creds, '/v1/pacientes'),
    exames: await listAll(stack, creds, '/v1/exames'),
    laudos: await listAll(stack, creds, '/v1/laudos'),
    agendamentos,
  };
}

const PDF = Buffer.from('%PDF-1.7\n% laudo de teste\n%%EOF').toString('base64');
export const NEW_PATIENT = { nome: 'Paciente Criada Antes Do Reset', data_nascimento: '1988-04-12', sexo: 'FEM' };

/**
 * On the demo clinic: a patient, an exam of hers with its report (a file in storage) and an appointment of
 * patient 1, each under its own Idempotency-Key (4 keys). Returns the patient's id and key.
 */
export async function writeOnDemo(
  stack: TestStack,
  creds: Credentials,
): Promise<{ patientId: number; patientKey: string }> {
  const call = (req: Parameters<TestStack['call']>[0]) => stack.call(req, creds);
  const patientKey = randomUUID();
  const patient = await call({ method: 'POST', path: '/v1/pacientes', body: NEW_PATIENT, idempotencyKey: patientKey });
  expect(patient.status, JSON.stringify(patient.body.error)).toBe(201);
  const exame = await call({
    method: 'POST',
    path: '/v1/exames',
    body: { paciente_id: patient.body.data.id, procedimento_codigo_tuss: '40901122' },
    idempotencyKey: randomUUID(),
  });
  expect(exame.status, JSON.stringify(exame.body.error)).toBe(201);
  const laudo = await call({
    method: 'POST',
    path: `/v1/exames/${exame.body.data.id}/laudo`,
    body: { medico_laudo_id: 1, arquivo: { nome: 'laudo.pdf', base64: PDF } },
    idempotencyKey: randomUUID(),
  });
  expect(laudo.status, JSON.stringify(laudo.body.error)).toBe(201);
  const slots = await call({ path: '/v1/agenda/slots?procedimento_id=21' });
  const slot = slots.body.data.find((g: any) => g.proximo_slot).proximo_slot;
  const booking = await call({
    method: 'POST',
    path: '/v1/agenda/agendamentos',
    body: {
      agenda_config_id: slot.agenda_config_id,
      procedimento_id: 21,
      convenio_id: 0,
      data: slot.data,
      hora_inicio: slot.hora_inicio,
      paciente_id: 1,
    },
    idempotencyKey: randomUUID(),
  });
  expect(booking.status, JSON.stringify(booking.body.error)).toBe(201);
  return { patientId: patient.body.data.id as number, patientKey };
}
