/** Static pt-BR reference data for the generator. Codes look real; they are not a licensed table. */
import cid10 from './cid10.json' with { type: 'json' };

export const NOMES_FEMININOS = ['Maria', 'Ana', 'Francisca', 'Antonia', 'Adriana', 'Juliana', 'Marcia', 'Fernanda', 'Patricia', 'Aline', 'Sandra', 'Camila', 'Amanda', 'Bruna', 'Jessica', 'Leticia', 'Julia', 'Luciana', 'Vanessa', 'Mariana', 'Gabriela', 'Beatriz', 'Larissa', 'Raquel', 'Helena', 'Alice', 'Laura', 'Valentina', 'Sofia', 'Isabela', 'Manuela', 'Lívia', 'Cecília', 'Lúcia', 'Tânia', 'Débora', 'Simone', 'Renata', 'Cristina', 'Eliane'];
export const NOMES_MASCULINOS = ['José', 'João', 'Antonio', 'Francisco', 'Carlos', 'Paulo', 'Pedro', 'Lucas', 'Luiz', 'Marcos', 'Luis', 'Gabriel', 'Rafael', 'Daniel', 'Marcelo', 'Bruno', 'Eduardo', 'Felipe', 'Raimundo', 'Rodrigo', 'Miguel', 'Arthur', 'Heitor', 'Bernardo', 'Davi', 'Theo', 'Lorenzo', 'Gustavo', 'Matheus', 'Vinícius', 'Thiago', 'Leonardo', 'Fábio', 'Sérgio', 'Ricardo', 'André', 'Otávio', 'Caio', 'Renato', 'Henrique'];
export const SOBRENOMES = ['Silva', 'Santos', 'Oliveira', 'Souza', 'Rodrigues', 'Ferreira', 'Alves', 'Pereira', 'Lima', 'Gomes', 'Costa', 'Ribeiro', 'Martins', 'Carvalho', 'Almeida', 'Lopes', 'Soares', 'Fernandes', 'Vieira', 'Barbosa', 'Rocha', 'Dias', 'Nascimento', 'Andrade', 'Moreira', 'Nunes', 'Marques', 'Machado', 'Mendes', 'Freitas', 'Cardoso', 'Ramos', 'Gonçalves', 'Santana', 'Teixeira', 'Araújo', 'Pinto', 'Correia', 'Cavalcanti', 'Monteiro', 'Moura', 'Batista', 'Campos', 'Castro', 'Farias', 'Brito', 'Azevedo', 'Conceição'];

