import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { seedTenant } from '../../../seed/seed.ts';
import { V1_OPERATIONS } from '../../../server/routes/v1/index.ts';
import { operationId } from '../../../server/routes/operation-id.ts';
import {
  signedRequest,
  type Credentials,
  type SignedRequest,
  type SignedResponse,
} from '../../helpers/signed-client.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

/**
 * Issue 33 § Done when: the upstream is a second appliance; every one of the 38 operations' happy paths goes through the
 * contract guard in both modes with zero violations, and each answer is the one calling the upstream directly gives
 * (ids and timing fields aside). Each mode runs the same script of calls: direct (the upstream key, to the upstream),
 * re-sign (an appliance key of the guard, to the guard), pass-through (the upstream key, to the pass-through guard).
 */

let dataDir: string;
let upstream: TestStack;
let resign: TestStack;
let pass: TestStack;
let upstreamCreds: Credentials;
const SLUG = 'acordo';

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'gw-proxy-upstream-'));
  await seedTenant({
    dataDir,
    slug: SLUG,
    seed: 'proxy-happy',
    profile: 'rich',
    patients: 20,
    exams: 20,
    appointments: 10,
  });
  upstream = await startTestStack({ RATE_LIMIT_PER_MINUTE: '100000' }, { dataDir });
  await upstream.createTenant(SLUG);
  upstreamCreds = await upstream.newKey({ tenant: SLUG });
  const env = {
    UPSTREAM_URL: upstream.gatewayUrl,
    UPSTREAM_API_KEY: upstreamCreds.apiKey,
    UPSTREAM_API_SECRET: upstreamCreds.apiSecret,
  };
  resign = await startTestStack({ ...env, PROXY_MODE: 'resign' });
  pass = await startTestStack({ ...env, PROXY_MODE: 'pass-through' });
}, 120_000);

afterAll(async () => {
  await Promise.allSettled([resign?.stop(), pass?.stop()]);
  await upstream?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

type Mode = 'direct' | 'resign' | 'pass';
type Call = (req: SignedRequest) => Promise<SignedResponse>;
const callerOf = (mode: Mode): Call => {
  if (mode === 'direct') return (req) => signedRequest(upstream.gatewayUrl, upstreamCreds, req);
  if (mode === 'resign') return (req) => signedRequest(resign.gatewayUrl, resign.creds, req);
  return (req) => signedRequest(pass.gatewayUrl, upstreamCreds, req);
};

/** Ids, times and the per-run names aside: what must be equal between a direct call and one through the guard. */
// An appointment's day and time are the slot each run found free (the other run took the one before).
const VARYING_KEYS =
  /^(id|.*_id|request_id.*|duracao_ms|server_time|timestamp|criado_em|atualizado_em|data_hora|.*_em|usuario|nome_arquivo|url|data_agendamento|hora_inicio|hora_fim|data|nova_data)$/;
function normalized(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => normalized(v));
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [
        k,
        VARYING_KEYS.test(k) ? typeof v : normalized(v, k),
      ]),
    );
  if (typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value)) return 'time';
  return key ? value : value;
}
const answerOf = (res: SignedResponse) => ({
  status: res.status,
  body: normalized(res.body),
  headers: {
    'content-type': res.headers['content-type'],
    'cache-control': res.headers['cache-control'],
    'x-api-version': res.headers['x-api-version'],
    'idempotency-replay': res.headers['idempotency-replay'],
    // A stored file's object key is a fresh UUID (an id); a presigned URL's query its signature and time.
    location: res.headers.location
      ?.replace(/\?.*$/, '')
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'UUID')
      .replace(/\d+/g, 'N'),
  },
});

/**
 * Steps of two runs of the script, alternated (direct step k, then the guard's step k, then direct step k+1…): each
 * pair of calls sees the same state of the upstream, whatever the writes of the steps before.
 */
type Step = <T>(work: () => Promise<T>) => Promise<T>;
function lockstep(): Step {
  let chain: Promise<unknown> = Promise.resolve();
  return (work) => {
    const done = chain.then(work);
    chain = done.catch(() => undefined);
    return done;
  };
}
const sequential: Step = (work) => work();

type Answers = Array<{ operation: string; answer: ReturnType<typeof answerOf> }>;

