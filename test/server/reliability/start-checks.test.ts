import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, describe, expect, test } from 'vitest';
import { spawnStack, stopStack } from '../../helpers/child-stack.ts';
import { rawRequest, signedRequest, type Credentials } from '../../helpers/signed-client.ts';
import { ConsoleClient } from '../admin/console-client.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { seedTenant } from '../../../seed/seed.ts';

/**
 * Issue 20 § 8: after a flipped backend WAL, 40 of 40 acknowledged records were gone while their 40
 * Idempotency-Keys kept replaying `201 Idempotency-Replay: true` for records that no longer existed,
 * and the stack started without a word. Now the start compares the recent completed idempotency
 * entries with backend-sim's markers (orphans are flagged: they replay nothing, the console's inspector
 * lists them, the retry executes and the record exists again; the start log says what was found), and checks the databases' integrity in the
 * background (PRAGMA quick_check: the log and /readyz report damage) without delaying the start.
 */

const WRITES = 40;
let child: ChildProcess | null = null;
const dirs: string[] = [];

afterAll(async () => {
  await stopStack(child, 'SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function start(dataDir: string): Promise<{
  baseUrl: string;
  output: () => string;
  creds: Credentials & { chaveId: number };
  operator: { username: string; password: string };
}> {
  let out = '';
  const started = await spawnStack(
    dataDir,
    { RATE_LIMIT_PER_MINUTE: '1000000' },
    { output: (chunk) => (out += chunk), timeoutMs: 60_000 },
  );
  child = started.child;
  const credentials = JSON.parse(readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8'));
  const demo = credentials.keys.demo;
  return {
    baseUrl: started.baseUrl,
    output: () => out,
    creds: { apiKey: demo.api_key, apiSecret: demo.api_secret, chaveId: demo.chave_id },
    operator: credentials.operator,
  };
}

/** The console's idempotency inspector: the demo key's live entries, by Idempotency-Key. */
async function inspectorEntries(
  s: Awaited<ReturnType<typeof start>>,
): Promise<Map<string, { state: string; status: number | null; method: string; path: string }>> {
  const operator = new ConsoleClient(s.baseUrl);
  expect((await operator.login(s.operator.username, s.operator.password)).status).toBe(200);
  const res = await operator.call('GET', `/admin/api/keys/${s.creds.chaveId}/idempotency`);
  expect(res.status, res.text).toBe(200);
  return new Map(
    res.body.data.items.map(
      (e: { idem_key: string; state: string; status: number | null; method: string; path: string }) => [e.idem_key, e],
    ),
  );
}

/** Waits (bounded) until the background quick_check has finished, and returns /readyz's integrity component. */
async function integrityOnceChecked(baseUrl: string): Promise<{ status: number; component: any; retryAfter: unknown }> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await rawRequest(baseUrl, { method: 'GET', path: '/readyz' });
    const component = (res.body.data ?? res.body.error?.details)?.componentes?.integrity;
    if (component?.detalhes?.verificacao === 'concluida' || Date.now() > deadline)
      return { status: res.status, component, retryAfter: res.headers['retry-after'] };
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('start-time consistency', () => {
  test(`a flipped backend WAL loses ${WRITES} acknowledged patient creates: the start says so, the console's inspector lists them as orphaned, their keys no longer replay a success, each retry executes and the record exists again`, async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-orphans-'));
    dirs.push(dataDir);
    let s = await start(dataDir);
    const backendDb = path.join(dataDir, 'backend', 'demo.db');
    // Everything before the writes is in the database file, so the WAL holds exactly these writes.
    const db = new SQLite(backendDb);
    expect(db.pragma('wal_checkpoint(TRUNCATE)', { simple: false })).toEqual([expect.objectContaining({ busy: 0 })]);
    db.close();

    const writes = Array.from({ length: WRITES }, (_, i) => ({
      key: randomUUID(),
      body: { nome: `Orfao ${randomUUID().slice(0, 8)} ${i}`, data_nascimento: '1980-02-03' },
      id: 0,
    }));
    for (const w of writes) {
      const res = await signedRequest(s.baseUrl, s.creds, {
        method: 'POST',
        path: '/v1/pacientes',
        body: w.body,
        idempotencyKey: w.key,
      });
      expect(res.status, res.text).toBe(201);
      w.id = res.body.data.id;
    }
    await stopStack(child, 'SIGKILL');

    // One byte of the first frame's page flipped: its checksum fails, and SQLite's recovery drops every frame from it on.
    const wal = `${backendDb}-wal`;
    expect(statSync(wal).size).toBeGreaterThan(32 + 24 + 4096);
    const fd = openSync(wal, 'r+');
    const byte = Buffer.alloc(1);
    readSync(fd, byte, 0, 1, 32 + 24 + 100);
    byte[0] ^= 0xff;
    writeSync(fd, byte, 0, 1, 32 + 24 + 100);
    closeSync(fd);

    s = await start(dataDir);
    const lost = [];
    for (const w of writes) {
      const read = await signedRequest(s.baseUrl, s.creds, { path: `/v1/pacientes/${w.id}` });
      if (read.status === 404) lost.push(w);
      else expect(read.status).toBe(200);
    }
    expect(lost).toHaveLength(WRITES);
    expect(s.output()).toMatch(
      new RegExp(
        `idempotency check: ${WRITES} of ${WRITES} acknowledged write\\(s\\) of the last 24 h are missing from backend-sim \\(demo: ${WRITES}\\)`,
      ),
    );

    const ready = await integrityOnceChecked(s.baseUrl);
    expect(ready.component.detalhes).toMatchObject({ idempotencia_verificadas: WRITES, idempotencia_orfas: WRITES });

    // Flagged, not forgotten: the console's inspector lists every one as orphaned, with the status it was answered.
    const flagged = await inspectorEntries(s);
    for (const w of writes)
      expect(flagged.get(w.key)).toMatchObject({
        state: 'orphaned',
        status: 201,
        method: 'POST',
        path: '/v1/pacientes',
      });
    // Still bound to its request: the key with another body is the usual 422, and executes nothing.
    const [first] = lost;
    const otherBody = await signedRequest(s.baseUrl, s.creds, {
      method: 'POST',
      path: '/v1/pacientes',
      body: { ...first.body, nome: `${first.body.nome} outro` },
      idempotencyKey: first.key,
    });
    expect(otherBody.status, otherBody.text).toBe(422);
    expect(otherBody.body.error.code).toBe('IDEMPOTENCY_CONFLICT');

    for (const w of lost) {
      const retry = await signedRequest(s.baseUrl, s.creds, {
        method: 'POST',
        path: '/v1/pacientes',
        body: w.body,
        idempotencyKey: w.key,
      });
      expect(retry.status, retry.text).toBe(201);
      // Executed, not replayed from the gateway's record of a write that no longer exists.
      expect(retry.headers['idempotency-replay']).toBe('false');
      const read = await signedRequest(s.baseUrl, s.creds, { path: `/v1/pacientes/${retry.body.data.id}` });
      expect(read.status).toBe(200);
      expect(read.body.data.nome).toBe(w.body.nome.toUpperCase());
      // And from now on the key replays that new record.
      const again = await signedRequest(s.baseUrl, s.creds, {
        method: 'POST',
        path: '/v1/pacientes',
        body: w.body,
        idempotencyKey: w.key,
      });
      expect(again.headers['idempotency-replay']).toBe('true');
      expect(again.body.data.id).toBe(retry.body.data.id);
    }
    // Executed again, each entry is an ordinary completed one.
    const retried = await inspectorEntries(s);
    for (const w of writes) expect(retried.get(w.key)).toMatchObject({ state: 'completed', status: 201 });
    await stopStack(child, 'SIGTERM');

    // The next start finds nothing to say about them: every recent entry is in backend-sim again.
    s = await start(dataDir);
    expect(s.output()).toMatch(
      new RegExp(
        `idempotency check: the ${WRITES} acknowledged write\\(s\\) of the last 24 h checked are all in backend-sim`,
      ),
    );
    await stopStack(child, 'SIGTERM');
  }, 180_000);

  test('a damaged database is found by the background quick_check: named in the log, /readyz integrity down; the banner comes first (the start does not wait for it)', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-quickcheck-'));
    dirs.push(dataDir);
    let s = await start(dataDir);
    await stopStack(child, 'SIGTERM');

    // An intact second start: every database checked, nothing found.
    s = await start(dataDir);
    let ready = await integrityOnceChecked(s.baseUrl);
    expect(ready.status).toBe(200);
    expect(ready.component).toMatchObject({
      status: 'up',
      detalhes: { verificacao: 'concluida', bancos_danificados: 0 },
    });
    // gateway.db and the three first-start clinics, with their first-start snapshots.
    expect(ready.component.detalhes.bancos_verificados).toBeGreaterThanOrEqual(4);
    expect(s.output()).toMatch(
      /integrity: \d+ database\(s\) checked \(PRAGMA quick_check\) in \d+ ms: no damage found/,
    );
    await stopStack(child, 'SIGTERM');

    // The root page of an index of clinica-b's patients zeroed (the clean stop checkpointed the WAL into the file).
    const file = path.join(dataDir, 'backend', 'clinica-b.db');
    const db = new SQLite(file, { readonly: true });
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const rootpage = db
      .prepare(
        "SELECT rootpage FROM sqlite_master WHERE type = 'index' AND tbl_name = 'pacientes' AND sql IS NOT NULL ORDER BY name LIMIT 1",
      )
      .pluck()
      .get() as number;
    db.close();
    expect(rootpage).toBeGreaterThan(1);
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(pageSize), 0, pageSize, (rootpage - 1) * pageSize);
    closeSync(fd);

    s = await start(dataDir);
    ready = await integrityOnceChecked(s.baseUrl);
    expect(ready.status).toBe(503);
    expect(ready.component).toMatchObject({
      status: 'down',
      erro: 'integrity_failed',
      detalhes: { verificacao: 'concluida', bancos_danificados: 1 },
    });
    // Damage is not repaired by waiting: no Retry-After (issue 21 § 4).
    expect(ready.retryAfter).toBeUndefined();
    // No file or clinic name in the unauthenticated probe; the log names it.
    expect(JSON.stringify(ready.component)).not.toMatch(/clinica-b/);
    const out = s.output();
    expect(out).toMatch(/integrity: DAMAGE FOUND in 1 of \d+ database\(s\)/);
    expect(out).toMatch(/ {2}backend\/clinica-b\.db: /);
    expect(out.indexOf('is up (')).toBeGreaterThan(-1);
    expect(out.indexOf('is up (')).toBeLessThan(out.indexOf('integrity: DAMAGE FOUND'));
    // The other clinics still answer.
    expect((await signedRequest(s.baseUrl, s.creds, { path: '/v1/ping' })).status).toBe(200);
    await stopStack(child, 'SIGTERM');
  }, 180_000);
});