/** [cidade, UF, CEP prefix (5 digits), DDD] */
export const CIDADES: readonly (readonly [string, string, string, string])[] = [
  ['São Paulo', 'SP', '01310', '11'], ['Campinas', 'SP', '13010', '19'], ['Santos', 'SP', '11010', '13'], ['Ribeirão Preto', 'SP', '14010', '16'],
  ['Rio de Janeiro', 'RJ', '20040', '21'], ['Niterói', 'RJ', '24020', '21'], ['Belo Horizonte', 'MG', '30130', '31'], ['Uberlândia', 'MG', '38400', '34'],
  ['Curitiba', 'PR', '80010', '41'], ['Londrina', 'PR', '86010', '43'], ['Porto Alegre', 'RS', '90010', '51'], ['Florianópolis', 'SC', '88010', '48'],
  ['Salvador', 'BA', '40020', '71'], ['Recife', 'PE', '50010', '81'], ['Fortaleza', 'CE', '60060', '85'], ['Brasília', 'DF', '70040', '61'],
  ['Goiânia', 'GO', '74003', '62'], ['Belém', 'PA', '66010', '91'], ['Manaus', 'AM', '69005', '92'], ['Vitória', 'ES', '29010', '27'],
];
export const LOGRADOUROS = ['Rua das Flores', 'Avenida Brasil', 'Rua XV de Novembro', 'Rua Sete de Setembro', 'Avenida Paulista', 'Rua Tiradentes', 'Rua Dom Pedro II', 'Avenida Getúlio Vargas', 'Rua São João', 'Rua da Consolação', 'Avenida Atlântica', 'Rua Marechal Deodoro', 'Rua Barão do Rio Branco', 'Avenida Rio Branco', 'Rua Santa Catarina', 'Rua Bahia', 'Rua Amazonas', 'Avenida Independência', 'Rua José Bonifácio', 'Rua Voluntários da Pátria'];
export const BAIRROS = ['Centro', 'Jardim América', 'Vila Mariana', 'Boa Vista', 'Santa Cecília', 'Copacabana', 'Savassi', 'Batel', 'Moinhos de Vento', 'Barra', 'Boa Viagem', 'Aldeota', 'Asa Sul', 'Setor Bueno', 'Nazaré', 'Jardim Paulista', 'Vila Nova', 'Bela Vista', 'Liberdade', 'São Francisco'];
export const COMPLEMENTOS_END = ['', '', '', 'Apto 101', 'Apto 32', 'Casa 2', 'Bloco B', 'Sala 5', 'Fundos'];
export const DOMINIOS = ['gmail.com', 'hotmail.com', 'outlook.com', 'yahoo.com.br', 'uol.com.br', 'bol.com.br', 'terra.com.br'];
export const ESTADOS_CIVIS = ['Solteiro(a)', 'Casado(a)', 'Divorciado(a)', 'Viúvo(a)', 'União estável'];
export const SAUDACOES_PACIENTE = ['Sr.', 'Sra.', 'Srta.'];
export const SAUDACOES_MEDICO = ['Dr.', 'Dra.', 'Prof. Dr.', 'Prof. Dra.'];
export const GRUPOS_PERMISSAO = ['Médicos', 'Médicos laudadores', 'Administrativo', 'Recepção'];
export const ESPECIALIDADES = ['Radiologia e Diagnóstico por Imagem', 'Cardiologia', 'Ginecologia e Obstetrícia', 'Clínica Médica', 'Ortopedia e Traumatologia', 'Neurologia', 'Gastroenterologia', 'Endocrinologia', 'Pneumologia', 'Urologia'];
export const CORES_AGENDA = ['#1E88E5', '#43A047', '#E53935', '#8E24AA', '#FB8C00', '#00897B', '#3949AB', '#6D4C41'];

