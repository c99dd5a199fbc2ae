import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantDatabase } from '../../backend-sim/db/database.ts';
import { WriteScope } from '../../backend-sim/db/idempotent-dialect.ts';
import { IDEMPOTENCY_TOKEN_HEADER, IDEMPOTENT_REPLAY_HEADER } from '../../backend-sim/idempotency.ts';
import { arrangeCatalog, createTenant, startHarness, TOKEN, VALID_CPFS, type Harness } from './helpers.ts';

// Exactly once across crashes, backend-sim's half (docs/architecture.md § Exactly once across crashes):
// a write carrying the gateway's token commits together with its marker and its answer; the same
// token again replays that answer byte for byte and executes nothing.
let h: Harness;
let t: TenantDatabase;
let clockMs = Date.parse('2026-11-22T12:00:00Z');
beforeAll(async () => {
  h = await startHarness({ now: () => new Date(clockMs) });
  t = await createTenant(h, 'demo');
  await arrangeCatalog(t);
});
afterAll(() => h?.close());

const newToken = () => createHash('sha256').update(randomUUID()).digest('hex');

/** The raw answer: status, text exactly as sent, headers. */
async function send(method: string, path: string, body: unknown, token?: string) {
  const res = await fetch(h.sim.url + path, {
    method,
    headers: {
      'x-internal-token': TOKEN,
      'x-chave-id': '11',
      'x-medico-filtro-id': '0',
      'content-type': 'application/json',
      ...(token ? { [IDEMPOTENCY_TOKEN_HEADER]: token } : {}),
    },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    text: await res.text(),
    replay: res.headers.get(IDEMPOTENT_REPLAY_HEADER),
    contentType: res.headers.get('content-type'),
  };
}

const countNamed = async (nome: string) =>
  Number(
    (
      await t.db
        .selectFrom('pacientes')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('nome', '=', nome.toUpperCase())
        .executeTakeFirstOrThrow()
    ).n,
  );
const marker = (token: string) =>
  t.db.selectFrom('idempotency_markers').selectAll().where('token', '=', token).executeTakeFirst();

let seq = 0;
const novo = (extra: Record<string, unknown> = {}) => ({
  nome: `idem marcador ${++seq} ${randomUUID().slice(0, 8)}`,
  data_nascimento: '1985-02-03',
  ...extra,
});

describe('the same token twice executes once and replays the first answer byte for byte', () => {
  it('transactional write (patient create): one row, marker committed with status and body, replay identical', async () => {
    const body = novo();
    const token = newToken();
    const first = await send('POST', '/tenants/demo/pacientes', body, token);
    expect(first.status).toBe(201);
    expect(first.replay).toBeNull();
    const stored = await marker(token);
    expect(stored).toMatchObject({
      method: 'POST',
      path: '/tenants/demo/pacientes',
      status: 201,
      response: first.text,
    });
    const again = await send('POST', '/tenants/demo/pacientes', body, token);
    expect(again.status).toBe(201);
    expect(again.replay).toBe('true');
    expect(again.text).toBe(first.text);
    expect(again.contentType).toBe(first.contentType);
    expect(await countNamed(body.nome)).toBe(1);
  });

  it('autocommit write (doctor create, one INSERT): wrapped in a transaction with its marker', async () => {
    const token = newToken();
    const usuario = `idem.${randomUUID().slice(0, 8)}`;
    const body = { nome: 'Dra. Idempotente', usuario, senha: 'segredo123', papeis: ['EXAME'] };
    const first = await send('POST', '/tenants/demo/medicos', body, token);
    expect(first.status).toBe(201);
    expect((await marker(token))?.response).toBe(first.text);
    const again = await send('POST', '/tenants/demo/medicos', body, token);
    expect(again).toMatchObject({ status: 201, replay: 'true', text: first.text });
    const rows = await t.db.selectFrom('medicos').select('id').where('usuario', '=', usuario).execute();
    expect(rows).toHaveLength(1);
  });

  it('autocommit write (patient PATCH): the retry replays the first answer and does not write again', async () => {
    const created = JSON.parse((await send('POST', '/tenants/demo/pacientes', novo())).text).data;
    const token = newToken();
    const first = await send('PATCH', `/tenants/demo/pacientes/${created.id}`, { telefone: '1130000001' }, token);
    expect(first.status).toBe(200);
    // Someone else changes the patient meanwhile; re-executing the retry would overwrite it.
    expect(
      (await send('PATCH', `/tenants/demo/pacientes/${created.id}`, { telefone: '1130000002' }, newToken())).status,
    ).toBe(200);
    const again = await send('PATCH', `/tenants/demo/pacientes/${created.id}`, { telefone: '1130000001' }, token);
    expect(again).toMatchObject({ status: 200, replay: 'true', text: first.text });
    const row = await t.db
      .selectFrom('pacientes')
      .select('telefone')
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(row.telefone).toBe('1130000002');
  });

  it('20 concurrent requests with one token: one execution, every answer the same bytes', async () => {
    const body = novo({ cpf: VALID_CPFS[1] });
    const token = newToken();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => send('POST', '/tenants/demo/pacientes', body, token)),
    );
    expect(await countNamed(body.nome)).toBe(1);
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(answers.every((a) => a.status === 201)).toBe(true);
    expect(answers.filter((a) => a.replay === null)).toHaveLength(1);
  });

  it('untokened requests of the tenant keep working while tokened writes run', async () => {
    const names = Array.from({ length: 10 }, () => novo());
    const results = await Promise.all(
      names.map((b, i) => send('POST', '/tenants/demo/pacientes', b, i % 2 ? newToken() : undefined)),
    );
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(201));
    for (const b of names) expect(await countNamed(b.nome)).toBe(1);
  });
});

