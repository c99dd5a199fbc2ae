/** Static pt-BR reference data for the generator. Codes look real; they are not a licensed table. */
import cid10 from './cid10.json' with { type: 'json' };
import procedimentos from './procedimentos.json' with { type: 'json' };
import words from './words.json' with { type: 'json' };

/** Words and phrases the generator picks from (seed/words.json: lists of words are data). */
export const {
  NOMES_FEMININOS,
  NOMES_MASCULINOS,
  SOBRENOMES,
  LOGRADOUROS,
  BAIRROS,
  COMPLEMENTOS_END,
  DOMINIOS,
  ESTADOS_CIVIS,
  SAUDACOES_PACIENTE,
  SAUDACOES_MEDICO,
  GRUPOS_PERMISSAO,
  ESPECIALIDADES,
  CORES_AGENDA,
  SALAS,
  COMPLEMENTOS,
  GRUPOS_LAUDOS,
  MENSAGENS_PRONTUARIO,
  OBSERVACOES_HISTORICO,
} = words;

/** [cidade, UF, CEP prefix (5 digits), DDD] */
export const CIDADES: readonly (readonly [string, string, string, string])[] = [
  ['São Paulo', 'SP', '01310', '11'],
  ['Campinas', 'SP', '13010', '19'],
  ['Santos', 'SP', '11010', '13'],
  ['Ribeirão Preto', 'SP', '14010', '16'],
  ['Rio de Janeiro', 'RJ', '20040', '21'],
  ['Niterói', 'RJ', '24020', '21'],
  ['Belo Horizonte', 'MG', '30130', '31'],
  ['Uberlândia', 'MG', '38400', '34'],
  ['Curitiba', 'PR', '80010', '41'],
  ['Londrina', 'PR', '86010', '43'],
  ['Porto Alegre', 'RS', '90010', '51'],
  ['Florianópolis', 'SC', '88010', '48'],
  ['Salvador', 'BA', '40020', '71'],
  ['Recife', 'PE', '50010', '81'],
  ['Fortaleza', 'CE', '60060', '85'],
  ['Brasília', 'DF', '70040', '61'],
  ['Goiânia', 'GO', '74003', '62'],
  ['Belém', 'PA', '66010', '91'],
  ['Manaus', 'AM', '69005', '92'],
  ['Vitória', 'ES', '29010', '27'],
];

/**
 * Procedures, in the order of their ids, as [nome, abreviacao, codigo TUSS, descricao TUSS, requer_laudo,
 * possui_imagens] (seed/procedimentos.json: a reference table is data, like CIDS).
 */
export const PROCEDIMENTOS: readonly (readonly [string, string, string, string, number, number])[] = procedimentos.map(
  (p) => [p.nome, p.abreviacao, p.codigo_tuss, p.descricao_tuss, p.requer_laudo, p.possui_imagens] as const,
);

/** [nome, abreviacao, registro ANS (6 digits), planos] */
export const CONVENIOS: readonly (readonly [string, string, string, readonly string[]])[] = [
  ['Unimed', 'UNIMED', '339679', ['Unimed Nacional', 'Unimed Estadual', 'Unimed Empresarial']],
  ['Bradesco Saúde', 'BRADESCO', '005711', ['Nacional Flex', 'Top Nacional', 'Efetivo']],
  ['SulAmérica Saúde', 'SULAMERICA', '006246', ['Clássico', 'Especial 100', 'Executivo']],
  ['Amil', 'AMIL', '326305', ['Amil 400', 'Amil 500', 'Amil One']],
  ['Porto Seguro Saúde', 'PORTO', '000582', ['Bronze', 'Prata', 'Ouro']],
  ['NotreDame Intermédica', 'GNDI', '359017', ['Smart 200', 'Advance 600']],
  ['Hapvida', 'HAPVIDA', '368253', ['Mix', 'Pleno']],
  ['Cassi', 'CASSI', '346659', ['Cassi Família']],
  ['Geap Saúde', 'GEAP', '323080', ['GeapEssencial', 'GeapReferência']],
  ['Particular', 'PART', '', []],
];

/** ICD-10 [codigo, nome], in the order of their ids (seed/cid10.json: a reference table is data, not code). */
export const CIDS: readonly (readonly [string, string])[] = cid10.map(({ codigo, nome }) => [codigo, nome] as const);

export const UNIDADES: readonly (readonly [string, string])[] = [
  ['Unidade Centro', 'CEN'],
  ['Unidade Jardins', 'JAR'],
  ['Unidade Zona Norte', 'ZN'],
];
