import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { seedDefaultTenants } from '../../../seed/seed.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { hasCommands } from '../../helpers/tools.ts';

/**
 * The shell examples of docs/api/agenda.md and docs/api/prontuarios.md, and the first one of each other resource guide
 * (pacientes, exames, laudos, catalogos, medicos), run as written (bash, curl, openssl, node)
 * against a stack seeded by the real seed: the docs promise "signed examples that work on the seeded demo data".
 * Only the credential lines (API=, CRED=, KEY=) are replaced by this stack's URL and a demo key.
 */

const root = path.resolve(import.meta.dirname, '../../..');
const hasTools = hasCommands('bash', 'curl', 'openssl');

let stack: TestStack;
let workDir: string;

const bashBlocks = (doc: string) =>
  [...readFileSync(path.join(root, doc), 'utf8').matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]);

async function run(blocks: string[]): Promise<string> {
  const k = await stack.newKey({ tenant: 'demo' });
  const script = blocks
    .join('\n')
    .split('\n')
    .filter((line) => !/^(API|CRED|KEY)=/.test(line))
    .join('\n');
  const file = path.join(workDir, `run-${Date.now()}.sh`);
  writeFileSync(file, `API=${stack.gatewayUrl}\nKEY=${k.apiKey}\nSECRET=${k.apiSecret}\n${script}\n`);
  // Asynchronous: the gateway answering curl runs in this process.
  const { stdout } = await promisify(execFile)('bash', [file], {
    cwd: workDir,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

/** The JSON value starting at `from` (curl -i prints the body without a trailing newline, so the next output follows it). */
function jsonAt(text: string, from: number): string {
  let depth = 0;
  let inString = false;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return text.slice(from, i + 1);
  }
  throw new Error(`unterminated JSON at ${from}`);
}

/** Status and JSON body of every answer printed by curl -i, in order. */
const answers = (out: string) =>
  [...out.matchAll(/HTTP\/1\.1 (\d{3})[^\n]*\n[\s\S]*?\r\n\r\n/g)].map((m) => ({
    status: Number(m[1]),
    body: JSON.parse(jsonAt(out, m.index! + m[0].length)),
  }));

beforeAll(async () => {
  if (!hasTools) return;
  stack = await startTestStack();
  workDir = mkdtempSync(path.join(tmpdir(), 'docs-examples-'));
  await seedDefaultTenants(stack.dataDir);
  await stack.createTenant('demo');
});

afterAll(async () => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
  await stack?.stop();
});

test.skipIf(!hasTools)(
  'docs/api/agenda.md: slot → 201 booking → CONFLICT → read → reschedule → cancel, replay, INVALID_STATE → booking without a registered patient',
  async () => {
    const got = answers(await run(bashBlocks('docs/api/agenda.md')));
    expect(got.map((a) => [a.status, a.body.error?.code ?? null])).toEqual([
      [200, null], // slots
      [201, null], // booking
      [422, 'CONFLICT'],
      [200, null], // detail
      [200, null], // patient's list
      [200, null], // reschedule
      [200, null], // cancel
      [200, null], // same key: replay
      [422, 'INVALID_STATE'], // new key
      [201, null], // without paciente_id
    ]);
    const [, booking, , , , moved, cancelled, replay, , snapshot] = got;
    expect(booking.body.data).toMatchObject({ status: 'agendado', paciente: { id: 1 }, procedimento: { id: 21 } });
    expect(moved.body.data).toMatchObject({
      id: booking.body.data.id,
      status: 'agendado',
      reagendado_motivo: 'Paciente pediu outro horario',
    });
    expect(cancelled.body.meta.idempotent_replay).toBe(false);
    expect(replay.body.meta.idempotent_replay).toBe(true);
    expect(replay.body.data).toEqual(cancelled.body.data);
    expect(snapshot.body.data.paciente).toEqual({ id: null, nome: 'MARIA SEM CADASTRO' });
  },
);

test.skipIf(!hasTools)(
  'docs/api/prontuarios.md: record with a PDF → listings → presigned download identical to the upload',
  async () => {
    // The setup block (call, json) comes from agenda.md, as the page says.
    const out = await run([bashBlocks('docs/api/agenda.md')[0], ...bashBlocks('docs/api/prontuarios.md')]);
    const got = answers(out);
    expect(got.map((a) => a.status)).toEqual([201, 200, 200]);
    expect(got[0].body.data.anexos[0]).toMatchObject({ descricao: 'Pedido medico', extensao: 'PDF' });
    expect(out).toContain('identico');
  },
);

/** The answers to a guide's first shell example, run as written after agenda.md's setup block (the `call` helper). */
const firstExample = async (doc: string) =>
  answers(await run([bashBlocks('docs/api/agenda.md')[0], bashBlocks(doc)[0]]));

test.skipIf(!hasTools)(
  "docs/api/pacientes.md's first example lists the seeded clinic's patients it announces (3)",
  async () => {
    const [list] = await firstExample('docs/api/pacientes.md');
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(3);
    for (const patient of list.body.data) {
      expect(patient.nome).toMatch(/SILVA/);
      expect(patient.ativo).toBe(true);
    }
  },
);

test.skipIf(!hasTools)("docs/api/exames.md's first example lists signed-report exams", async () => {
  const [list] = await firstExample('docs/api/exames.md');
  expect(list.status).toBe(200);
  expect(list.body.data).toHaveLength(2);
  expect(list.body.meta.has_more).toBe(true);
  for (const exam of list.body.data) expect(exam.status_laudo).toBe('ASSINADO');
});

test.skipIf(!hasTools)(
  "docs/api/laudos.md's first example lists signed reports and reads the orphan report it names",
  async () => {
    const [list, orphan] = await firstExample('docs/api/laudos.md');
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(2);
    expect(orphan.status).toBe(200);
    expect(orphan.body.data).toMatchObject({ id: 562, exame: null, tem_arquivo: false, url_arquivo: null });
  },
);

test.skipIf(!hasTools)(
  "docs/api/catalogos.md's and medicos.md's first examples find what they announce (the three radiographs, Ricardo)",
  async () => {
    const [procedures] = await firstExample('docs/api/catalogos.md');
    expect(procedures.status).toBe(200);
    expect(procedures.body.data.length).toBeGreaterThan(0);
    expect(procedures.body.data.map((p: { nome: string }) => p.nome)).toEqual([
      'Radiografia de coluna lombossacra',
      'Radiografia de joelho',
      'Radiografia de tórax PA e perfil',
    ]);
    const [doctors] = await firstExample('docs/api/medicos.md');
    expect(doctors.status).toBe(200);
    expect(doctors.body.data).toEqual([
      expect.objectContaining({ nome: 'Ricardo Rocha Azevedo', papeis: expect.arrayContaining(['EXAME', 'LAUDO']) }),
    ]);
  },
);