describe('what is not recorded', () => {
  it('a refused write (422 inside the transaction) leaves no marker: the retry executes again', async () => {
    const existing = JSON.parse(
      (await send('POST', '/tenants/demo/pacientes', novo({ cpf: VALID_CPFS[2] }))).text,
    ).data;
    const token = newToken();
    const body = novo({ cpf: VALID_CPFS[2] });
    const first = await send('POST', '/tenants/demo/pacientes', body, token);
    expect(first.status).toBe(422);
    expect(JSON.parse(first.text).error).toMatchObject({
      code: 'CPF_ALREADY_EXISTS',
      details: { paciente_id_existente: existing.id },
    });
    expect(await marker(token)).toBeUndefined();
    // The clinic removed the other record: the same token now executes (nothing had been written).
    await t.db.updateTable('pacientes').set({ cpf: null }).where('id', '=', existing.id).execute();
    const retry = await send('POST', '/tenants/demo/pacientes', body, token);
    expect(retry.status).toBe(201);
    expect(retry.replay).toBeNull();
  });

  it('reads ignore the token; a malformed token is a 400', async () => {
    const res = await fetch(`${h.sim.url}/tenants/demo/pacientes?limit=1`, {
      headers: { 'x-internal-token': TOKEN, [IDEMPOTENCY_TOKEN_HEADER]: 'nao-hex' },
    });
    expect(res.status).toBe(200);
    const bad = await send('POST', '/tenants/demo/pacientes', novo(), 'XYZ');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text).error).toMatchObject({
      code: 'VAL_INVALID_PARAM',
      details: { field: IDEMPOTENCY_TOKEN_HEADER },
    });
  });

  it('markers live 24 h: after that the token executes again and the old marker is purged', async () => {
    const body = novo();
    const token = newToken();
    const old = newToken();
    expect((await send('POST', '/tenants/demo/pacientes', novo(), old)).status).toBe(201);
    expect((await send('POST', '/tenants/demo/pacientes', body, token)).status).toBe(201);
    clockMs += 24 * 60 * 60 * 1000 + 1;
    const later = await send('POST', '/tenants/demo/pacientes', body, token);
    expect(later.status).toBe(201);
    expect(later.replay).toBeNull();
    expect(await countNamed(body.nome)).toBe(2);
    expect(await marker(old)).toBeUndefined();
    expect((await marker(token))?.created_at).toBe(clockMs);
  });
});

