/**
 * Deepest JSON nesting accepted in a request body. Far above anything the spec's payloads need
 * (exam create nests 3 levels), far below what would strain a recursive walk.
 */
export const MAX_JSON_DEPTH = 64;

const OPEN_OBJECT = '{'.charCodeAt(0);
const OPEN_ARRAY = '['.charCodeAt(0);
const CLOSE_OBJECT = '}'.charCodeAt(0);
const CLOSE_ARRAY = ']'.charCodeAt(0);
const QUOTE = '"'.charCodeAt(0);
const BACKSLASH = '\\'.charCodeAt(0);

/**
 * The deepest bracket nesting of JSON text, scanned byte by byte (brackets inside strings do not
 * count), without parsing: stops as soon as `limit` is passed, so 10,000 levels cost nothing.
 */
export function jsonDepthExceeds(raw: Buffer | string, limit = MAX_JSON_DEPTH): boolean {
  const bytes = typeof raw === 'string' ? Buffer.from(raw) : raw;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) depth--;
  }
  return false;
}
