import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantDatabase } from '../../../backend-sim/db/database.ts';
import { verifyPassword } from '../../../backend-sim/lib/password.ts';
import { arrangeCatalog, createTenant, startHarness, VALID_CPFS, type Harness } from '../helpers.ts';

let h: Harness;
let t: TenantDatabase;
const base = '/tenants/demo/pacientes';
beforeAll(async () => {
  h = await startHarness();
  t = await createTenant(h, 'demo');
  await arrangeCatalog(t);
});
afterAll(() => h.close());

let seq = 0;
const novo = (extra: Record<string, unknown> = {}) => ({
  nome: `paciente teste ${++seq}`,
  data_nascimento: '1990-05-06',
  ...extra,
});

describe('POST /pacientes', () => {
  it('creates with upper-case name, auto record number, key id and write-shaped convenio', async () => {
    const res = await h.call(
      'POST',
      base,
      novo({ nome: 'joão  silva', convenio: { id: 1, plano_id: 1, numero_carteirinha: '999' }, estado_civil_id: 2 }),
      { 'x-chave-id': '42' },
    );
    expect(res.status).toBe(201);
    const p = res.body.data;
    expect(p.nome).toBe('JOÃO  SILVA');
    expect(p.numero_prontuario).toBe(String(p.id));
    expect(p.criado_por_chave_id).toBe(42);
    expect(p.atualizado_em).toBeNull();
    expect(p.convenio).toEqual({ id: 1, plano_id: 1, numero_carteirinha: '999' });
    expect(p.estado_civil).toEqual({ id: 2, nome: 'Casado(a)' });
    expect(p).not.toHaveProperty('usuario');
    expect(p).not.toHaveProperty('senha');
    const read = await h.call('GET', `${base}/${p.id}`);
    expect(read.body.data.convenio).toEqual({ id: 1, nome: 'Unimed', numero_carteirinha: '999' });
  });

  it('stores the password as an scrypt hash and honours senha_temporaria', async () => {
    const res = await h.call(
      'POST',
      base,
      novo({ usuario: 'Maria.Portal', senha: 'segredo1', senha_temporaria: false }),
    );
    expect(res.status).toBe(201);
    const row = await t.db
      .selectFrom('pacientes')
      .selectAll()
      .where('id', '=', res.body.data.id)
      .executeTakeFirstOrThrow();
    expect(row.senha_hash).toMatch(/^scrypt\$/);
    expect(row.senha_hash).not.toContain('segredo1');
    expect(await verifyPassword('segredo1', row.senha_hash)).toBe(true);
    expect(row.senha_temporaria).toBe(0);
    expect(row.usuario).toBe('Maria.Portal');
    const semSenha = await h.call('POST', base, novo());
    const row2 = await t.db
      .selectFrom('pacientes')
      .selectAll()
      .where('id', '=', semSenha.body.data.id)
      .executeTakeFirstOrThrow();
    expect(row2.senha_temporaria).toBe(1);
    expect(row2.usuario).toMatch(/^pac[0-9a-f]{12}$/);
  });

  it('tenant-required cpf and celular give 422 BUSINESS_RULE naming the field', async () => {
    await h.call('PATCH', '/tenants/demo/settings', { cpf_obrigatorio: true, celular_obrigatorio: true });
    try {
      const semCpf = await h.call('POST', base, novo({ celular: '11987654321' }));
      expect(semCpf.status).toBe(422);
      expect(semCpf.body.error.code).toBe('BUSINESS_RULE');
      expect(semCpf.body.error.message).toContain('cpf');
      expect(semCpf.body.error.details.field).toBe('cpf');
      const semCel = await h.call('POST', base, novo({ cpf: VALID_CPFS[3] }));
      expect(semCel.status).toBe(422);
      expect(semCel.body.error.message).toContain('celular');
    } finally {
      await h.call('PATCH', '/tenants/demo/settings', { cpf_obrigatorio: false, celular_obrigatorio: false });
    }
    expect((await h.call('POST', base, novo())).status).toBe(201);
  });

  it('bad CPF check digits give 400 VAL_BACKEND', async () => {
    const res = await h.call('POST', base, novo({ cpf: '52998224724' }));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VAL_BACKEND', details: { field: 'cpf' } });
  });

  it('duplicates give CPF / record / usuario conflicts with the existing patient', async () => {
    const a = (
      await h.call('POST', base, novo({ cpf: VALID_CPFS[0], numero_prontuario: 'PR-77', usuario: 'Dup.User' }))
    ).body.data;
    const cpf = await h.call('POST', base, novo({ cpf: VALID_CPFS[0] }));
    expect(cpf.status).toBe(422);
    expect(cpf.body.error).toMatchObject({
      code: 'CPF_ALREADY_EXISTS',
      details: { paciente_id_existente: a.id, nome: a.nome },
    });
    const pr = await h.call('POST', base, novo({ numero_prontuario: 'PR-77' }));
    expect(pr.body.error).toMatchObject({
      code: 'MEDICAL_RECORD_ALREADY_EXISTS',
      details: { paciente_id_existente: a.id },
    });
    const us = await h.call('POST', base, novo({ usuario: 'dup.user' }));
    expect(us.status).toBe(422);
    expect(us.body.error).toMatchObject({
      code: 'USUARIO_ALREADY_EXISTS',
      details: { paciente_id_existente: a.id, nome: a.nome },
    });
  });

  it('several rules broken by different patients: CPF reported first, then record number, then usuario', async () => {
    const byCpf = (await h.call('POST', base, novo({ cpf: '12345678909' }))).body.data;
    const byRecord = (await h.call('POST', base, novo({ numero_prontuario: 'PR-ORDEM' }))).body.data;
    const byUsuario = (await h.call('POST', base, novo({ usuario: 'ordem.user' }))).body.data;
    const all = await h.call(
      'POST',
      base,
      novo({ cpf: '12345678909', numero_prontuario: 'PR-ORDEM', usuario: 'ORDEM.user' }),
    );
    expect(all.body.error).toMatchObject({
      code: 'CPF_ALREADY_EXISTS',
      details: { paciente_id_existente: byCpf.id, nome: byCpf.nome },
    });
    const two = await h.call('POST', base, novo({ numero_prontuario: 'PR-ORDEM', usuario: 'ORDEM.user' }));
    expect(two.body.error).toMatchObject({
      code: 'MEDICAL_RECORD_ALREADY_EXISTS',
      details: { paciente_id_existente: byRecord.id, nome: byRecord.nome },
    });
    const one = await h.call('POST', base, novo({ usuario: 'ORDEM.user' }));
    expect(one.body.error).toMatchObject({
      code: 'USUARIO_ALREADY_EXISTS',
      details: { paciente_id_existente: byUsuario.id, nome: byUsuario.nome },
    });
  });

  it('auto record number: the id, or the id suffixed when that number was typed by hand', async () => {
    const first = (await h.call('POST', base, novo())).body.data;
    expect(first.numero_prontuario).toBe(String(first.id));
    // Takes the number the next patient's id would give.
    const typed = (await h.call('POST', base, novo({ numero_prontuario: String(first.id + 2) }))).body.data;
    expect(typed.id).toBe(first.id + 1);
    const next = (await h.call('POST', base, novo())).body.data;
    expect(next.id).toBe(first.id + 2);
    expect(next.numero_prontuario).toBe(`${next.id}-1`);
  });

  it('answers the detail a read gives (endereco with cidade, estado civil)', async () => {
    const created = await h.call(
      'POST',
      base,
      novo({
        cpf: '12345790067',
        estado_civil_id: 1,
        endereco: { cep: '01000-000', numero: 12, cidade_id: 2, estado: 'sp' },
        celular: '11999990000',
      }),
    );
    expect(created.status).toBe(201);
    expect(created.body.data.endereco).toMatchObject({ cidade: 'Campinas', cidade_id: 2, numero: '12', estado: 'SP' });
    expect(created.body.data.estado_civil).toEqual({ id: 1, nome: 'Solteiro(a)' });
    const read = await h.call('GET', `${base}/${created.body.data.id}`);
    // The same fields and values; a read is written in its contract schema's key order (lib/http.ts readRoute).
    expect(created.body.data).toStrictEqual(read.body.data);
  });

  it('concurrent creates with one CPF: exactly one wins, the others get CPF_ALREADY_EXISTS (never a 500)', async () => {
    const results = await Promise.all([0, 1, 2, 3, 4].map(() => h.call('POST', base, novo({ cpf: '86288366757' }))));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    const winner = results.find((r) => r.status === 201)!.body.data;
    for (const r of results.filter((x) => x.status !== 201))
      expect(r.body.error).toMatchObject({ code: 'CPF_ALREADY_EXISTS', details: { paciente_id_existente: winner.id } });
  });

  it('unknown references are a BUSINESS_RULE', async () => {
    const res = await h.call('POST', base, novo({ convenio: { id: 1, plano_id: 2 } }));
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'BUSINESS_RULE', details: { field: 'convenio.plano_id' } });
    expect((await h.call('POST', base, novo({ estado_civil_id: 99 }))).body.error.code).toBe('BUSINESS_RULE');
  });
});

