import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { openGatewayDb } from '../server/db/database.ts';
import { IdempotencyStore, operationIdentity, type OperationKey } from '../server/idempotency/idempotency.store.ts';

/**
 * `npx tsx bench/idempotency-store.ts`: the idempotency store's cost per write on a real gateway.db
 * (WAL, synchronous=NORMAL), the two calls every write makes (reserve, then complete with a patient-sized
 * response), and the cost of a replay. Prints µs per operation; N from BENCH_N (default 20,000).
 */
const N = Number(process.env.BENCH_N ?? 20_000);
const dataDir = mkdtempSync(path.join(tmpdir(), 'idem-bench-'));
const opened = await openGatewayDb(dataDir);
const store = new IdempotencyStore(opened.sqlite, 45_000, randomBytes(32));

const patient = JSON.stringify({
  id: 123456,
  saudacao: null,
  nome: 'Maria Aparecida da Silva Souza',
  nome_registro: null,
  numero_prontuario: '000123456',
  cpf: '12345678909',
  rg: '12.345.678-9',
  data_nascimento: '1985-06-15',
  sexo: 'F',
  estado_civil: { id: 2, nome: 'Casado(a)' },
  telefone: '1133334444',
  celular: '11999998888',
  email: 'maria.souza@example.com',
  endereco: {
    logradouro: 'Rua das Flores',
    numero: '123',
    complemento: 'apto 45',
    bairro: 'Centro',
    cep: '13010000',
    cidade: { id: 1, nome: 'Campinas', uf: 'SP' },
  },
  convenio: { id: 1, nome: 'UNIMED', plano: { id: 1, nome: 'Ouro' }, numero_carteirinha: '0001234567890' },
  ativo: true,
  criado_em: '2026-11-21T12:00:00.000Z',
  atualizado_em: '2026-11-21T12:00:00.000Z',
  criado_por_chave_id: 1,
  atualizado_por_chave_id: 1,
});
const response = { status: 201, headers: { location: '/v1/pacientes/123456' }, body: patient };
const hash = 'a'.repeat(64);
const CREATE = operationIdentity('POST', '/v1/pacientes', {});
const op = (i: number): OperationKey => ({
  chaveId: 1,
  idemKey: `bench-${i}`,
  method: 'POST',
  path: '/v1/pacientes',
  operation: CREATE,
});

const time = (label: string, fn: (i: number) => void): void => {
  for (let i = 0; i < 500; i++) fn(N + i); // warm-up
  const start = process.hrtime.bigint();
  for (let i = 0; i < N; i++) fn(i);
  const us = Number(process.hrtime.bigint() - start) / 1000 / N;
  console.log(`${label.padEnd(28)} ${us.toFixed(1)} µs/op  (n=${N}, body ${patient.length} B)`);
};

time('write (reserve + complete)', (i) => {
  store.reserve(op(i), hash);
  store.complete(op(i), response);
});
time('replay (reserve → replay)', (i) => {
  const r = store.reserve(op(i), hash);
  if (r.kind !== 'replay') throw new Error(`expected a replay, got ${r.kind}`);
});

await opened.close();
rmSync(dataDir, { recursive: true, force: true });
