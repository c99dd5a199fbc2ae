import { sql, type Kysely, type Migration } from 'kysely';

// Frozen: never edit a shipped migration; add a new date-prefixed file instead.
const statements = [
  `CREATE TABLE clinica_config (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    nome TEXT NOT NULL DEFAULT '',
    cpf_obrigatorio INTEGER NOT NULL DEFAULT 0,
    celular_obrigatorio INTEGER NOT NULL DEFAULT 0,
    solicitante_obrigatorio INTEGER NOT NULL DEFAULT 0,
    medico_laudo_obrigatorio INTEGER NOT NULL DEFAULT 0,
    default_unidade_id INTEGER,
    default_medico_exame_id INTEGER,
    default_medico_laudo_id INTEGER,
    default_convenio_id INTEGER,
    atualizado_em TEXT
  )`,
  `INSERT INTO clinica_config (id) VALUES (1)`,
  `CREATE TABLE estados_civis (id INTEGER PRIMARY KEY, nome TEXT NOT NULL)`,
  `CREATE TABLE saudacoes (id INTEGER PRIMARY KEY, nome TEXT NOT NULL)`,
  `CREATE TABLE grupos_permissao (id INTEGER PRIMARY KEY, nome TEXT NOT NULL)`,
  `CREATE TABLE cidades (id INTEGER PRIMARY KEY, nome TEXT NOT NULL, uf TEXT NOT NULL)`,
  `CREATE INDEX cidades_nome ON cidades (nome COLLATE NOCASE, uf)`,
  `CREATE TABLE convenios (
    id INTEGER PRIMARY KEY, nome TEXT NOT NULL, abreviacao TEXT NOT NULL DEFAULT '',
    codigo_ans TEXT NOT NULL DEFAULT '', ativo INTEGER NOT NULL DEFAULT 1
  )`,
  `CREATE INDEX convenios_nome ON convenios (nome COLLATE NOCASE)`,
  `CREATE TABLE planos (
    id INTEGER PRIMARY KEY, convenio_id INTEGER NOT NULL REFERENCES convenios (id),
    nome TEXT NOT NULL, codigo_ans TEXT NOT NULL DEFAULT '', ativo INTEGER NOT NULL DEFAULT 1
  )`,
  `CREATE INDEX planos_convenio ON planos (convenio_id)`,
  `CREATE TABLE pacientes (
    id INTEGER PRIMARY KEY,
    saudacao TEXT, nome TEXT NOT NULL, nome_registro TEXT,
    numero_prontuario TEXT NOT NULL,
    cpf TEXT, rg TEXT, data_nascimento TEXT, sexo TEXT,
    estado_civil_id INTEGER REFERENCES estados_civis (id),
    telefone TEXT, celular TEXT, email TEXT,
    endereco_cep TEXT, endereco_logradouro TEXT, endereco_numero TEXT, endereco_complemento TEXT,
    endereco_bairro TEXT, endereco_cidade_id INTEGER REFERENCES cidades (id), endereco_estado TEXT,
    convenio_id INTEGER REFERENCES convenios (id), convenio_plano_id INTEGER REFERENCES planos (id),
    convenio_numero_carteirinha TEXT,
    usuario TEXT NOT NULL, senha_hash TEXT NOT NULL, senha_temporaria INTEGER NOT NULL DEFAULT 1,
    data_alteracao_senha TEXT,
    ativo INTEGER NOT NULL DEFAULT 1,
    criado_em TEXT NOT NULL, atualizado_em TEXT,
    criado_por_chave_id INTEGER, atualizado_por_chave_id INTEGER
  )`,
  `CREATE UNIQUE INDEX pacientes_cpf ON pacientes (cpf) WHERE cpf IS NOT NULL`,
  `CREATE UNIQUE INDEX pacientes_numero_prontuario ON pacientes (numero_prontuario)`,
  `CREATE UNIQUE INDEX pacientes_usuario ON pacientes (usuario COLLATE NOCASE)`,
  `CREATE INDEX pacientes_criado_em ON pacientes (criado_em)`,
  `CREATE INDEX pacientes_ativo ON pacientes (ativo, id)`,
  `CREATE TABLE medicos (
    id INTEGER PRIMARY KEY,
    nome TEXT NOT NULL, nome_registro TEXT,
    saudacao_id INTEGER REFERENCES saudacoes (id), grupo_permissao_id INTEGER REFERENCES grupos_permissao (id),
    usuario TEXT NOT NULL, senha_hash TEXT NOT NULL,
    cpf TEXT, rg TEXT, data_nascimento TEXT, sexo TEXT,
    conselho_sigla TEXT, conselho_numero TEXT, conselho_uf TEXT, especialidade TEXT,
    papel_exame INTEGER NOT NULL DEFAULT 0, papel_laudo INTEGER NOT NULL DEFAULT 0, papel_solicitante INTEGER NOT NULL DEFAULT 0,
    telefone TEXT, celular TEXT, email TEXT,
    endereco_cep TEXT, endereco_logradouro TEXT, endereco_numero TEXT, endereco_complemento TEXT,
    endereco_bairro TEXT, endereco_cidade_id INTEGER REFERENCES cidades (id), endereco_estado TEXT,
    cor_agenda TEXT, ativo INTEGER NOT NULL DEFAULT 1,
    criado_em TEXT NOT NULL, atualizado_em TEXT,
    criado_por_chave_id INTEGER, atualizado_por_chave_id INTEGER
  )`,
  `CREATE UNIQUE INDEX medicos_usuario ON medicos (usuario COLLATE NOCASE)`,
  `CREATE INDEX medicos_nome ON medicos (nome COLLATE NOCASE)`,
  `CREATE INDEX medicos_conselho ON medicos (conselho_numero)`,
  `CREATE TABLE procedimentos (
    id INTEGER PRIMARY KEY, nome TEXT NOT NULL, abreviacao TEXT NOT NULL DEFAULT '',
    codigo_tuss TEXT NOT NULL DEFAULT '', descricao_tuss TEXT NOT NULL DEFAULT '',
    requer_laudo INTEGER NOT NULL DEFAULT 1, possui_imagens INTEGER NOT NULL DEFAULT 0, ativo INTEGER NOT NULL DEFAULT 1
  )`,
  `CREATE INDEX procedimentos_nome ON procedimentos (nome COLLATE NOCASE)`,
  `CREATE INDEX procedimentos_tuss ON procedimentos (codigo_tuss)`,
  `CREATE TABLE unidades (
    id INTEGER PRIMARY KEY, nome TEXT NOT NULL, abreviacao TEXT NOT NULL DEFAULT '',
    cnpj TEXT, cidade TEXT, uf TEXT, ativo INTEGER NOT NULL DEFAULT 1
  )`,
  `CREATE TABLE salas (
    id INTEGER PRIMARY KEY, unidade_id INTEGER NOT NULL REFERENCES unidades (id),
    nome TEXT NOT NULL, ativo INTEGER NOT NULL DEFAULT 1
  )`,
  `CREATE INDEX salas_unidade ON salas (unidade_id)`,
  `CREATE TABLE complementos (id INTEGER PRIMARY KEY, nome TEXT NOT NULL, ativo INTEGER NOT NULL DEFAULT 1)`,
  `CREATE TABLE grupos_laudos (id INTEGER PRIMARY KEY, nome TEXT NOT NULL, ativo INTEGER NOT NULL DEFAULT 1)`,
  `CREATE TABLE grupos_laudos_medicos (
    grupo_laudo_id INTEGER NOT NULL REFERENCES grupos_laudos (id),
    medico_id INTEGER NOT NULL REFERENCES medicos (id),
    PRIMARY KEY (grupo_laudo_id, medico_id)
  )`,
  `CREATE TABLE cids (id INTEGER PRIMARY KEY, codigo TEXT NOT NULL, nome TEXT NOT NULL)`,
  `CREATE UNIQUE INDEX cids_codigo ON cids (codigo)`,
  `CREATE TABLE exames (
    id INTEGER PRIMARY KEY,
    paciente_id INTEGER NOT NULL REFERENCES pacientes (id),
    procedimento_id INTEGER NOT NULL REFERENCES procedimentos (id),
    unidade_id INTEGER REFERENCES unidades (id),
    medico_exame_id INTEGER REFERENCES medicos (id),
    medico_laudo_id INTEGER REFERENCES medicos (id),
    medico_solicitante_id INTEGER REFERENCES medicos (id),
    grupo_laudo_id INTEGER REFERENCES grupos_laudos (id),
    convenio_id INTEGER REFERENCES convenios (id),
    plano_id INTEGER REFERENCES planos (id),
    cid_id INTEGER REFERENCES cids (id),
    complemento_id INTEGER REFERENCES complementos (id),
    data_realizado TEXT NOT NULL, hora_realizado TEXT,
    numero TEXT, referencia TEXT, observacoes TEXT,
    requer_laudo INTEGER NOT NULL DEFAULT 1, prioridade INTEGER NOT NULL DEFAULT 1,
    arquivo_exame_key TEXT, arquivo_laudo_key TEXT,
    laudo_central INTEGER NOT NULL DEFAULT 0, exportado_central INTEGER NOT NULL DEFAULT 0,
    excluido_em TEXT, excluido_motivo TEXT, excluido_por_chave_id INTEGER,
    criado_em TEXT NOT NULL, atualizado_em TEXT, criado_por_chave_id INTEGER
  )`,
  `CREATE INDEX exames_paciente ON exames (paciente_id, data_realizado)`,
  `CREATE INDEX exames_data ON exames (data_realizado, id)`,
  `CREATE INDEX exames_medico_exame ON exames (medico_exame_id, data_realizado)`,
  `CREATE INDEX exames_medico_laudo ON exames (medico_laudo_id, data_realizado)`,
  `CREATE INDEX exames_solicitante ON exames (medico_solicitante_id, data_realizado)`,
  `CREATE INDEX exames_procedimento ON exames (procedimento_id, data_realizado)`,
  `CREATE TABLE exame_arquivos (
    id INTEGER PRIMARY KEY, exame_id INTEGER NOT NULL REFERENCES exames (id),
    tipo TEXT NOT NULL, nome TEXT NOT NULL, object_key TEXT NOT NULL, tamanho INTEGER NOT NULL, criado_em TEXT NOT NULL
  )`,
  `CREATE INDEX exame_arquivos_exame ON exame_arquivos (exame_id)`,
  `CREATE TABLE laudos (
    id INTEGER PRIMARY KEY,
    exame_id INTEGER REFERENCES exames (id),
    medico_laudo_id INTEGER REFERENCES medicos (id),
    data_laudo TEXT NOT NULL, hora_laudo TEXT, titulo TEXT, referencia TEXT,
    cid_id INTEGER REFERENCES cids (id),
    assinado INTEGER NOT NULL DEFAULT 0, assinado_em TEXT, assinatura_tipo TEXT,
    arquivo_key TEXT,
    excluido_em TEXT, excluido_motivo TEXT, excluido_por_chave_id INTEGER,
    criado_em TEXT NOT NULL, atualizado_em TEXT, criado_por_chave_id INTEGER
  )`,
  `CREATE INDEX laudos_exame ON laudos (exame_id)`,
  `CREATE INDEX laudos_medico ON laudos (medico_laudo_id, data_laudo)`,
  `CREATE INDEX laudos_data ON laudos (data_laudo, id)`,
  `CREATE TABLE agenda_configs (
    id INTEGER PRIMARY KEY, nome TEXT NOT NULL, tipo_vinculo TEXT NOT NULL CHECK (tipo_vinculo IN ('medico', 'sala')),
    medico_id INTEGER REFERENCES medicos (id), sala_id INTEGER REFERENCES salas (id),
    unidade_id INTEGER NOT NULL REFERENCES unidades (id),
    ativo INTEGER NOT NULL DEFAULT 1, data_inicio TEXT NOT NULL, data_fim TEXT,
    permite_encaixe INTEGER NOT NULL DEFAULT 1, limite_diario INTEGER NOT NULL DEFAULT 0,
    criado_em TEXT
  )`,
  `CREATE INDEX agenda_configs_medico ON agenda_configs (medico_id)`,
  `CREATE INDEX agenda_configs_unidade ON agenda_configs (unidade_id)`,
  `CREATE TABLE agenda_horarios (
    id INTEGER PRIMARY KEY, agenda_config_id INTEGER NOT NULL REFERENCES agenda_configs (id),
    dia_semana INTEGER NOT NULL CHECK (dia_semana BETWEEN 0 AND 6), hora_inicio TEXT NOT NULL, hora_fim TEXT NOT NULL
  )`,
  `CREATE INDEX agenda_horarios_config ON agenda_horarios (agenda_config_id, dia_semana)`,
  `CREATE TABLE agenda_procedimentos (
    agenda_config_id INTEGER NOT NULL REFERENCES agenda_configs (id),
    procedimento_id INTEGER NOT NULL REFERENCES procedimentos (id),
    duracao_minutos INTEGER,
    PRIMARY KEY (agenda_config_id, procedimento_id)
  )`,
  `CREATE INDEX agenda_procedimentos_proc ON agenda_procedimentos (procedimento_id)`,
  `CREATE TABLE agenda_convenios_bloqueados (
    agenda_config_id INTEGER NOT NULL REFERENCES agenda_configs (id),
    convenio_id INTEGER NOT NULL REFERENCES convenios (id),
    PRIMARY KEY (agenda_config_id, convenio_id)
  )`,
  `CREATE TABLE agendamentos (
    id INTEGER PRIMARY KEY,
    agenda_config_id INTEGER NOT NULL REFERENCES agenda_configs (id),
    paciente_id INTEGER REFERENCES pacientes (id),
    medico_id INTEGER REFERENCES medicos (id), sala_id INTEGER REFERENCES salas (id),
    unidade_id INTEGER NOT NULL REFERENCES unidades (id),
    procedimento_id INTEGER NOT NULL REFERENCES procedimentos (id),
    convenio_id INTEGER NOT NULL, plano_id INTEGER,
    data_agendamento TEXT NOT NULL, hora_inicio TEXT NOT NULL, hora_fim TEXT NOT NULL,
    status TEXT NOT NULL, encaixe INTEGER NOT NULL DEFAULT 0, observacoes TEXT,
    paciente_nome TEXT, paciente_cpf TEXT, paciente_celular TEXT, paciente_nascimento TEXT,
    paciente_sexo TEXT, paciente_email TEXT,
    cancelado_em TEXT, cancelado_motivo TEXT, cancelado_por_chave_id INTEGER,
    reagendado_em TEXT, reagendado_motivo TEXT,
    criado_em TEXT NOT NULL, criado_por_chave_id INTEGER, atualizado_em TEXT
  )`,
  `CREATE INDEX agendamentos_paciente ON agendamentos (paciente_id, data_agendamento)`,
  `CREATE INDEX agendamentos_config ON agendamentos (agenda_config_id, data_agendamento)`,
  `CREATE INDEX agendamentos_medico ON agendamentos (medico_id, data_agendamento)`,
  `CREATE TABLE agendamento_historico (
    id INTEGER PRIMARY KEY, agendamento_id INTEGER NOT NULL REFERENCES agendamentos (id),
    status_anterior TEXT, status_novo TEXT NOT NULL, data_hora TEXT NOT NULL, observacao TEXT,
    origem TEXT NOT NULL DEFAULT 'API', chave_id INTEGER
  )`,
  `CREATE INDEX agendamento_historico_ag ON agendamento_historico (agendamento_id, id)`,
  `CREATE TABLE prontuarios (
    id INTEGER PRIMARY KEY, paciente_id INTEGER NOT NULL REFERENCES pacientes (id),
    medico_id INTEGER REFERENCES medicos (id),
    data_emissao TEXT NOT NULL, mensagem TEXT NOT NULL DEFAULT '',
    exibir INTEGER NOT NULL DEFAULT 1, rascunho INTEGER NOT NULL DEFAULT 0,
    criado_em TEXT NOT NULL, criado_por_chave_id INTEGER
  )`,
  `CREATE INDEX prontuarios_paciente ON prontuarios (paciente_id, data_emissao)`,
  `CREATE TABLE prontuario_anexos (
    id INTEGER PRIMARY KEY, paciente_id INTEGER NOT NULL REFERENCES pacientes (id),
    prontuario_id INTEGER REFERENCES prontuarios (id),
    descricao TEXT NOT NULL, nome_arquivo TEXT NOT NULL, extensao TEXT NOT NULL,
    tamanho INTEGER NOT NULL, object_key TEXT NOT NULL, criado_em TEXT NOT NULL
  )`,
  `CREATE INDEX prontuario_anexos_paciente ON prontuario_anexos (paciente_id)`,
];

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of statements) await sql.raw(statement).execute(db);
  },
};