describe('GET /pacientes', () => {
  it('filters by name contains (case-insensitive), cpf, ativo and period, with total and paging', async () => {
    await h.call('POST', base, novo({ nome: 'Zulmira Alves Filtro', cpf: VALID_CPFS[1] }));
    await h.call('POST', base, novo({ nome: 'Zeca Filtro Inativo', ativo: false }));
    const byName = await h.call('GET', `${base}?nome=filtro`);
    expect(byName.body.meta.total).toBe(2);
    expect(byName.body.data.every((p: { nome: string }) => p.nome.includes('FILTRO'))).toBe(true);
    const ativos = await h.call('GET', `${base}?nome=filtro&ativo=1`);
    expect(ativos.body.data.map((p: { nome: string }) => p.nome)).toEqual(['ZULMIRA ALVES FILTRO']);
    const byCpf = await h.call('GET', `${base}?cpf=${VALID_CPFS[1]}`);
    expect(byCpf.body.meta.total).toBe(1);
    expect(byCpf.body.data[0]).toMatchObject({ cpf: VALID_CPFS[1], ativo: true, sexo: null });
    const page = await h.call('GET', `${base}?limit=1&offset=1`);
    expect(page.body.data).toHaveLength(1);
    expect(page.body.meta.total).toBeGreaterThan(2);
  });

  it('period filter is inclusive to the end of the last day', async () => {
    const { id } = (await h.call('POST', base, novo({ nome: 'Periodo Teste' }))).body.data;
    await t.db.updateTable('pacientes').set({ criado_em: '2024-03-10T23:59:59Z' }).where('id', '=', id).execute();
    const inside = await h.call('GET', `${base}?periodo_cadastro_inicio=2024-03-10&periodo_cadastro_fim=2024-03-10`);
    expect(inside.body.data.map((p: { id: number }) => p.id)).toEqual([id]);
    const after = await h.call('GET', `${base}?periodo_cadastro_inicio=2024-03-11`);
    expect(after.body.data.map((p: { id: number }) => p.id)).not.toContain(id);
  });

  it('unknown id gives 404 RES_NOT_FOUND', async () => {
    const res = await h.call('GET', `${base}/999999`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('RES_NOT_FOUND');
  });
});

describe('PATCH /pacientes/:id', () => {
  it('merge-patch: omitted untouched, null/"" reset, sub-objects replaced whole, key id recorded', async () => {
    const p = (
      await h.call(
        'POST',
        base,
        novo({
          telefone: '1133334444',
          email: 'a@b.com',
          rg: '123',
          endereco: { cep: '01001000', logradouro: 'Rua A', numero: '10', cidade_id: 1, estado: 'SP' },
          convenio: { id: 1, plano_id: 1, numero_carteirinha: '5' },
        }),
        { 'x-chave-id': '5' },
      )
    ).body.data;
    const res = await h.call(
      'PATCH',
      `${base}/${p.id}`,
      { telefone: null, email: '', endereco: { logradouro: 'Rua B' } },
      { 'x-chave-id': '6' },
    );
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d.telefone).toBeNull();
    expect(d.email).toBeNull();
    expect(d.rg).toBe('123');
    expect(d.endereco).toMatchObject({ cep: '', logradouro: 'Rua B', numero: '', cidade: '', estado: '' });
    expect(d.convenio).toEqual({ id: 1, plano_id: 1, numero_carteirinha: '5' });
    expect(d.criado_por_chave_id).toBe(5);
    expect(d.atualizado_por_chave_id).toBe(6);
    expect(d.atualizado_em).not.toBeNull();
    const cleared = await h.call('PATCH', `${base}/${p.id}`, { convenio: {}, endereco: null });
    expect(cleared.body.data.convenio).toBeNull();
    expect(cleared.body.data.endereco.logradouro).toBe('');
  });

  it("own CPF / usuario is fine, another patient's is a conflict", async () => {
    const a = (await h.call('POST', base, novo({ cpf: VALID_CPFS[2], usuario: 'own.user' }))).body.data;
    const b = (await h.call('POST', base, novo())).body.data;
    expect((await h.call('PATCH', `${base}/${a.id}`, { cpf: VALID_CPFS[2], usuario: 'OWN.user' })).status).toBe(200);
    const conflict = await h.call('PATCH', `${base}/${b.id}`, { cpf: VALID_CPFS[2] });
    expect(conflict.status).toBe(422);
    expect(conflict.body.error).toMatchObject({ code: 'CPF_ALREADY_EXISTS', details: { paciente_id_existente: a.id } });
    expect((await h.call('PATCH', `${base}/${b.id}`, { usuario: 'own.USER' })).body.error.code).toBe(
      'USUARIO_ALREADY_EXISTS',
    );
  });

  it('404 for a missing patient; nome cannot be reset', async () => {
    expect((await h.call('PATCH', `${base}/999999`, { telefone: '1' })).status).toBe(404);
    const p = (await h.call('POST', base, novo())).body.data;
    expect((await h.call('PATCH', `${base}/${p.id}`, { nome: null })).body.error.code).toBe('BUSINESS_RULE');
  });
});