/** One run of the script: every operation once at least, in an order that makes its ids. */
async function script(mode: Mode, run: string, step: Step = sequential): Promise<Answers> {
  const call: Call = callerOf(mode);
  const answers: Answers = [];
  let n = 0;
  const go = (operation: string, req: SignedRequest, expected: number) =>
    step(async () => {
      const idem = req.method && req.method !== 'GET' && !(req.method === 'POST' && req.path === '/v1/ping');
      const res = await call({ ...req, ...(idem ? { idempotencyKey: `${run}-${mode}-${n++}` } : {}) });
      expect(res.status, `${mode} ${operation} ${req.method ?? 'GET'} ${req.path}: ${res.text}`).toBe(expected);
      answers.push({ operation, answer: answerOf(res) });
      return res;
    });
  await go('getPing', { path: '/v1/ping' }, 200);
  await go('postPing', { method: 'POST', path: '/v1/ping', body: { teste: 'ola', senha: 'x' } }, 200);
  await go('getConfig', { path: '/v1/config' }, 200);
  const pacientes = await go('getPacientes', { path: '/v1/pacientes?limit=5' }, 200);
  await go('getPacientesById', { path: `/v1/pacientes/${pacientes.body.data[0].id}` }, 200);
  const paciente = { nome: 'Maria Proxy', data_nascimento: '1985-03-14', sexo: 'FEM' };
  const created = await go('postPacientes', { method: 'POST', path: '/v1/pacientes', body: paciente }, 201);
  const P = created.body.data.id;
  await go(
    'patchPacientesById',
    { method: 'PATCH', path: `/v1/pacientes/${P}`, body: { telefone: '1133334444' } },
    200,
  );
  const dupA = (await go('postPacientes', { method: 'POST', path: '/v1/pacientes', body: paciente }, 201)).body.data.id;
  const dupB = (await go('postPacientes', { method: 'POST', path: '/v1/pacientes', body: paciente }, 201)).body.data.id;
  await go(
    'postPacientesUnificar',
    {
      method: 'POST',
      path: '/v1/pacientes/unificar',
      body: { paciente_id_principal: dupA, paciente_id_duplicado: dupB },
    },
    200,
  );
  const procedimentos = await go('getProcedimentos', { path: '/v1/procedimentos?limit=50' }, 200);
  await go('getConvenios', { path: '/v1/convenios' }, 200);
  await go('getCids', { path: '/v1/cids?q=J0' }, 200);
  await go('getUnidades', { path: '/v1/unidades' }, 200);
  await go('getComplementos', { path: '/v1/complementos' }, 200);
  await go('getGruposLaudos', { path: '/v1/grupos-laudos' }, 200);
  const medicos = await go('getMedicos', { path: '/v1/medicos?papel=LAUDO' }, 200);
  const laudista = medicos.body.data[0].id;
  await go('getMedicosById', { path: `/v1/medicos/${laudista}` }, 200);
  const medico = await go(
    'postMedicos',
    {
      method: 'POST',
      path: '/v1/medicos',
      body: { nome: 'Dra. Proxy', usuario: `proxy.${run}.${mode}`, senha: 'troque-me', papeis: ['LAUDO'] },
    },
    201,
  );
  await go(
    'patchMedicosById',
    { method: 'PATCH', path: `/v1/medicos/${medico.body.data.id}`, body: { telefone: '1133334444' } },
    200,
  );
  const exames = await go('getExames', { path: '/v1/exames?limit=5' }, 200);
  await go('getExamesById', { path: `/v1/exames/${exames.body.data[0].id}` }, 200);
  const procedimento = procedimentos.body.data[0].id;
  const exame = {
    paciente_id: P,
    procedimento_id: procedimento,
    data_exame: '2026-11-02',
    prioridade: 1,
    arquivos: { exames: [{ nome: 'exame.pdf', base64: 'JVBERi0xLjQK' }] },
  };
  const E = (await go('postExames', { method: 'POST', path: '/v1/exames', body: exame }, 201)).body.data.id;
  await go('getExamesByIdArquivo', { path: `/v1/exames/${E}/arquivo?tipo=exame` }, 302);
  const laudo = await go(
    'postExamesByIdLaudo',
    {
      method: 'POST',
      path: `/v1/exames/${E}/laudo`,
      body: { medico_laudo_id: laudista, arquivo: { nome: 'laudo.pdf', base64: 'JVBERi0xLjQK' }, titulo: 'Laudo' },
    },
    201,
  );
  await go('getLaudos', { path: '/v1/laudos?limit=5' }, 200);
  await go('getLaudosById', { path: `/v1/laudos/${laudo.body.data.id}` }, 200);
  await go('getLaudosByIdArquivo', { path: `/v1/laudos/${laudo.body.data.id}/arquivo` }, 302);
  const E2 = (await go('postExames', { method: 'POST', path: '/v1/exames', body: exame }, 201)).body.data.id;
  await go(
    'deleteExamesById',
    { method: 'DELETE', path: `/v1/exames/${E2}`, body: { motivo: 'Exame em duplicidade.' } },
    200,
  );
  const configs = await go('getAgendaConfigs', { path: '/v1/agenda/configs?ativo=1' }, 200);
  expect(configs.body.data.length).toBeGreaterThan(0);
  const slotOf = async () => {
    for (const config of configs.body.data) {
      for (const proc of config.procedimentos ?? [{ id: procedimento }]) {
        const slots = await call({ path: `/v1/agenda/slots?procedimento_id=${proc.id ?? proc}&horizonte_dias=60` });
        const group = slots.body?.data?.find((g: any) => g.proximo_slot);
        if (group) return { proc: proc.id ?? proc, slot: group.proximo_slot };
      }
    }
    throw new Error('no free slot in the seeded clinic');
  };
  const free = await step(slotOf);
  await go('getAgendaSlots', { path: `/v1/agenda/slots?procedimento_id=${free.proc}&horizonte_dias=60` }, 200);
  // The slot is chosen in the step that books it: the other run's booking has taken the one before.
  const booking = await bookNext(step, slotOf, (first) =>
    call({
      method: 'POST',
      path: '/v1/agenda/agendamentos',
      idempotencyKey: `${run}-${mode}-${n++}`,
      body: {
        agenda_config_id: first.slot.agenda_config_id,
        procedimento_id: first.proc,
        convenio_id: 0,
        data: first.slot.data,
        hora_inicio: first.slot.hora_inicio,
        paciente_id: P,
      },
    }),
  );
  expect(booking.status, booking.text).toBe(201);
  answers.push({ operation: 'postAgendaAgendamentos', answer: answerOf(booking) });
  const A = booking.body.data.id;
  await go('getAgendaAgendamentos', { path: `/v1/agenda/agendamentos?paciente_id=${P}` }, 200);
  await go('getAgendaAgendamentosById', { path: `/v1/agenda/agendamentos/${A}` }, 200);
  const moved = await bookNext(step, slotOf, (next) =>
    call({
      method: 'POST',
      path: `/v1/agenda/agendamentos/${A}/reagendar`,
      idempotencyKey: `${run}-${mode}-${n++}`,
      body: { nova_data: next.slot.data, nova_hora_inicio: next.slot.hora_inicio, motivo: 'Paciente pediu outro dia' },
    }),
  );
  expect(moved.status, moved.text).toBe(200);
  answers.push({ operation: 'postAgendaAgendamentosByIdReagendar', answer: answerOf(moved) });
  await go(
    'postAgendaAgendamentosByIdCancelar',
    { method: 'POST', path: `/v1/agenda/agendamentos/${A}/cancelar`, body: { motivo: 'Paciente cancelou' } },
    200,
  );
  await go(
    'postPacientesByIdProntuarios',
    {
      method: 'POST',
      path: `/v1/pacientes/${P}/prontuarios`,
      body: {
        mensagem: '<p>Retorno em 30 dias.</p>',
        anexos: [{ nome: 'pedido.pdf', base64: 'JVBERi0xLjQKJSVFT0YK', descricao: 'Pedido' }],
        exibir: 1,
      },
    },
    201,
  );
  await go('getPacientesByIdProntuarios', { path: `/v1/pacientes/${P}/prontuarios` }, 200);
  const anexos = await go('getPacientesByIdProntuariosAnexos', { path: `/v1/pacientes/${P}/prontuarios/anexos` }, 200);
  await go(
    'getPacientesByIdProntuariosAnexosByAnexoIdUrl',
    { path: `/v1/pacientes/${P}/prontuarios/anexos/${anexos.body.data[0].id}/url` },
    302,
  );
  return answers;
}

