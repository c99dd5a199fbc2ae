export const REDACTED = '[REDACTED]';

/** Keys masked in the `POST /v1/ping` echo (spec § Health). */
export const PING_REDACTED_KEYS = ['senha', 'password', 'cpf', 'cns', 'rg', 'token', 'api_secret'];

/** Keys masked in audited bodies (spec § Data protection rules). `paciente_nome` is deliberately absent. */
export const AUDIT_REDACTED_KEYS = [
  'senha',
  'password',
  'secret',
  'token',
  'usuario',
  'api_key',
  'api_secret',
  'x_signature',
  'authorization',
  'cpf',
  'cnpj',
  'rg',
  'cns',
  'cpf_responsavel',
  'paciente_cpf',
  'paciente_rg',
  'celular',
  'telefone',
  'email',
  'paciente_celular',
  'paciente_email',
  'numero_carteirinha',
  'numero_cartaonacionalsaude',
  'data_nascimento',
  // The other appointment snapshots (spec § Data protection: "never returned"), masked like their peers above.
  'paciente_nascimento',
  'paciente_sexo',
];

export function keySet(keys: string[]): ReadonlySet<string> {
  return new Set(keys.map((k) => k.toLowerCase()));
}

/** What stands in for a value nested deeper than the walk goes (never reached for bodies the gateway accepted). */
export const TOO_DEEP = '[PROFUNDIDADE EXCEDIDA]';

/**
 * Case-insensitive, at any depth: any value under a listed key becomes `[REDACTED]`, whatever its type.
 * Iterative (an explicit stack), so no input can overflow the call stack; below `maxDepth` levels a
 * value is replaced by TOO_DEEP rather than copied. `leaf`, when given, maps every other non-object
 * value in the same walk (the audit log shortens long strings).
 */
export function redact(
  value: unknown,
  keys: ReadonlySet<string>,
  maxDepth = 256,
  leaf?: (value: unknown) => unknown,
): unknown {
  const root: { value: unknown } = { value: undefined };
  const work: Array<{
    source: unknown;
    target: Record<string, unknown> | unknown[];
    slot: string | number;
    depth: number;
  }> = [{ source: value, target: root as unknown as Record<string, unknown>, slot: 'value', depth: 0 }];
  while (work.length > 0) {
    const { source, target, slot, depth } = work.pop()!;
    let copy: unknown = leaf ? leaf(source) : source;
    if (source !== null && typeof source === 'object') {
      if (depth >= maxDepth) copy = TOO_DEEP;
      else if (Array.isArray(source)) {
        const out: unknown[] = new Array(source.length);
        source.forEach((item, i) => {
          work.push({ source: item, target: out, slot: i, depth: depth + 1 });
        });
        copy = out;
      } else {
        const out: Record<string, unknown> = {};
        for (const [name, inner] of Object.entries(source)) {
          // Every key is placed now, in its order; nested values fill their slot later.
          out[name] = REDACTED;
          if (!keys.has(name.toLowerCase())) work.push({ source: inner, target: out, slot: name, depth: depth + 1 });
        }
        copy = out;
      }
    }
    (target as Record<string | number, unknown>)[slot] = copy;
  }
  return root.value;
}