/** [nome, abreviacao, codigo TUSS, descricao TUSS, requer_laudo, possui_imagens] */
export const PROCEDIMENTOS: readonly (readonly [string, string, string, string, number, number])[] = [
  ['Ultrassonografia de abdome total', 'USGABDT', '40901122', 'US - Abdome total (abdome superior, rins, bexiga, aorta, veia cava inferior e adrenais)', 1, 1],
  ['Ultrassonografia de abdome superior', 'USGABDS', '40901114', 'US - Abdome superior (fígado, vias biliares, vesícula, pâncreas, baço)', 1, 1],
  ['Ultrassonografia de tireoide', 'USGTIR', '40901319', 'US - Tireóide', 1, 1],
  ['Ultrassonografia transvaginal', 'USGTV', '40901360', 'US - Transvaginal (útero, ovário, anexos e vagina)', 1, 1],
  ['Ultrassonografia obstétrica', 'USGOBS', '40901203', 'US - Obstétrica', 1, 1],
  ['Ultrassonografia de mamas', 'USGMAM', '40901289', 'US - Mamas', 1, 1],
  ['Ultrassonografia de próstata via abdominal', 'USGPRO', '40901300', 'US - Próstata (via abdominal)', 1, 1],
  ['Ecodopplercardiograma transtorácico', 'ECOTT', '40901386', 'Ecodopplercardiograma transtorácico', 1, 1],
  ['Doppler colorido de carótidas e vertebrais', 'DOPCAR', '40901475', 'Doppler colorido de vasos cervicais arteriais bilateral (carótidas e vertebrais)', 1, 1],
  ['Radiografia de tórax PA e perfil', 'RXTOR', '40805026', 'RX - Tórax - 2 incidências', 1, 1],
  ['Radiografia de coluna lombossacra', 'RXLOMB', '40803082', 'RX - Coluna lombo-sacra', 1, 1],
  ['Radiografia de joelho', 'RXJOE', '40804054', 'RX - Joelho (AP + perfil)', 1, 1],
  ['Mamografia bilateral', 'MAMO', '40808033', 'Mamografia convencional bilateral', 1, 1],
  ['Densitometria óssea de coluna e fêmur', 'DEXA', '40808041', 'Densitometria óssea - rotina (coluna e fêmur)', 1, 1],
  ['Tomografia computadorizada de crânio', 'TCCRA', '41001010', 'TC - Crânio ou sela túrcica ou órbitas', 1, 1],
  ['Tomografia computadorizada de tórax', 'TCTOR', '41001109', 'TC - Tórax', 1, 1],
  ['Tomografia computadorizada de abdome total', 'TCABD', '41001133', 'TC - Abdome total (abdome superior, pelve e retroperitônio)', 1, 1],
  ['Ressonância magnética de crânio', 'RMCRA', '41101014', 'RM - Crânio (encéfalo)', 1, 1],
  ['Ressonância magnética de coluna lombar', 'RMLOMB', '41101120', 'RM - Coluna lombo-sacra', 1, 1],
  ['Ressonância magnética de joelho', 'RMJOE', '41101189', 'RM - Articular (por articulação)', 1, 1],
  ['Eletrocardiograma', 'ECG', '40101010', 'ECG convencional de até 12 derivações', 1, 0],
  ['Teste ergométrico', 'ERGO', '40101045', 'Teste ergométrico computadorizado', 1, 0],
  ['Holter 24 horas', 'HOLTER', '40101037', 'Holter de 24 horas - 3 ou mais canais - analógico', 1, 0],
  ['MAPA 24 horas', 'MAPA', '40101029', 'Monitorização ambulatorial da pressão arterial - MAPA 24 horas', 1, 0],
  ['Eletroencefalograma', 'EEG', '40103072', 'Eletroencefalograma em vigília e sono espontâneo', 1, 0],
  ['Espirometria', 'ESPIRO', '40107037', 'Prova de função pulmonar completa (espirometria)', 1, 0],
  ['Endoscopia digestiva alta', 'EDA', '40202038', 'Endoscopia digestiva alta', 1, 1],
  ['Colonoscopia', 'COLONO', '40202666', 'Colonoscopia (inclui a retossigmoidoscopia)', 1, 1],
  ['Audiometria tonal limiar', 'AUDIO', '40103170', 'Audiometria tonal limiar com testes de discriminação', 1, 0],
  ['Consulta em consultório', 'CONS', '10101012', 'Em consultório (no horário normal ou preestabelecido)', 0, 0],
];

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
  ['Unidade Centro', 'CEN'], ['Unidade Jardins', 'JAR'], ['Unidade Zona Norte', 'ZN'],
];
export const SALAS = ['Sala de Ultrassom 1', 'Sala de Ultrassom 2', 'Sala de Raio-X', 'Sala de Tomografia', 'Sala de Ressonância', 'Sala de Cardiologia'];
export const COMPLEMENTOS = ['Com contraste', 'Sem contraste', 'Bilateral', 'Com Doppler', 'Com sedação', 'Complementar', 'Urgência'];
export const GRUPOS_LAUDOS = ['Radiologia geral', 'Ultrassonografia', 'Cardiologia não invasiva', 'Neurorradiologia'];

export const MENSAGENS_PRONTUARIO = [
  '<p>Paciente refere dor abdominal há 3 dias. Solicitado ultrassom de abdome total.</p>',
  '<p>Retorno com exames. Sem alterações significativas. Manter conduta.</p>',
  '<p>Orientado jejum de 8 horas para o exame.</p>',
  '<p>Paciente hipertenso em uso de losartana 50 mg. PA 130x85 mmHg.</p>',
  '<p>Solicitada mamografia de rastreamento anual.</p>',
  '<p>Encaminhado ao cardiologista para avaliação.</p>',
];
export const OBSERVACOES_HISTORICO = ['Lembrete automático enviado por SMS', 'Confirmado pelo paciente via WhatsApp', 'Paciente chegou à recepção', null];
