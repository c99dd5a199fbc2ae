export const REDACTED = '[REDACTED]';

/** Keys masked in the `POST /v1/ping` echo (spec § Health). */
export const PING_REDACTED_KEYS = ['senha', 'password', 'cpf', 'cns', 'rg', 'token', 'api_secret'];

/** Keys masked in audited bodies (spec § Data protection rules). `paciente_nome` is deliberately absent. */
export const AUDIT_REDACTED_KEYS = [
  'senha', 'password', 'secret', 'token', 'usuario', 'api_key', 'api_secret', 'x_signature', 'authorization',
  'cpf', 'cnpj', 'rg', 'cns', 'cpf_responsavel', 'paciente_cpf', 'paciente_rg', 'celular', 'telefone', 'email',
  'paciente_celular', 'paciente_email', 'numero_carteirinha', 'numero_cartaonacionalsaude', 'data_nascimento',
  // The other appointment snapshots (spec § Data protection: "never returned"), masked like their peers above.
  'paciente_nascimento', 'paciente_sexo',
];

export function keySet(keys: string[]): ReadonlySet<string> {
  return new Set(keys.map((k) => k.toLowerCase()));
}

/** Recursive, case-insensitive: any value under a listed key becomes `[REDACTED]`, whatever its type. */
export function redact(value: unknown, keys: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map((item) => redact(item, keys));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [name, inner] of Object.entries(value)) {
      out[name] = keys.has(name.toLowerCase()) ? REDACTED : redact(inner, keys);
    }
    return out;
  }
  return value;
}
