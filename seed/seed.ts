import type SQLite from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { cpfCheckDigits } from '../backend-sim/lib/cpf.ts';
import { hashPasswordWithSalt } from '../backend-sim/lib/password.ts';
import { addDays, fromMinutes, isoSeconds, weekday } from '../backend-sim/lib/time.ts';
import { SEED_SAMPLES } from '../backend-sim/seed-samples.ts';
import { ContagemBuilder, rebuildCounts, rebuildSearchIndexes } from '../backend-sim/db/derived.ts';
import { createTenantDatabase, tenantFile } from '../backend-sim/tenants.ts';
import * as D from './data.ts';
import { Random } from './random.ts';

export type SeedProfile = 'rich' | 'synthetic';

export interface SeedProgress {
  phase: 'catalogos' | 'pacientes' | 'exames' | 'agendamentos' | 'prontuarios' | 'indices';
  done: number;
  total: number;
}

export interface SeedSettings {
  cpf_obrigatorio?: boolean;
  celular_obrigatorio?: boolean;
  solicitante_obrigatorio?: boolean;
  medico_laudo_obrigatorio?: boolean;
  /** Whether exam-create defaults (unit, doctors, insurer) are filled; default true. */
  defaults?: boolean;
}

export interface SeedOptions {
  dataDir: string;
  slug: string;
  seed: string | number;
  patients: number;
  exams: number;
  appointments: number;
  profile: SeedProfile;
  nome?: string;
  settings?: SeedSettings;
  /** Dates derive from this instant, never from the wall clock (default 2026-11-01T12:00:00Z). */
  referenceDate?: string;
  onProgress?: (p: SeedProgress) => void;
}

export interface SeedResult {
  slug: string;
  /** Doctor ids by role, so keys can be bound to doctors. */
  medicos: { exame: number[]; laudo: number[]; solicitante: number[] };
  counts: { pacientes: number; exames: number; laudos: number; agendamentos: number; prontuarios: number };
  file: string;
}

export const DEFAULT_REFERENCE_DATE = '2026-11-01T12:00:00Z';
const BATCH = 10_000;
const TABLES_IN_DELETE_ORDER = [
  'agendamento_historico', 'agendamentos', 'agenda_convenios_bloqueados', 'agenda_procedimentos', 'agenda_horarios', 'agenda_configs',
  'prontuario_anexos', 'prontuarios', 'laudos', 'exame_arquivos', 'exames', 'grupos_laudos_medicos', 'grupos_laudos',
  'pacientes', 'medicos', 'planos', 'convenios', 'procedimentos', 'salas', 'unidades', 'complementos', 'cids', 'cidades',
  'grupos_permissao', 'saudacoes', 'estados_civis',
];

const ascii = (s: string) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '');

const MINUTO_MS = 60_000;
const DIA_MS = 86_400_000;
/** Last second of the office hours the generator draws clock times in (07:00:00-19:59:59). */
const FIM_EXPEDIENTE = 19 * 3600 + 59 * 60 + 59;
const segundos = (hhmmss: string): number => {
  const [h, m, s] = hhmmss.split(':').map(Number);
  return h * 3600 + m * 60 + (s ?? 0);
};
const hhmmssDe = (total: number): string =>
  [Math.floor(total / 3600), Math.floor(total / 60) % 60, total % 60].map((n) => String(n).padStart(2, '0')).join(':');

/**
 * Clock times of the past: a time drawn for `data` is kept inside [`desde`, the end of the office hours]
 * of that day, and on the reference day never after the reference instant (nothing seeded lies in the
 * future). A time already inside stays as drawn; one outside wraps into the window, so the spread is kept
 * and no extra draw changes the rest of the data.
 */
export function horaNoPassado(data: string, hora: string, referencia: Date, desde = 0): string {
  const refData = isoSeconds(referencia).slice(0, 10);
  const refSegundos = Math.floor((referencia.getTime() % DIA_MS) / 1000);
  const ate = data === refData ? Math.min(FIM_EXPEDIENTE, refSegundos) : FIM_EXPEDIENTE;
  const de = Math.min(desde, ate);
  const t = segundos(hora);
  const n = ate - de + 1;
  return hhmmssDe(t >= de && t <= ate ? t : de + ((((t - de) % n) + n) % n));
}

type Transicao = [anterior: string | null, novo: string, observacao: string | null];

/**
 * When each step of an appointment's history happened, oldest first: each at its natural moment (the
 * reminder two days before, the confirmation the day before, check-in, care and end around the slot,
 * a no-show after it), but strictly after the step before it, and none after the reference instant: the
 * steps a future appointment already went through are spread between its booking and the reference.
 */
export function momentosDoHistorico(caminho: Transicao[], criadoMs: number, data: string, inicioMs: number, fimMs: number, referenciaMs: number): number[] {
  const natural = (novo: string): number => {
    switch (novo) {
      case 'aguardando_confirmacao':
        return Date.parse(`${addDays(data, -2)}T10:00:00Z`);
      case 'confirmado':
        return Date.parse(`${addDays(data, -1)}T16:00:00Z`);
      case 'cancelado':
        return Date.parse(`${addDays(data, -1)}T09:00:00Z`);
      case 'checkin':
        return inicioMs - 15 * MINUTO_MS;
      case 'em_atendimento':
        return inicioMs;
      case 'finalizado':
        return fimMs;
      default: // nao_compareceu: noted once the slot is over
        return fimMs + 30 * MINUTO_MS;
    }
  };
  const momentos = [criadoMs];
  for (let k = 1; k < caminho.length; k++) {
    const anterior = momentos[k - 1];
    let t = Math.max(natural(caminho[k][1]), anterior + MINUTO_MS);
    if (t > referenciaMs) {
      // Not yet at its natural moment: an even share of what is left before the reference, whole minutes.
      const restantes = caminho.length - k;
      t = anterior + Math.max(1, Math.floor((referenciaMs - anterior) / (restantes + 1) / MINUTO_MS)) * MINUTO_MS;
    }
    momentos.push(t);
  }
  return momentos;
}

