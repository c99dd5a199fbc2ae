/**
 * The console speaks English (docs/console.md § Language). The shared schemas of server/admin carry the
 * public API's Portuguese messages and the console API answers in Portuguese too; nothing here changes
 * what the server says — the console translates what it shows.
 */
import { z } from 'zod';

/** Messages written in server/admin's schemas and routes, as an operator should read them. */
const MESSAGES_EN: Record<string, string> = {
  'Informe o usuario.': 'Enter your username.',
  'Informe a senha.': 'Enter your password.',
  'Usuario ou senha invalidos.': 'Wrong username or password.',
  'Sessao ausente ou expirada. Entre novamente.': 'Your session expired — sign in again.',
  'Token CSRF ausente ou invalido.': 'The page lost its security token. Reload the page and try again.',
  'Medico invalido.': 'Choose a doctor from the list.',
  'Medico inexistente nesta clinica.': 'That doctor does not belong to this clinic.',
  'Maximo de 100 caracteres.': 'Use at most 100 characters.',
  'Escolha ao menos um escopo.': 'Choose at least one scope.',
  'Nada para alterar.': 'Nothing to change.',
  'Data de expiracao invalida (ISO 8601 com fuso, ex.: 2027-01-31T18:00:00Z).': 'Enter a valid expiry date and time.',
  'Validade em dias: um inteiro de 1 a 1825.': 'Enter a whole number of days from 1 to 1825 (5 years).',
  'Informe expires_at ou expires_in_days, nao os dois.': 'Give an expiry date or a number of days, not both.',
  'Use 1-40 letras minusculas, digitos ou hifens.':
    'Use 1–40 lowercase letters, digits or hyphens (not at the start or end).',
  'Informe o nome.': 'Enter a name.',
  'Use um id positivo ou deixe vazio.': 'Use a positive id or leave it empty.',
  'Use um caminho publico, ex.: /v1/pacientes*': 'Use a public API path, e.g. /v1/pacientes*',
  'Idempotency-Key deve ter 1 a 64 caracteres [A-Za-z0-9_-].':
    'An Idempotency-Key is 1 to 64 letters, digits, “-” or “_”.',
  'No maximo 120000 ms.': 'At most 120000 ms.',
  'Entre 0 e 1.': 'Use a number between 0 and 1.',
  'Entre 0 (exclusivo) e 1.': 'Use a number above 0 and at most 1.',
  'Informe a latencia em ms.': 'Enter the latency in milliseconds.',
  'Data invalida (ISO 8601).': 'Enter a valid date and time.',
  'Informe para que serve o token.': 'Say what the token is for.',
  'Avance ao menos 1 segundo.': 'Move the clock by at least 1 second.',
  'Informe advance_seconds ou offset_seconds (um dos dois).': 'Give either a move or an offset, not both.',
  'Clinica nao encontrada.': 'That clinic does not exist.',
  'Falha de armazenamento nao encontrada.': 'That storage fault no longer exists.',
  'Token de operador inexistente.': 'That operator token does not exist.',
  'Token de operador invalido.': 'That operator token is not valid.',
  'O banco da clinica nao pode ser aberto no backend.': "The clinic's database could not be opened by the backend.",
  'Controle do relogio disponivel apenas com APP_ENV=development.':
    'The clock can only be moved when the appliance runs with APP_ENV=development.',
  'Token de operador revogado.': 'That operator token was revoked.',
  'Journal de auditoria indisponivel: a requisicao foi recusada sem ser servida. Tente novamente.':
    'The audit journal could not record this action, so it was refused. See the banner at the top; try again once it clears.',
  'Armazenamento do gateway indisponivel: nada foi executado. Tente novamente.':
    "The gateway's database could not take the write (disk full or read-only); nothing was done. Try again later.",
  // Operator accounts (issue 22 § 6).
  'Operador viewer: acesso somente leitura. Esta acao exige um operador admin.':
    'Your account is a viewer (read-only): this action needs an admin.',
  'Token de operador de uma conta desativada.': 'That operator token belongs to a disabled operator.',
  'Informe a senha atual.': 'Enter your current password.',
  'Senha atual incorreta.': 'The current password is wrong.',
  'A senha precisa de ao menos 12 caracteres.': 'Use at least 12 characters.',
  'No maximo 200 caracteres.': 'Use at most 200 characters.',
  'A nova senha deve ser diferente da atual.': 'Choose a password different from the current one.',
  'Use 1-64 letras minusculas, digitos, ponto, hifen ou sublinhado.':
    'Use 1–64 lowercase letters, digits, dots, hyphens or underscores.',
  'Papel invalido: use admin ou viewer.': 'Choose admin or viewer.',
  'Operador inexistente.': 'That operator does not exist.',
  'Token de operador ativo: revogue-o antes de remove-lo.': 'That token is still active: revoke it before removing it.',
};

/** A schema or server message in English (unknown messages pass through: the console's own are English). */
export function englishMessage(message: string): string {
  return MESSAGES_EN[message] ?? MESSAGES_EN[message.trim()] ?? message;
}