describe('no false orphans', () => {
  test('every kind of 2xx write through /v1 leaves its backend marker: a restart checks them all and flags none', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-markers-'));
    dirs.push(dataDir);
    let stack: TestStack | null = await startTestStack({ RATE_LIMIT_PER_MINUTE: '1000000' }, { dataDir });
    try {
      // A small real seed (catalogs, agendas, doctors) of its own clinic.
      await seedTenant({
        dataDir,
        slug: 'marcadores',
        nome: 'Clinica Marcadores',
        profile: 'rich',
        seed: 'marcadores-1',
        patients: 10,
        exams: 5,
        appointments: 5,
      });
      await stack.createTenant('marcadores');
      const key = await stack.newKey({ tenant: 'marcadores' });
      const seeded = new SQLite(path.join(dataDir, 'backend', 'marcadores.db'), { readonly: true });
      const one = (sql: string) => seeded.prepare(sql).pluck().get() as number;
      const procedimento = one('SELECT id FROM procedimentos WHERE ativo = 1 ORDER BY id LIMIT 1');
      const unidade = one('SELECT id FROM unidades ORDER BY id LIMIT 1');
      seeded.close();

      /** Route patterns of the operations written, to compare with the registered idempotent ones. */
      const exercised = new Set<string>();
      let writes = 0;
      const write = async (
        method: string,
        target: string,
        body: unknown,
        status = method === 'POST' && !/cancelar|reagendar|unificar/.test(target) ? 201 : 200,
      ) => {
        const res = await stack!.call({ method, path: target, body, idempotencyKey: randomUUID() }, key);
        expect(res.status, `${method} ${target}: ${res.text}`).toBe(status);
        exercised.add(`${method} ${target.replace(/\/\d+/g, '/:id')}`);
        writes += 1;
        return res.body.data;
      };
      const paciente = () =>
        write('POST', '/v1/pacientes', { nome: `Marcador ${randomUUID().slice(0, 8)}`, data_nascimento: '1980-02-03' });

      const p1 = await paciente();
      const p2 = await paciente();
      const p3 = await paciente();
      await write('PATCH', `/v1/pacientes/${p1.id}`, { telefone: '1133334444' });
      // The same value again: a write that changes no value.
      await write('PATCH', `/v1/pacientes/${p1.id}`, { telefone: '1133334444' });
      await write('POST', '/v1/pacientes/unificar', { paciente_id_principal: p2.id, paciente_id_duplicado: p3.id });
      await write('POST', `/v1/pacientes/${p1.id}/prontuarios`, { mensagem: 'Retorno em 30 dias.' }, 201);
      const medico = await write('POST', '/v1/medicos', {
        nome: 'Dra. Marcadora',
        usuario: `marcadora.${randomUUID().slice(0, 8)}`,
        senha: 'troque-me-123',
        papeis: ['EXAME', 'LAUDO'],
      });
      await write('PATCH', `/v1/medicos/${medico.id}`, { telefone: '1133335555' });
      // An empty merge patch: accepted, and nothing to change.
      await write('PATCH', `/v1/medicos/${medico.id}`, {});
      await write('PATCH', `/v1/pacientes/${p1.id}`, {});
      const exame = {
        paciente_id: p1.id,
        procedimento_id: procedimento,
        unidade_id: unidade,
        medico_exame_id: medico.id,
      };
      const laudado = await write('POST', '/v1/exames', exame);
      await write(
        'POST',
        `/v1/exames/${laudado.id}/laudo`,
        {
          medico_laudo_id: medico.id,
          arquivo: { nome: 'laudo.pdf', base64: Buffer.from('%PDF-1.4\n%%EOF\n').toString('base64') },
        },
        201,
      );
      const excluido = await write('POST', '/v1/exames', exame);
      await write('DELETE', `/v1/exames/${excluido.id}`, { motivo: 'Cadastrado em duplicidade.' });

      const slots = await stack.call({ path: '/v1/agenda/slots?procedimento_id=21' }, key);
      const withSlot = slots.body.data.find((g: { proximo_slot: unknown }) => g.proximo_slot !== null);
      expect(withSlot, slots.text).toBeDefined();
      const slot = withSlot.proximo_slot;
      const agendamento = await write('POST', '/v1/agenda/agendamentos', {
        agenda_config_id: slot.agenda_config_id,
        procedimento_id: 21,
        convenio_id: 0,
        data: slot.data,
        hora_inicio: slot.hora_inicio,
        paciente_id: p1.id,
      });
      const next = (await stack.call({ path: '/v1/agenda/slots?procedimento_id=21' }, key)).body.data.find(
        (g: { medico_id: number; sala_id: number; unidade_id: number }) =>
          g.medico_id === withSlot.medico_id && g.sala_id === withSlot.sala_id && g.unidade_id === withSlot.unidade_id,
      ).proximo_slot;
      await write('POST', `/v1/agenda/agendamentos/${agendamento.id}/reagendar`, {
        nova_data: next.data,
        nova_hora_inicio: next.hora_inicio,
        agenda_config_id: next.agenda_config_id,
      });
      await write('POST', `/v1/agenda/agendamentos/${agendamento.id}/cancelar`, { motivo: 'Paciente desistiu' });

      // Every idempotent operation of /v1 took part.
      const idempotent = stack.app.operations
        .filter((o) => o.operation.idempotent)
        .map((o) => `${o.operation.method} ${o.path.replace(/:\w+/g, ':id')}`);
      expect([...exercised].sort()).toEqual([...new Set(idempotent)].sort());
      await stack.stop();
      stack = null;

      stack = await startTestStack({}, { dataDir });
      expect(await stack.integrity.consistency).toMatchObject({ checked: writes, orphaned: [], unchecked: [] });
    } finally {
      await stack?.stop();
    }
  }, 180_000);
});