/** Positional prepared INSERT for a table. */
function inserter(sqlite: SQLite.Database, table: string, columns: string[]) {
  const stmt = sqlite.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
  return (...values: unknown[]) => stmt.run(...values);
}

/** Runs `count` generator steps in transactions of BATCH rows, reporting progress per batch. */
function batched(sqlite: SQLite.Database, count: number, step: (i: number) => void, progress: (done: number) => void) {
  for (let start = 0; start < count; start += BATCH) {
    const end = Math.min(count, start + BATCH);
    sqlite.transaction(() => {
      for (let i = start; i < end; i++) step(i);
    })();
    progress(end);
  }
}

export async function seedTenant(options: SeedOptions): Promise<SeedResult> {
  const { dataDir, slug, profile } = options;
  for (const k of ['patients', 'exams', 'appointments'] as const)
    if (!Number.isInteger(options[k]) || options[k] < 0) throw new Error(`${k} must be a non-negative integer`);
  if (options.patients === 0 && (options.exams > 0 || options.appointments > 0)) throw new Error('exams and appointments need at least one patient');
  const rich = profile === 'rich';
  const ref = new Date(options.referenceDate ?? DEFAULT_REFERENCE_DATE);
  if (Number.isNaN(ref.getTime())) throw new Error('invalid referenceDate');
  const refDate = isoSeconds(ref).slice(0, 10);
  const rnd = new Random(`${options.seed}`);
  const report = (phase: SeedProgress['phase'], total: number) => (done: number) => options.onProgress?.({ phase, done, total });

  const tenant = await createTenantDatabase(dataDir, slug);
  const sqlite = tenant.sqlite;
  let deferred: DeferredSchema | null = null;
  let failed = false;
  try {
    // Bulk-load settings: no FK checks, no fsync, the rollback journal in memory instead of the WAL (pages
    // are written once, not to the WAL and again at the checkpoint); all restored before returning.
    sqlite.pragma('foreign_keys = OFF');
    sqlite.pragma('synchronous = OFF');
    sqlite.pragma('cache_size = -131072');
    sqlite.pragma('temp_store = MEMORY');
    // Leaving WAL needs the only connection: with a running backend-sim on the file the load stays in WAL.
    try {
      sqlite.pragma('journal_mode = MEMORY');
    } catch {
      // SQLITE_BUSY: keep WAL.
    }
    deferred = deferSchema(sqlite);
    // Rows are deleted, not the file, so a running backend-sim keeps a valid connection.
    sqlite.transaction(() => {
      for (const t of TABLES_IN_DELETE_ORDER) sqlite.prepare(`DELETE FROM ${t}`).run();
    })();

    const salt = createHash('sha256').update(`seed-salt:${options.seed}`).digest().subarray(0, 16);
    const senhaPaciente = hashPasswordWithSalt('paciente123', salt);
    const senhaMedico = hashPasswordWithSalt('medico123', salt);
    const criadoCatalogo = isoSeconds(new Date(ref.getTime() - 3 * 365 * 86400_000));

    // ---------- catalogs ----------
    options.onProgress?.({ phase: 'catalogos', done: 0, total: 1 });
    const medicoIds = { exame: [] as number[], laudo: [] as number[], solicitante: [] as number[] };
    const procedimentosComImagem: number[] = [];
    const procedimentoIds: number[] = [];
    const planosPorConvenio = new Map<number, number[]>();
    sqlite.transaction(() => {
      D.ESTADOS_CIVIS.forEach((n, i) => sqlite.prepare('INSERT INTO estados_civis (id, nome) VALUES (?, ?)').run(i + 1, n));
      D.SAUDACOES_MEDICO.forEach((n, i) => sqlite.prepare('INSERT INTO saudacoes (id, nome) VALUES (?, ?)').run(i + 1, n));
      D.GRUPOS_PERMISSAO.forEach((n, i) => sqlite.prepare('INSERT INTO grupos_permissao (id, nome) VALUES (?, ?)').run(i + 1, n));
      D.CIDADES.forEach(([nome, uf], i) => sqlite.prepare('INSERT INTO cidades (id, nome, uf) VALUES (?, ?, ?)').run(i + 1, nome, uf));
      D.PROCEDIMENTOS.forEach(([nome, abrev, tuss, desc, laudo, imagens], i) => {
        sqlite
          .prepare('INSERT INTO procedimentos (id, nome, abreviacao, codigo_tuss, descricao_tuss, requer_laudo, possui_imagens, ativo) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
          .run(i + 1, nome, abrev, tuss, desc, laudo, imagens, 1);
        if (laudo) procedimentoIds.push(i + 1);
        if (imagens) procedimentosComImagem.push(i + 1);
      });
      let planoId = 1;
      D.CONVENIOS.forEach(([nome, abrev, ans, planos], i) => {
        sqlite.prepare('INSERT INTO convenios (id, nome, abreviacao, codigo_ans, ativo) VALUES (?, ?, ?, ?, 1)').run(i + 1, nome, abrev, ans);
        const ids: number[] = [];
        for (const p of planos) {
          sqlite.prepare('INSERT INTO planos (id, convenio_id, nome, codigo_ans, ativo) VALUES (?, ?, ?, ?, 1)').run(planoId, i + 1, p, `${ans}${String(ids.length + 1).padStart(3, '0')}`);
          ids.push(planoId++);
        }
        planosPorConvenio.set(i + 1, ids);
      });
      D.UNIDADES.forEach(([nome, abrev], i) => {
        const [cidade, uf] = D.CIDADES[0];
        sqlite.prepare('INSERT INTO unidades (id, nome, abreviacao, cnpj, cidade, uf, ativo) VALUES (?, ?, ?, ?, ?, ?, 1)').run(i + 1, nome, abrev, `1234567800${String(i + 1).padStart(2, '0')}${rnd.digits(2)}`, cidade, uf);
      });
      D.SALAS.forEach((nome, i) => sqlite.prepare('INSERT INTO salas (id, unidade_id, nome, ativo) VALUES (?, ?, ?, 1)').run(i + 1, (i % D.UNIDADES.length) + 1, nome));
      D.COMPLEMENTOS.forEach((nome, i) => sqlite.prepare('INSERT INTO complementos (id, nome, ativo) VALUES (?, ?, 1)').run(i + 1, nome));
      D.CIDS.forEach(([codigo, nome], i) => sqlite.prepare('INSERT INTO cids (id, codigo, nome) VALUES (?, ?, ?)').run(i + 1, codigo, nome));

      // Doctors: a fixed role rotation so every tenant has exam, reporting and requesting doctors.
      const roles: [number, number, number][] = [[1, 1, 0], [1, 1, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]];
      const nMedicos = rich ? 12 : 6;
      const insMedico = inserter(sqlite, 'medicos', [
        'id', 'nome', 'nome_registro', 'saudacao_id', 'grupo_permissao_id', 'usuario', 'senha_hash', 'cpf', 'rg', 'data_nascimento', 'sexo',
        'conselho_sigla', 'conselho_numero', 'conselho_uf', 'especialidade', 'papel_exame', 'papel_laudo', 'papel_solicitante',
        'telefone', 'celular', 'email', 'endereco_cep', 'endereco_logradouro', 'endereco_numero', 'endereco_complemento', 'endereco_bairro',
        'endereco_cidade_id', 'endereco_estado', 'cor_agenda', 'ativo', 'criado_em',
      ]);
      for (let i = 0; i < nMedicos; i++) {
        const id = i + 1;
        const fem = rnd.chance(0.5);
        const first = rich ? rnd.pick(fem ? D.NOMES_FEMININOS : D.NOMES_MASCULINOS) : 'Medico';
        const last = rich ? `${rnd.pick(D.SOBRENOMES)} ${rnd.pick(D.SOBRENOMES)}` : `Sintetico ${id}`;
        const nome = `${first} ${last}`;
        const cidadeIdx = rnd.int(0, D.CIDADES.length - 1);
        const [, uf, cepPrefix, ddd] = D.CIDADES[cidadeIdx];
        const [e, l, s] = roles[i % roles.length];
        const usuario = `dr.${ascii(first).toLowerCase()}.${ascii(last.split(' ')[0]).toLowerCase()}${id}`;
        const cpfBase = String(100_000_000 + rnd.int(0, 899_999_999));
        insMedico(
          id, nome, null, fem ? 2 : 1, e || l ? 1 : 2, usuario, senhaMedico, cpfBase + cpfCheckDigits(cpfBase), rnd.digits(9), addDays(refDate, -rnd.int(30 * 365, 65 * 365)), fem ? 'FEM' : 'MAS',
          'CRM', String(rnd.int(10_000, 199_999)), uf, rnd.pick(D.ESPECIALIDADES), e, l, s,
          `${ddd}3${rnd.digits(7)}`, `${ddd}9${rnd.digits(8)}`, `${usuario.replace(/^dr\./, '')}@clinica.med.br`, cepPrefix + rnd.digits(3), rnd.pick(D.LOGRADOUROS), String(rnd.int(1, 3000)), rnd.pick(D.COMPLEMENTOS_END), rnd.pick(D.BAIRROS),
          cidadeIdx + 1, uf, D.CORES_AGENDA[i % D.CORES_AGENDA.length], 1, criadoCatalogo,
        );
        if (e) medicoIds.exame.push(id);
        if (l) medicoIds.laudo.push(id);
        if (s) medicoIds.solicitante.push(id);
      }
      D.GRUPOS_LAUDOS.forEach((nome, i) => {
        sqlite.prepare('INSERT INTO grupos_laudos (id, nome, ativo) VALUES (?, ?, 1)').run(i + 1, nome);
        const membros = medicoIds.laudo.filter((_, j) => (j + i) % 2 === 0);
        for (const m of membros) sqlite.prepare('INSERT INTO grupos_laudos_medicos (grupo_laudo_id, medico_id) VALUES (?, ?)').run(i + 1, m);
      });

      const st = options.settings ?? {};
      const withDefaults = st.defaults !== false;
      sqlite
        .prepare(
          `UPDATE clinica_config SET nome = ?, cpf_obrigatorio = ?, celular_obrigatorio = ?, solicitante_obrigatorio = ?, medico_laudo_obrigatorio = ?,
           default_unidade_id = ?, default_medico_exame_id = ?, default_medico_laudo_id = ?, default_convenio_id = ?, atualizado_em = ? WHERE id = 1`,
        )
        .run(
          options.nome ?? slug, st.cpf_obrigatorio ? 1 : 0, st.celular_obrigatorio ? 1 : 0, st.solicitante_obrigatorio ? 1 : 0, st.medico_laudo_obrigatorio ? 1 : 0,
          withDefaults ? 1 : null, withDefaults ? medicoIds.exame[0] : null, withDefaults ? medicoIds.laudo[0] : null, withDefaults ? D.CONVENIOS.length : null, criadoCatalogo,
        );
    })();
    options.onProgress?.({ phase: 'catalogos', done: 1, total: 1 });

    // ---------- patients ----------
    const P = options.patients;
    const conveniosComPlano = [...planosPorConvenio.entries()].filter(([, planos]) => planos.length > 0);
    const insPaciente = inserter(sqlite, 'pacientes', [
      'id', 'saudacao', 'nome', 'nome_registro', 'numero_prontuario', 'cpf', 'rg', 'data_nascimento', 'sexo', 'estado_civil_id', 'telefone', 'celular', 'email',
      'endereco_cep', 'endereco_logradouro', 'endereco_numero', 'endereco_complemento', 'endereco_bairro', 'endereco_cidade_id', 'endereco_estado',
      'convenio_id', 'convenio_plano_id', 'convenio_numero_carteirinha', 'usuario', 'senha_hash', 'senha_temporaria', 'data_alteracao_senha', 'ativo', 'criado_em',
    ]);
    const cpfOffset = rnd.int(1, 999_999_999);
    const convenioDoPaciente = new Int32Array(P + 1);
    batched(
      sqlite,
      P,
      (i) => {
        const id = i + 1;
        const sexo = rnd.weighted([['FEM', 50], ['MAS', 48], ['OUT', 2]] as const);
        const fem = sexo === 'FEM' || (sexo === 'OUT' && rnd.chance(0.5));
        const first = rnd.pick(fem ? D.NOMES_FEMININOS : D.NOMES_MASCULINOS);
        const s1 = rnd.pick(D.SOBRENOMES);
        const s2 = rnd.pick(D.SOBRENOMES);
        const nome = rich ? `${first} ${s1} ${s2}`.toUpperCase() : `PACIENTE SINTETICO ${String(id).padStart(7, '0')}`;
        // i -> (i * 3^18 + offset) mod 1e9 is a bijection, so CPF bases never repeat.
        const base = String((i * 387_420_489 + cpfOffset) % 1_000_000_000).padStart(9, '0');
        const hasCpf = !/^(\d)\1{8}$/.test(base) && (!rich || rnd.chance(0.96));
        const cidadeIdx = rnd.int(0, D.CIDADES.length - 1);
        const [, uf, cepPrefix, ddd] = D.CIDADES[cidadeIdx];
        const conv = rnd.chance(0.7) ? rnd.pick(conveniosComPlano) : null;
        convenioDoPaciente[id] = conv ? conv[0] : 0;
        const criado = isoSeconds(new Date(ref.getTime() - rnd.int(0, 5 * 365 * 86400) * 1000));
        const email = rich ? `${ascii(first).toLowerCase()}.${ascii(s1).toLowerCase()}${rnd.int(1, 999)}@${rnd.pick(D.DOMINIOS)}` : `paciente${id}@example.com`;
        insPaciente(
          id, rich ? rnd.pick(D.SAUDACOES_PACIENTE) : null, nome, null, String(id), hasCpf ? base + cpfCheckDigits(base) : null, rnd.digits(9),
          addDays(refDate, -rnd.int(0, 95 * 365)), sexo, rnd.int(1, D.ESTADOS_CIVIS.length),
          rnd.chance(0.4) ? `${ddd}3${rnd.digits(7)}` : null, `${ddd}9${rnd.digits(8)}`, rnd.chance(0.85) ? email : null,
          cepPrefix + rnd.digits(3), rnd.pick(D.LOGRADOUROS), String(rnd.int(1, 4000)), rnd.pick(D.COMPLEMENTOS_END), rnd.pick(D.BAIRROS), cidadeIdx + 1, uf,
          conv ? conv[0] : null, conv ? rnd.pick(conv[1]) : null, conv ? rnd.digits(16) : null,
          `paciente${id}`, senhaPaciente, 1, criado, rnd.chance(0.97) ? 1 : 0, criado,
        );
      },
      report('pacientes', P),
    );

    // ---------- exams and reports ----------
    const E = options.exams;
    const insExame = inserter(sqlite, 'exames', [
      'id', 'paciente_id', 'procedimento_id', 'unidade_id', 'medico_exame_id', 'medico_laudo_id', 'medico_solicitante_id', 'convenio_id', 'plano_id', 'cid_id', 'complemento_id',
      'data_realizado', 'hora_realizado', 'numero', 'referencia', 'requer_laudo', 'prioridade', 'arquivo_exame_key', 'arquivo_laudo_key', 'laudo_central', 'exportado_central', 'criado_em', 'atualizado_em',
    ]);
    const insLaudo = inserter(sqlite, 'laudos', [
      'id', 'exame_id', 'medico_laudo_id', 'data_laudo', 'hora_laudo', 'titulo', 'referencia', 'cid_id', 'assinado', 'assinado_em', 'assinatura_tipo', 'arquivo_key', 'criado_em', 'atualizado_em',
    ]);
    let laudoId = 0;
    const contagens = new ContagemBuilder();
    // The date `n` days before the reference date, computed once per n (a million exams share ~1,100 dates).
    const datas: string[] = [];
    const diasAntes = (n: number) => (datas[n] ??= addDays(refDate, -n));
    const hhmmss = () => `${String(rnd.int(7, 19)).padStart(2, '0')}:${String(rnd.int(0, 59)).padStart(2, '0')}:${String(rnd.int(0, 59)).padStart(2, '0')}`;
    batched(
      sqlite,
      E,
      (i) => {
        const id = i + 1;
        const pacienteId = rnd.int(1, P);
        const proc = rnd.pick(procedimentoIds);
        const diasAtras = Math.floor(Math.pow(rnd.float(), 1.5) * 3 * 365); // skewed towards recent exams
        const data = diasAntes(diasAtras);
        const hora = horaNoPassado(data, hhmmss(), ref);
        const medicoLaudo = rnd.pick(medicoIds.laudo);
        const status = diasAtras < 2 ? rnd.weighted([['PENDENTE', 80], ['ASSINADO', 20]] as const) : rnd.weighted([['ASSINADO', 65], ['EMITIDO', 10], ['PENDENTE', 25]] as const);
        const temLaudo = status !== 'PENDENTE';
        const conv = convenioDoPaciente[pacienteId];
        const criado = `${data}T${hora}Z`;
        // Drawn in the order the arguments below used to draw them: same seed, same rows.
        const unidade = rnd.int(1, D.UNIDADES.length);
        const medicoExame = rnd.pick(medicoIds.exame);
        const solicitante = medicoIds.solicitante.length && rnd.chance(0.6) ? rnd.pick(medicoIds.solicitante) : null;
        contagens.exame(data, proc, medicoExame, medicoLaudo, solicitante, status === 'PENDENTE' ? 0 : status === 'EMITIDO' ? 1 : 2);
        insExame(
          id, pacienteId, proc, unidade, medicoExame, medicoLaudo, solicitante,
          conv || null, conv ? rnd.pick(planosPorConvenio.get(conv)!) : null, rnd.chance(0.5) ? rnd.int(1, D.CIDS.length) : null, rnd.chance(0.1) ? rnd.int(1, D.COMPLEMENTOS.length) : null,
          data, hora, `${data.slice(0, 4)}${String(id).padStart(8, '0')}`, rich && rnd.chance(0.3) ? `REF-${rnd.digits(6)}` : null, 1, rnd.weighted([[1, 85], [2, 10], [3, 5]] as const),
          procedimentosComImagem.includes(proc) && rnd.chance(0.8) ? 'seed-samples/exame.pdf' : null, temLaudo ? 'seed-samples/laudo.pdf' : null,
          temLaudo && rnd.chance(0.02) ? 1 : 0, rnd.chance(0.05) ? 1 : 0, criado, temLaudo ? criado : null,
        );
        if (temLaudo) {
          const dataLaudo = diasAntes(diasAtras - rnd.int(0, Math.min(3, diasAtras)));
          // Not before the exam it reports on.
          const horaLaudo = horaNoPassado(dataLaudo, hhmmss(), ref, dataLaudo === data ? segundos(hora) : 0);
          const assinado = status === 'ASSINADO';
          contagens.laudo(dataLaudo, medicoLaudo, assinado ? 1 : 0);
          insLaudo(
            ++laudoId, id, medicoLaudo, dataLaudo, horaLaudo, 'Laudo', null, null, assinado ? 1 : 0,
            assinado ? `${dataLaudo}T${horaLaudo}Z` : null, assinado ? 'ICP-Brasil A3' : null, 'seed-samples/laudo.pdf', `${dataLaudo}T${horaLaudo}Z`, null,
          );
        }
        // A few reports arrive without their exam (orphans).
        if (rnd.chance(0.003)) {
          const dataLaudo = diasAntes(rnd.int(0, 365));
          const medicoAvulso = rnd.pick(medicoIds.laudo);
          contagens.laudo(dataLaudo, medicoAvulso, 1);
          const horaAvulso = horaNoPassado(dataLaudo, hhmmss(), ref);
          const emitido = `${dataLaudo}T${horaAvulso}Z`;
          insLaudo(++laudoId, null, medicoAvulso, dataLaudo, horaAvulso, 'Laudo avulso', null, null, 1, emitido, 'ICP-Brasil A3', 'seed-samples/laudo.pdf', emitido, null);
        }
      },
      report('exames', E),
    );

    // ---------- agenda configs and appointments ----------
    interface Agenda { id: number; medicoId: number | null; salaId: number | null; unidadeId: number; dias: number[]; procs: [number, number][] }
    const agendas: Agenda[] = [];
    sqlite.transaction(() => {
      const insConfig = inserter(sqlite, 'agenda_configs', ['id', 'nome', 'tipo_vinculo', 'medico_id', 'sala_id', 'unidade_id', 'ativo', 'data_inicio', 'data_fim', 'permite_encaixe', 'limite_diario', 'criado_em']);
      const insHorario = inserter(sqlite, 'agenda_horarios', ['agenda_config_id', 'dia_semana', 'hora_inicio', 'hora_fim']);
      const insProc = inserter(sqlite, 'agenda_procedimentos', ['agenda_config_id', 'procedimento_id', 'duracao_minutos']);
      const nomes = sqlite.prepare('SELECT id, nome FROM medicos').all() as { id: number; nome: string }[];
      const specs: { medicoId: number | null; salaId: number | null }[] = [
        ...medicoIds.exame.map((m) => ({ medicoId: m, salaId: null })),
        { medicoId: null, salaId: 1 },
        { medicoId: null, salaId: 3 },
      ];
      const inicio = addDays(refDate, -2 * 365);
      specs.forEach((s, i) => {
        const id = i + 1;
        const unidadeId = s.salaId ? ((s.salaId - 1) % D.UNIDADES.length) + 1 : (i % D.UNIDADES.length) + 1;
        const nome = s.medicoId ? `Agenda ${nomes.find((n) => n.id === s.medicoId)!.nome}` : `Agenda ${D.SALAS[s.salaId! - 1]}`;
        insConfig(id, nome, s.medicoId ? 'medico' : 'sala', s.medicoId, s.salaId, unidadeId, 1, inicio, null, 1, 0, `${inicio}T08:00:00Z`);
        const dias = s.salaId ? [1, 2, 3, 4, 5, 6] : [1, 2, 3, 4, 5];
        for (const d of dias) {
          insHorario(id, d, '08:00', '12:00');
          if (d !== 6) insHorario(id, d, '13:00', '18:00');
        }
        const procs: [number, number][] = [];
        const offered = new Set<number>();
        while (offered.size < 6) offered.add(rnd.pick(procedimentoIds));
        for (const p of [...offered].sort((a, b) => a - b)) {
          const dur = rnd.pick([15, 20, 30]);
          insProc(id, p, dur);
          procs.push([p, dur]);
        }
        // The consultation is offered by room agendas but without a configured duration (BUSINESS_RULE on booking).
        const consulta = D.PROCEDIMENTOS.length;
        if (s.salaId && !offered.has(consulta)) insProc(id, consulta, null);
        agendas.push({ id, medicoId: s.medicoId, salaId: s.salaId, unidadeId, dias, procs });
      });
      // One insurer blocked on the first agenda.
      const hapvida = D.CONVENIOS.findIndex(([n]) => n === 'Hapvida') + 1;
      sqlite.prepare('INSERT INTO agenda_convenios_bloqueados (agenda_config_id, convenio_id) VALUES (?, ?)').run(1, hapvida);
    })();

    const A = options.appointments;
    // 18 half-hour grid slots per weekday (08:00-12:00, 13:00-18:00); the date window widens with volume.
    const grid = [...Array(8).keys()].map((k) => 480 + k * 30).concat([...Array(10).keys()].map((k) => 780 + k * 30));
    const window = Math.max(120, Math.ceil((A * 2) / (agendas.length * grid.length * (5 / 7))));
    const firstDay = addDays(refDate, -Math.floor(window / 2));
    const usados = new Set<number>();
    const insAg = inserter(sqlite, 'agendamentos', [
      'id', 'agenda_config_id', 'paciente_id', 'medico_id', 'sala_id', 'unidade_id', 'procedimento_id', 'convenio_id', 'plano_id', 'data_agendamento', 'hora_inicio', 'hora_fim',
      'status', 'encaixe', 'observacoes', 'paciente_nome', 'paciente_celular', 'cancelado_em', 'cancelado_motivo', 'criado_em', 'atualizado_em',
    ]);
    const insHist = inserter(sqlite, 'agendamento_historico', ['id', 'agendamento_id', 'status_anterior', 'status_novo', 'data_hora', 'observacao', 'origem', 'chave_id']);
    let histId = 0;
    let agId = 0;
    batched(
      sqlite,
      A,
      () => {
        let agenda: Agenda | undefined;
        let dayIdx = 0;
        let minuto = 0;
        let encaixe = rnd.chance(0.03);
        for (let attempt = 0; attempt < 30; attempt++) {
          const a = rnd.pick(agendas);
          const d = rnd.int(0, window - 1);
          const wd = weekday(addDays(firstDay, d));
          if (!a.dias.includes(wd)) continue;
          const slots = wd === 6 ? grid.slice(0, 8) : grid;
          const s = rnd.int(0, slots.length - 1);
          if (encaixe) {
            agenda = a; dayIdx = d; minuto = slots[s] + 10;
            break;
          }
          const key = (a.id * 100_000 + d) * 100 + s;
          if (usados.has(key)) continue;
          usados.add(key);
          agenda = a; dayIdx = d; minuto = slots[s];
          break;
        }
        if (!agenda) return; // grid saturated: skip rather than overlap
        const id = ++agId;
        const data = addDays(firstDay, dayIdx);
        const [proc, dur] = rnd.pick(agenda.procs);
        const semPaciente = rnd.chance(0.03);
        const pacienteId = semPaciente ? null : rnd.int(1, P);
        const conv = pacienteId ? convenioDoPaciente[pacienteId] : 0;
        const passado = data < refDate;
        const status = passado
          ? rnd.weighted([['finalizado', 65], ['nao_compareceu', 10], ['cancelado', 20], ['confirmado', 5]] as const)
          : rnd.weighted([['agendado', 45], ['aguardando_confirmacao', 20], ['confirmado', 20], ['cancelado', 15]] as const);
        // Booked 1-30 days before the appointment; a future one, 1-30 days before the reference instant.
        const criadoEm = `${addDays(data < refDate ? data : refDate, -rnd.int(1, 30))}T${fromMinutes(rnd.int(420, 1140))}:00Z`;
        const hora = fromMinutes(minuto);
        const caminho: Transicao[] = [[null, 'agendado', null]];
        if (status === 'aguardando_confirmacao' || status === 'confirmado' || status === 'finalizado' || status === 'nao_compareceu')
          caminho.push(['agendado', 'aguardando_confirmacao', 'Lembrete automatico enviado por SMS']);
        if (status === 'confirmado' || status === 'finalizado' || status === 'nao_compareceu') caminho.push(['aguardando_confirmacao', 'confirmado', 'Confirmado pelo paciente']);
        if (status === 'finalizado') caminho.push(['confirmado', 'checkin', null], ['checkin', 'em_atendimento', null], ['em_atendimento', 'finalizado', null]);
        if (status === 'nao_compareceu') caminho.push(['confirmado', 'nao_compareceu', null]);
        if (status === 'cancelado') caminho.push(['agendado', 'cancelado', 'Paciente solicitou cancelamento']);
        const inicioMs = Date.parse(`${data}T${hora}:00Z`);
        const momentos = momentosDoHistorico(caminho, Date.parse(criadoEm), data, inicioMs, inicioMs + dur * MINUTO_MS, ref.getTime()).map((ms) => isoSeconds(new Date(ms)));
        const canceladoEm = status === 'cancelado' ? momentos[momentos.length - 1] : null;
        insAg(
          id, agenda.id, pacienteId, agenda.medicoId, agenda.salaId, agenda.unidadeId, proc, conv, conv ? rnd.pick(planosPorConvenio.get(conv)!) : null,
          data, hora, fromMinutes(minuto + dur), status, encaixe ? 1 : 0, null,
          semPaciente ? `${rnd.pick(D.NOMES_FEMININOS)} ${rnd.pick(D.SOBRENOMES)}`.toUpperCase() : null, semPaciente ? `119${rnd.digits(8)}` : null,
          canceladoEm, status === 'cancelado' ? 'Paciente solicitou cancelamento' : null, criadoEm, caminho.length > 1 ? momentos[momentos.length - 1] : null,
        );
        caminho.forEach(([de, para, obs], k) => {
          insHist(++histId, id, de, para, momentos[k], obs, k === 0 ? 'API' : 'SISTEMA', null);
        });
        encaixe = false;
      },
      report('agendamentos', A),
    );

    // ---------- patient records ----------
    let prontuarios = 0;
    if (rich && P > 0) {
      const insPront = inserter(sqlite, 'prontuarios', ['id', 'paciente_id', 'medico_id', 'data_emissao', 'mensagem', 'exibir', 'rascunho', 'criado_em']);
      const insAnexo = inserter(sqlite, 'prontuario_anexos', ['id', 'paciente_id', 'prontuario_id', 'descricao', 'nome_arquivo', 'extensao', 'tamanho', 'object_key', 'criado_em']);
      const tamanho = SEED_SAMPLES['seed-samples/anexo.pdf'].length;
      let anexoId = 0;
      const comProntuario = Math.ceil(P * 0.15);
      batched(
        sqlite,
        comProntuario,
        () => {
          const pacienteId = rnd.int(1, P);
          const n = rnd.int(1, 3);
          for (let k = 0; k < n; k++) {
            const dia = addDays(refDate, -rnd.int(0, 720));
            const quando = `${dia}T${horaNoPassado(dia, `${fromMinutes(rnd.int(420, 1140))}:00`, ref)}Z`;
            const id = ++prontuarios;
            insPront(id, pacienteId, rnd.pick(medicoIds.exame), quando, rnd.pick(D.MENSAGENS_PRONTUARIO), rnd.chance(0.8) ? 1 : 0, 0, quando);
            if (rnd.chance(0.3)) insAnexo(++anexoId, pacienteId, id, 'Pedido medico', 'pedido-medico.pdf', 'PDF', tamanho, 'seed-samples/anexo.pdf', quando);
          }
        },
        report('prontuarios', comProntuario),
      );
    }

    const schema = deferred;
    deferred = null;
    restoreSchema(sqlite, schema, report('indices', schemaSteps(schema)), contagens);
    return {
      slug,
      medicos: medicoIds,
      counts: { pacientes: P, exames: E, laudos: laudoId, agendamentos: agId, prontuarios },
      file: tenantFile(dataDir, slug),
    };
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    try {
      // A failed load still leaves a usable tenant: its schema back, over whatever rows were written.
      if (deferred) restoreSchema(sqlite, deferred, () => undefined, null);
      // FULL for the switch back to WAL: that commit syncs the file, and every page written above with it.
      sqlite.pragma('synchronous = FULL');
      sqlite.pragma('journal_mode = WAL');
      sqlite.pragma('wal_checkpoint(TRUNCATE)');
      sqlite.pragma('synchronous = NORMAL');
      sqlite.pragma('foreign_keys = ON');
    } catch (error) {
      if (!failed) throw error;
    } finally {
      await tenant.close();
    }
  }
}

/** What the bulk load drops and builds again once the rows are in (sql as stored in sqlite_master). */
interface DeferredSchema {
  indexes: string[];
  searchIndexes: string[];
  triggers: string[];
}

/**
 * Drops the secondary indexes, the triggers and the search index (FTS5): building each once over the
 * loaded rows is much cheaper than maintaining it row by row, and the triggers' work (search index,
 * counts) is redone by rebuilding. The search index is dropped and created again, not emptied, so a
 * reseed in place leaves the same pages as a fresh seed.
 */
function deferSchema(sqlite: SQLite.Database): DeferredSchema {
  const objects = (where: string) => sqlite.prepare(`SELECT name, sql FROM main.sqlite_master WHERE sql IS NOT NULL AND ${where} ORDER BY name`).all() as { name: string; sql: string }[];
  const triggers = objects("type = 'trigger'");
  const searchIndexes = objects("type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%USING fts5%'");
  const indexes = objects("type = 'index'");
  for (const t of triggers) sqlite.exec(`DROP TRIGGER "${t.name}"`);
  for (const t of searchIndexes) sqlite.exec(`DROP TABLE "${t.name}"`);
  for (const i of indexes) sqlite.exec(`DROP INDEX "${i.name}"`);
  return { indexes: indexes.map((i) => i.sql), searchIndexes: searchIndexes.map((t) => t.sql), triggers: triggers.map((t) => t.sql) };
}

const schemaSteps = (d: DeferredSchema) => d.indexes.length + 4;

/** Indexes, search index (rebuilt from the rows), counts, triggers, then planner statistics. */
function restoreSchema(sqlite: SQLite.Database, d: DeferredSchema, progress: (done: number) => void, contagens: ContagemBuilder | null) {
  let done = 0;
  for (const sql of d.indexes) {
    sqlite.exec(sql);
    progress(++done);
  }
  sqlite.transaction(() => {
    for (const sql of d.searchIndexes) sqlite.exec(sql);
    rebuildSearchIndexes(sqlite);
  })();
  progress(++done);
  sqlite.transaction(() => rebuildCounts(sqlite, contagens))();
  progress(++done);
  for (const sql of d.triggers) sqlite.exec(sql);
  progress(++done);
  // Sampled statistics: enough for the planner to pick the list indexes, in a fraction of a full ANALYZE.
  sqlite.pragma('analysis_limit = 2000');
  sqlite.exec('ANALYZE');
  progress(++done);
}

export interface DefaultTenant {
  slug: string;
  nome: string;
  profile: SeedProfile;
  /** Doctor ids by role. */
  medicos: SeedResult['medicos'];
  /** Doctors suited to bind a demo key (exam or report role), first = exam and report doctor. */
  medicoIds: number[];
  seeded: boolean;
}

const bindable = (m: SeedResult['medicos']) => [...new Set([...m.exame, ...m.laudo])].sort((a, b) => a - b);

const DEFAULT_TENANTS = [
  { slug: 'demo', nome: 'Clinica Demo', profile: 'rich', seed: 'demo-1', patients: 300, exams: 1500, appointments: 400, settings: {} },
  { slug: 'sandbox', nome: 'Sandbox', profile: 'synthetic', seed: 'sandbox-1', patients: 100, exams: 400, appointments: 120, settings: {} },
  {
    slug: 'clinica-b', nome: 'Clinica B', profile: 'rich', seed: 'clinica-b-7', patients: 150, exams: 600, appointments: 150,
    settings: { cpf_obrigatorio: true, celular_obrigatorio: true, medico_laudo_obrigatorio: true },
  },
] as const;

/**
 * Seeds demo (rich), sandbox (synthetic) and clinica-b (rich, stricter settings) on first run;
 * tenants that already hold patients are left alone. Returns, keyed by slug, doctor ids per tenant.
 */
export async function seedDefaultTenants(dataDir: string): Promise<Record<string, DefaultTenant>> {
  const out: Record<string, DefaultTenant> = {};
  for (const t of DEFAULT_TENANTS) {
    const existing = await createTenantDatabase(dataDir, t.slug);
    let medicos: SeedResult['medicos'] | null = null;
    try {
      const count = existing.sqlite.prepare('SELECT COUNT(*) AS n FROM pacientes').get() as { n: number };
      if (count.n > 0) {
        const rows = existing.sqlite.prepare('SELECT id, papel_exame, papel_laudo, papel_solicitante FROM medicos WHERE ativo = 1 ORDER BY id').all() as {
          id: number; papel_exame: number; papel_laudo: number; papel_solicitante: number;
        }[];
        medicos = {
          exame: rows.filter((r) => r.papel_exame).map((r) => r.id),
          laudo: rows.filter((r) => r.papel_laudo).map((r) => r.id),
          solicitante: rows.filter((r) => r.papel_solicitante).map((r) => r.id),
        };
      }
    } finally {
      await existing.close();
    }
    if (medicos) {
      out[t.slug] = { slug: t.slug, nome: t.nome, profile: t.profile, medicos, medicoIds: bindable(medicos), seeded: false };
      continue;
    }
    const r = await seedTenant({ dataDir, slug: t.slug, nome: t.nome, seed: t.seed, profile: t.profile, patients: t.patients, exams: t.exams, appointments: t.appointments, settings: t.settings });
    out[t.slug] = { slug: t.slug, nome: t.nome, profile: t.profile, medicos: r.medicos, medicoIds: bindable(r.medicos), seeded: true };
  }
  return out;
}