/** Console API error codes as sentences; used when the server's own message is not an operator's sentence. */
const CODE_SENTENCES: Record<string, string> = {
  NETWORK: 'The gateway could not be reached. Is it running?',
  BAD_RESPONSE: 'The gateway gave an answer the console cannot read. Try again; if it persists, check the gateway log.',
  ADMIN_UNAUTHENTICATED: 'Your session expired — sign in again.',
  ADMIN_CSRF_INVALID: 'The page lost its security token. Reload the page and try again.',
  ADMIN_LOCKED: 'Too many failed sign-ins from this address. Wait and try again.',
  ADMIN_FORBIDDEN: 'This token is not valid for that clinic.',
  VAL_INVALID_PARAM: 'Some fields need attention.',
  VAL_BACKEND: 'The clinic backend refused the values. Check the fields and try again.',
  RES_NOT_FOUND: 'It no longer exists — refresh the page.',
  NOT_FOUND: 'It no longer exists — refresh the page.',
  INVALID_STATE: 'That is not possible in its current state (for example, the key is revoked).',
  CONFLICT: 'That already exists.',
  DUPLICATE: 'That already exists.',
  INVALID_REFERENCE: 'A referenced item does not exist in this clinic.',
  OPERATION_NOT_ALLOWED: 'This action is not allowed on this appliance.',
  RATE_LIMIT_EXCEEDED: 'Too many requests. Wait a moment and try again.',
  SERVICE_UNAVAILABLE: 'The clinic backend is not answering. Try again in a moment.',
  SERVICE_TIMEOUT: 'The clinic backend took too long to answer. Try again in a moment.',
  INTERNAL_ERROR:
    'The gateway hit an unexpected error. Try again; if it persists, check the gateway log with the request id.',
};

/** The service layer's messages are English already ("Key 12 does not exist"); keep their detail. */
const looksEnglish = (text: string) =>
  /\b(the|does|not|already|exists|is|was|key|tenant|clinic)\b/i.test(text) &&
  !/\b(nao|invalid[oa]|informe)\b/i.test(text);

/** The sentence to show an operator for a console API error. */
export function errorSentence(error: {
  code: string;
  message: string;
  details?: Record<string, unknown> | null;
}): string {
  const translated = MESSAGES_EN[error.message];
  if (translated) return translated;
  const lista = (error.details?.lista ?? []) as Array<{ field: string; msg: string }>;
  if (error.code === 'VAL_INVALID_PARAM' && lista.length > 0) {
    return `Check ${lista.length === 1 ? 'this field' : 'these fields'}: ${lista.map((i) => `${i.field} — ${englishMessage(i.msg)}`).join('; ')}`;
  }
  if (
    looksEnglish(error.message) &&
    ['RES_NOT_FOUND', 'INVALID_STATE', 'CONFLICT', 'VAL_INVALID_PARAM', 'NETWORK', 'BAD_RESPONSE'].includes(error.code)
  ) {
    return error.message;
  }
  return (
    CODE_SENTENCES[error.code] ?? (looksEnglish(error.message) ? error.message : `The request failed (${error.code}).`)
  );
}

/** Field → English message from zod issues (first issue per field wins). */
export function issuesToFields(
  issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of issues) out[String(issue.path[0] ?? 'body')] ??= englishMessage(issue.message);
  return out;
}

/**
 * zod's own defaults ("Invalid input: expected number, received NaN") as an operator reads them. Schema-level
 * messages still win (and are translated where shown); this covers checks written without a message.
 * Installed in the console bundle only: the server never imports console/src.
 */
export function installConsoleZodMessages(): void {
  z.config({
    customError: (issue) => {
      switch (issue.code) {
        case 'invalid_type':
          if (issue.expected === 'number' || issue.expected === 'int') return 'Enter a whole number.';
          return issue.input === undefined ? 'This field is required.' : 'This value has the wrong type.';
        case 'too_small':
          if (issue.origin === 'string')
            return Number(issue.minimum) <= 1 ? 'This field is required.' : `Use at least ${issue.minimum} characters.`;
          if (issue.origin === 'array' || issue.origin === 'set') return `Choose at least ${issue.minimum}.`;
          return `Use a number of at least ${issue.minimum}.`;
        case 'too_big':
          if (issue.origin === 'string') return `Use at most ${issue.maximum} characters.`;
          if (issue.origin === 'array' || issue.origin === 'set') return `Choose at most ${issue.maximum}.`;
          return `Use a number of at most ${issue.maximum}.`;
        case 'invalid_format':
          if (issue.format === 'datetime') return 'Enter a valid date and time.';
          if (issue.format === 'regex') return 'This value has the wrong format.';
          return `Enter a valid ${issue.format}.`;
        case 'invalid_value':
          return `Choose one of: ${issue.values.map(String).join(', ')}.`;
        case 'unrecognized_keys':
          return `Unknown field${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}.`;
        case 'not_multiple_of':
          return `Use a multiple of ${issue.divisor}.`;
        default:
          return 'This value is not valid.';
      }
    },
  });
}

// Every screen imports lib/ui.tsx, which imports this module: the console's zod speaks English from the start.
installConsoleZodMessages();
