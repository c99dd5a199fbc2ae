/**
 * What a zod schema checks a value against, read from its definition: the envelope's error details (which keys a
 * body may carry) and the contract guard's checks (server/proxy) walk the same wrappers.
 */
export interface ZodDef {
  type?: string;
  shape?: Record<string, unknown>;
  innerType?: unknown;
  in?: unknown;
  out?: unknown;
  element?: unknown;
  options?: unknown[];
  left?: unknown;
  right?: unknown;
  getter?: () => unknown;
}

export const defOf = (schema: unknown): ZodDef | undefined =>
  (schema as { _zod?: { def?: ZodDef } } | null | undefined)?._zod?.def;

/** The definitions a value is checked against, through wrappers (optional, default…), pipes, unions and intersections. */
export function leaves(schema: unknown, depth = 0): ZodDef[] {
  const def = defOf(schema);
  if (!def || depth > 32) return [];
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'readonly':
    case 'catch':
      return leaves(def.innerType, depth + 1);
    case 'pipe':
      return [...leaves(def.in, depth + 1), ...leaves(def.out, depth + 1)];
    case 'union':
      return (def.options ?? []).flatMap((option) => leaves(option, depth + 1));
    case 'intersection':
      return [...leaves(def.left, depth + 1), ...leaves(def.right, depth + 1)];
    case 'lazy':
      return leaves(def.getter?.(), depth + 1);
    default:
      return [def];
  }
}