describe('the driver: write, marker and answer commit together or not at all', () => {
  let db: TenantDatabase['db'];
  let sqlite: TenantDatabase['sqlite'];
  beforeAll(async () => {
    ({ db, sqlite } = await h.tenantDb('demo'));
  });
  const estado = (nome: string) => db.selectFrom('estados_civis').select('id').where('nome', '=', nome).execute();
  const scope = () => new WriteScope(newToken(), 'POST', '/tenants/demo/x', () => clockMs);

  it('before finish nothing is visible to another connection; finish commits the row and the marker with the answer', async () => {
    const s = scope();
    const nome = `estado ${randomUUID()}`;
    await s.run(() => db.insertInto('estados_civis').values({ nome }).execute());
    expect(sqlite.inTransaction).toBe(true);
    // Another connection on the same file sees neither yet.
    expect(await t.db.selectFrom('estados_civis').select('id').where('nome', '=', nome).execute()).toHaveLength(0);
    expect(await marker(s.token)).toBeUndefined();
    await s.finish({ status: 201, contentType: 'application/json', body: '{"ok":1}' });
    expect(sqlite.inTransaction).toBe(false);
    expect(await t.db.selectFrom('estados_civis').select('id').where('nome', '=', nome).execute()).toHaveLength(1);
    expect(await marker(s.token)).toMatchObject({ status: 201, response: '{"ok":1}' });
  });

  it('abandon (no answer, e.g. a crash before it) rolls back the row and the marker', async () => {
    const s = scope();
    const nome = `estado ${randomUUID()}`;
    await s.run(() => db.transaction().execute((trx) => trx.insertInto('estados_civis').values({ nome }).execute()));
    s.abandon();
    expect(await estado(nome)).toHaveLength(0);
    expect(await marker(s.token)).toBeUndefined();
  });

  it('a transaction after an autocommit write is a savepoint: its rollback keeps the earlier write', async () => {
    const s = scope();
    const kept = `estado ${randomUUID()}`;
    const undone = `estado ${randomUUID()}`;
    await s.run(async () => {
      await db.insertInto('estados_civis').values({ nome: kept }).execute();
      await expect(
        db.transaction().execute(async (trx) => {
          await trx.insertInto('estados_civis').values({ nome: undone }).execute();
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      // Reads of the same request see its own uncommitted write.
      expect(await estado(kept)).toHaveLength(1);
    });
    await s.finish({ status: 200, contentType: null, body: '{}' });
    expect(await estado(kept)).toHaveLength(1);
    expect(await estado(undone)).toHaveLength(0);
  });

  it('other requests wait for the held write transaction instead of running inside it', async () => {
    const s = scope();
    const nome = `estado ${randomUUID()}`;
    await s.run(() => db.insertInto('estados_civis').values({ nome }).execute());
    let outsiderDone = false;
    const outsider = db
      .insertInto('estados_civis')
      .values({ nome: `${nome} fora` })
      .execute()
      .then(() => (outsiderDone = true));
    await new Promise((r) => setTimeout(r, 30));
    expect(outsiderDone).toBe(false);
    s.abandon();
    await outsider;
    expect(await estado(nome)).toHaveLength(0);
    expect(await estado(`${nome} fora`)).toHaveLength(1);
  });

  it('a request whose only mutation failed (unique index) changed nothing: no marker is committed', async () => {
    const s = scope();
    const [{ id }] = await db.selectFrom('estados_civis').select('id').limit(1).execute();
    await expect(
      s.run(() => db.insertInto('estados_civis').values({ id, nome: 'duplicado' }).execute()),
    ).rejects.toThrow(/UNIQUE|PRIMARY KEY/);
    await s.finish({ status: 422, contentType: 'application/json', body: '{"error":{}}' });
    expect(sqlite.inTransaction).toBe(false);
    expect(await marker(s.token)).toBeUndefined();
  });

  describe('group commit: parts of several write requests in one transaction (decisions P25-B2)', () => {
    /** A write request's part opened, and the promise of a second one still waiting for the connection. */
    const visible = async (nome: string) =>
      (await t.db.selectFrom('estados_civis').select('id').where('nome', '=', nome).execute()).length;

    it('requests that come while a part is open join its transaction; every answer waits for the one COMMIT of all', async () => {
      const [s1, s2] = [scope(), scope()];
      const [a, b] = [`estado ${randomUUID()}`, `estado ${randomUUID()}`];
      await s1.run(() => db.insertInto('estados_civis').values({ nome: a }).execute());
      const second = s2.run(() => db.insertInto('estados_civis').values({ nome: b }).execute());
      // s1 answers: its part is released to s2, which was waiting, and the transaction stays open for it.
      let firstDone = false;
      const first = s1
        .finish({ status: 201, contentType: 'application/json', body: '{"a":1}' })
        .then(() => (firstDone = true));
      await second;
      expect(sqlite.inTransaction).toBe(true);
      expect(firstDone).toBe(false);
      expect([await visible(a), await visible(b), await marker(s1.token)]).toEqual([0, 0, undefined]);
      let seenAtFirstAnswer: number[] = [];
      const firstSeen = first.then(async () => (seenAtFirstAnswer = [await visible(a), await visible(b)]));
      await s2.finish({ status: 201, contentType: 'application/json', body: '{"b":1}' });
      await firstSeen;
      // When the first answer may leave, both writes are committed: they went in together.
      expect(seenAtFirstAnswer).toEqual([1, 1]);
      expect(await marker(s1.token)).toMatchObject({ status: 201, response: '{"a":1}' });
      expect(await marker(s2.token)).toMatchObject({ status: 201, response: '{"b":1}' });
      expect(sqlite.inTransaction).toBe(false);
    });

    it('a read outside a write request gets the waiting group committed first: it never sees uncommitted rows', async () => {
      const s = scope();
      const nome = `estado ${randomUUID()}`;
      await s.run(() => db.insertInto('estados_civis').values({ nome }).execute());
      const answered = s.finish({ status: 201, contentType: null, body: '{}' });
      expect(sqlite.inTransaction).toBe(true);
      // Same event-loop turn, before the group would commit on its own: the read commits it, then reads.
      expect(await estado(nome)).toHaveLength(1);
      expect(sqlite.inTransaction).toBe(false);
      await answered;
    });

    it('a read inside a write request sees the group and makes that answer wait for the commit', async () => {
      const [writer, reader] = [scope(), scope()];
      const nome = `estado ${randomUUID()}`;
      await writer.run(() => db.insertInto('estados_civis').values({ nome }).execute());
      const read = reader.run(() => estado(nome));
      const written = writer.finish({ status: 201, contentType: null, body: '{}' });
      expect(await read).toHaveLength(1);
      expect(await visible(nome)).toBe(0);
      // The reader wrote nothing, yet its answer waits for the commit of what it read.
      await reader.finish({ status: 200, contentType: null, body: '{}' });
      expect(await visible(nome)).toBe(1);
      await written;
    });

    it('a part rolled back (abandoned, or whose only mutation failed) leaves the other parts of its group', async () => {
      const [kept, abandoned, failed] = [scope(), scope(), scope()];
      const [a, b] = [`estado ${randomUUID()}`, `estado ${randomUUID()}`];
      await kept.run(() => db.insertInto('estados_civis').values({ nome: a }).execute());
      const second = abandoned.run(() => db.insertInto('estados_civis').values({ nome: b }).execute());
      const [{ id }] = await t.db.selectFrom('estados_civis').select('id').limit(1).execute();
      const third = failed.run(() => db.insertInto('estados_civis').values({ id, nome: 'duplicado' }).execute());
      const keptDone = kept.finish({ status: 201, contentType: null, body: '{"kept":1}' });
      await second;
      abandoned.abandon();
      await expect(third).rejects.toThrow(/UNIQUE|PRIMARY KEY/);
      await failed.finish({ status: 422, contentType: null, body: '{}' });
      await keptDone;
      expect([await visible(a), await visible(b)]).toEqual([1, 0]);
      expect(
        [await marker(kept.token), await marker(abandoned.token), await marker(failed.token)].map(
          (m) => m?.response ?? null,
        ),
      ).toEqual(['{"kept":1}', null, null]);
    });

    it('a failed COMMIT fails every answer of the group, and nothing of it is committed', async () => {
      const [s1, s2] = [scope(), scope()];
      const [a, b] = [`estado ${randomUUID()}`, `estado ${randomUUID()}`];
      await s1.run(() => db.insertInto('estados_civis').values({ nome: a }).execute());
      // Foreign keys checked at COMMIT (for this transaction only), and a row that breaks one: the COMMIT fails.
      sqlite.pragma('defer_foreign_keys = ON');
      await s1.run(() =>
        db
          .insertInto('pacientes')
          .values({
            nome: 'SEM ESTADO',
            numero_prontuario: `fk-${randomUUID()}`,
            usuario: `fk${randomUUID()}`,
            senha_hash: 'x',
            criado_em: 'c',
            estado_civil_id: 999_999,
          })
          .execute(),
      );
      const second = s2.run(() => db.insertInto('estados_civis').values({ nome: b }).execute());
      const first = s1.finish({ status: 201, contentType: null, body: '{}' });
      await second;
      await expect(s2.finish({ status: 201, contentType: null, body: '{}' })).rejects.toThrow(/FOREIGN KEY/);
      await expect(first).rejects.toThrow(/FOREIGN KEY/);
      expect(sqlite.inTransaction).toBe(false);
      expect([await visible(a), await visible(b), await marker(s1.token), await marker(s2.token)]).toEqual([
        0,
        0,
        undefined,
        undefined,
      ]);
    });

    it('over HTTP: 30 concurrent creates with their own tokens are each committed with their marker and replay', async () => {
      const bodies = Array.from({ length: 30 }, () => novo());
      const tokens = bodies.map(() => newToken());
      const first = await Promise.all(bodies.map((b, i) => send('POST', '/tenants/demo/pacientes', b, tokens[i])));
      expect(first.map((r) => r.status)).toEqual(Array(30).fill(201));
      for (const [i, b] of bodies.entries()) {
        expect(await countNamed(b.nome)).toBe(1);
        expect((await marker(tokens[i]))?.response).toBe(first[i].text);
      }
      const again = await Promise.all(bodies.map((b, i) => send('POST', '/tenants/demo/pacientes', b, tokens[i])));
      expect(again.map((r) => [r.replay, r.text])).toEqual(first.map((r) => ['true', r.text]));
    });
  });

  it('outside a WriteScope the driver is plain Kysely: autocommit, no marker', async () => {
    const before = Number(
      (
        await db
          .selectFrom('idempotency_markers')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
    const nome = `estado ${randomUUID()}`;
    await db.insertInto('estados_civis').values({ nome }).execute();
    expect(sqlite.inTransaction).toBe(false);
    const after = Number(
      (
        await db
          .selectFrom('idempotency_markers')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
    expect(after).toBe(before);
  });
});