describe('POST /pacientes/unificar', () => {
  it('moves every reference to the principal and deletes the duplicate', async () => {
    const principal = (await h.call('POST', base, novo())).body.data.id;
    const dup = (await h.call('POST', base, novo())).body.data.id;
    const now = '2026-01-01T00:00:00Z';
    const { id: exameId } = await t.db
      .insertInto('exames')
      .values({
        paciente_id: dup,
        procedimento_id: 1,
        data_realizado: '2026-01-01',
        requer_laudo: 1,
        prioridade: 1,
        laudo_central: 0,
        exportado_central: 0,
        criado_em: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await t.db
      .insertInto('laudos')
      .values({ exame_id: exameId, data_laudo: '2026-01-02', assinado: 1, criado_em: now })
      .execute();
    await t.db
      .insertInto('agenda_configs')
      .values({
        nome: 'Agenda U',
        tipo_vinculo: 'sala',
        sala_id: 1,
        unidade_id: 1,
        data_inicio: '2026-01-01',
        criado_em: now,
      })
      .execute();
    await t.db
      .insertInto('agendamentos')
      .values({
        agenda_config_id: 1,
        paciente_id: dup,
        unidade_id: 1,
        procedimento_id: 1,
        convenio_id: 0,
        data_agendamento: '2026-02-01',
        hora_inicio: '08:00',
        hora_fim: '08:30',
        status: 'agendado',
        criado_em: now,
      })
      .execute();
    const { id: prontId } = await t.db
      .insertInto('prontuarios')
      .values({ paciente_id: dup, data_emissao: now, mensagem: 'x', criado_em: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    await t.db
      .insertInto('prontuario_anexos')
      .values({
        paciente_id: dup,
        prontuario_id: prontId,
        descricao: 'a',
        nome_arquivo: 'a.pdf',
        extensao: 'PDF',
        tamanho: 1,
        object_key: 'k',
        criado_em: now,
      })
      .execute();

    const res = await h.call('POST', `${base}/unificar`, {
      paciente_id_principal: principal,
      paciente_id_duplicado: String(dup),
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      paciente_id_principal: principal,
      paciente_id_duplicado: dup,
      status: 'unificado',
    });
    for (const table of ['exames', 'agendamentos', 'prontuarios', 'prontuario_anexos'] as const) {
      const rows = await t.db.selectFrom(table).select('paciente_id').execute();
      expect(
        rows.some((r) => r.paciente_id === dup),
        table,
      ).toBe(false);
      expect(
        rows.some((r) => r.paciente_id === principal),
        table,
      ).toBe(true);
    }
    expect((await h.call('GET', `${base}/${dup}`)).status).toBe(404);
    const again = await h.call('POST', `${base}/unificar`, {
      paciente_id_principal: principal,
      paciente_id_duplicado: dup,
    });
    expect(again.status).toBe(422);
    expect(again.body.error.code).toBe('BUSINESS_RULE');
  });

  it('equal ids give PACIENTES_UNIFICACAO_MESMO_ID; missing principal a BUSINESS_RULE', async () => {
    const same = await h.call('POST', `${base}/unificar`, { paciente_id_principal: 3, paciente_id_duplicado: 3 });
    expect(same.status).toBe(422);
    expect(same.body.error).toMatchObject({
      code: 'PACIENTES_UNIFICACAO_MESMO_ID',
      details: { field: 'paciente_id_duplicado' },
    });
    const missing = await h.call('POST', `${base}/unificar`, {
      paciente_id_principal: 999999,
      paciente_id_duplicado: 1,
    });
    expect(missing.body.error).toMatchObject({ code: 'BUSINESS_RULE', details: { field: 'paciente_id_principal' } });
  });
});
