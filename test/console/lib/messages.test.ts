import { describe, expect, it } from 'vitest';
import { auditQuerySchema } from '../../../contracts/admin/audit.ts';
import { loginSchema } from '../../../contracts/admin/auth.ts';
import { issueKeySchema } from '../../../contracts/admin/keys.ts';
import { englishMessage, errorSentence, issuesToFields } from '../../../console/src/lib/messages.ts';

// Importing messages.ts installs the console's English zod messages in this (isolated) test file.
describe('console messages', () => {
  it('translates the shared schemas’ Portuguese messages', () => {
    const login = loginSchema.safeParse({ username: '', password: '' });
    expect(login.success).toBe(false);
    expect(issuesToFields(login.error!.issues)).toEqual({
      username: 'Enter your username.',
      password: 'Enter your password.',
    });
    const key = issueKeySchema.safeParse({ scopes: [] });
    expect(issuesToFields(key.error!.issues).scopes).toBe('Choose at least one scope.');
  });

  it("gives zod's defaults in English (the audit filter's number)", () => {
    const audit = auditQuerySchema.safeParse({ chave_id: 'abc' });
    expect(audit.success).toBe(false);
    expect(issuesToFields(audit.error!.issues).chave_id).toBe('Enter a whole number.');
  });

  it('turns console API errors into sentences', () => {
    expect(errorSentence({ code: 'ADMIN_CSRF_INVALID', message: 'Token CSRF ausente ou invalido.' })).toMatch(
      /Reload the page/,
    );
    expect(
      errorSentence({ code: 'ADMIN_UNAUTHENTICATED', message: 'Sessao ausente ou expirada. Entre novamente.' }),
    ).toBe('Your session expired — sign in again.');
    expect(errorSentence({ code: 'RES_NOT_FOUND', message: 'Key 99 does not exist' })).toBe('Key 99 does not exist');
    expect(errorSentence({ code: 'SERVICE_UNAVAILABLE', message: 'Backend indisponivel' })).toMatch(
      /clinic backend is not answering/,
    );
    expect(
      errorSentence({
        code: 'VAL_INVALID_PARAM',
        message: 'x',
        details: { lista: [{ field: 'scopes', msg: 'Escolha ao menos um escopo.' }] },
      }),
    ).toBe('Check this field: scopes — Choose at least one scope.');
    expect(englishMessage('A message of the console itself.')).toBe('A message of the console itself.');
  });
});
