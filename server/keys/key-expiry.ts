/**
 * How an expired key's refusal begins (issue 31 § 4: 401 AUTH_KEY_REVOKED, the spec's code for a key that may no
 * longer sign): the auth plugin writes it followed by the expiry, the journal's explanation recognises it.
 */
export const KEY_EXPIRED_MESSAGE = 'Chave de API expirada em';