type Slot = { proc: number; slot: { agenda_config_id: number; data: string; hora_inicio: string } };
/** Finds the next free slot and books it, in one step. */
function bookNext(step: Step, slotOf: () => Promise<Slot>, book: (slot: Slot) => Promise<SignedResponse>) {
  return step(async () => book(await slotOf()));
}

async function violationsIn(stack: TestStack): Promise<unknown[]> {
  await stack.app.contractStore.flush();
  return stack.database.db.selectFrom('contract_violations').selectAll().execute();
}

test('the script calls every one of the 38 operations', async () => {
  const direct = await script('direct', 'cover');
  const all = V1_OPERATIONS.map((op) => operationId(op.method, `/v1${op.url}`)).sort();
  expect(all).toHaveLength(38);
  expect([...new Set(direct.map((a) => a.operation))].sort()).toEqual(all);
}, 60_000);

for (const mode of ['resign', 'pass'] as const) {
  test(`${mode === 'resign' ? 're-sign' : 'pass-through'}: every operation through the guard answers as the upstream does, with zero violations`, async () => {
    const step = lockstep();
    const [direct, proxied] = await Promise.all([script('direct', mode, step), script(mode, mode, step)]);
    expect(proxied.map((a) => a.operation)).toEqual(direct.map((a) => a.operation));
    for (const [i, d] of direct.entries()) expect(proxied[i].answer, `${d.operation} (call ${i})`).toEqual(d.answer);
    const stack = mode === 'resign' ? resign : pass;
    expect(await violationsIn(stack)).toEqual([]);
    // Every call journaled by the guard, none with a violation or a fault.
    stack.app.auditWriter.flush();
    const details = (await stack.database.db.selectFrom('audit_log').select(['detail', 'path']).execute()).map(
      (r) => r.detail,
    );
    // Re-sign: each call is a verified entry of the guard's key, its detail the proxy's; pass-through calls name no key
    // of the guard, so they are journaled in the unattributed groups (docs/decisions.md CG4).
    if (mode === 'resign')
      expect(details.filter((d) => d && JSON.parse(d).proxy?.mode === 'resign').length).toBeGreaterThanOrEqual(
        direct.length,
      );
    for (const detail of details.filter(Boolean)) {
      expect(JSON.parse(detail!).contract_violations).toBeUndefined();
      expect(JSON.parse(detail!).upstream_fault).toBeUndefined();
    }
  }, 120_000);
}
