import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { jsonDepthExceeds } from '../http/json-depth.ts';
import { signingPayload } from './signing.ts';

/**
 * Development mode only (APP_ENV=development): what the server signed when a signature does not match,
 * and which common mistake explains it (docs/api/README-signing.md § When the signature does not match).
 *
 * The likely causes are found by recomputing the HMAC, with the key's secret, over variants of the
 * payload (re-serialized JSON, full URL, reordered query, missing LF, other method…) and comparing each
 * with the signature that was sent, in constant time. The answer only says which variant the sent
 * signature matches: it never holds a computed signature, the expected one included, nor the secret, so
 * it gives nobody without the secret anything to sign with.
 */

/** The line feed of the payload, made visible: `⏎` then the LF itself (so `jq -r` shows the lines too). */
export const VISIBLE_LF = '⏎';
/** A carriage return in the payload (CRLF mistakes): shown as `␍`, never as a raw CR. */
export const VISIBLE_CR = '␍';
/** Body bytes shown in `payload_assinado`; `corpo_bytes` and `corpo_sha256` describe the whole body. */
export const MAX_SHOWN_BODY_BYTES = 4096;
/**
 * Above this body size no variant is recomputed: each one hashes (and some re-serialize) the whole body
 * again, about 40 HMACs, so a large body would turn one refused request into a CPU amplifier (issue 20).
 */
export const MAX_CHECKED_BODY_BYTES = 8 * 1024;

export type LikelyCauseCode =
  | 'SIGNATURE_UPPERCASE_HEX'
  | 'SIGNATURE_BASE64'
  | 'SIGNATURE_FORMAT'
  | 'SECRET_HEX_DECODED'
  | 'BODY_RESERIALIZED'
  | 'BODY_NOT_SIGNED'
  | 'BODY_TRAILING_NEWLINE'
  | 'FULL_URL_SIGNED'
  | 'PATH_WITHOUT_V1'
  | 'QUERY_REORDERED'
  | 'QUERY_OMITTED'
  | 'QUERY_ENCODING'
  | 'MISSING_LF'
  | 'CRLF_INSTEAD_OF_LF'
  | 'METHOD_DIFFERENT'
  | 'TIMESTAMP_DIFFERENT'
  | 'VARIANTS_NOT_CHECKED'
  | 'GET_BODY_NOT_SIGNED'
  | 'NO_VARIANT_MATCHED';

export interface LikelyCause {
  code: LikelyCauseCode;
  message: string;
}

export interface SignatureMismatch {
  /** The key's secret: used here to recompute variants, never returned. */
  secret: string;
  timestamp: string;
  method: string;
  /** The request target exactly as received. */
  pathAndQuery: string;
  rawBody: Buffer;
  /** X-Signature as sent. */
  sentSignature: string;
  /** Host header, for the "full URL signed" variants. */
  host?: string;
  /** A body sent with a GET: the gateway never reads it (`announcedBytes` from Content-Length; null when chunked). */
  unreadBody?: { announcedBytes: number | null };
}

interface Variant {
  code: LikelyCauseCode;
  message: string;
  payload: Buffer;
  /** HMAC key other than the secret's UTF-8 bytes (the hex-decoded secret). */
  key?: Buffer;
}

/** `details` of AUTH_INVALID_SIGNATURE in development mode. */
export function explainSignatureMismatch(input: SignatureMismatch): Record<string, unknown> {
  const { timestamp, method, pathAndQuery, rawBody } = input;
  const shownBody = rawBody.length > MAX_SHOWN_BODY_BYTES ? rawBody.subarray(0, MAX_SHOWN_BODY_BYTES) : rawBody;
  return {
    field: 'X-Signature',
    payload_assinado:
      visible(`${timestamp}.${method} ${pathAndQuery}\n`) +
      visible(shownBody.toString('utf8')) +
      (shownBody === rawBody ? '' : '…'),
    payload_truncado: shownBody !== rawBody,
    metodo: method,
    path_and_query: pathAndQuery,
    timestamp,
    corpo_bytes: rawBody.length,
    corpo_sha256: createHash('sha256').update(rawBody).digest('hex'),
    causas_provaveis: likelyCauses(input),
    ajuda:
      `Compare byte a byte com o payload que voce assinou: ${VISIBLE_LF} marca o LF (0x0A) que vem logo depois, ${VISIBLE_CR} um CR (0x0D). ` +
      'Estes detalhes so aparecem em APP_ENV=development. Veja docs/api/README-signing.md.',
  };
}

/** LF → `⏎` + LF, CR → `␍`, other control characters (but TAB) → `\xNN`. */
export function visible(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: it finds control characters to show them
  return text.replace(/[\x00-\x08\x0a-\x1f\x7f]/g, (c) => {
    if (c === '\n') return `${VISIBLE_LF}\n`;
    if (c === '\r') return VISIBLE_CR;
    return `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
  });
}

/** The sent signature as 32 bytes, however it was encoded, with what its encoding already tells. */
function decodeSent(sent: string): { digest: Buffer | null; causes: LikelyCause[]; base64: boolean } {
  if (/^[0-9a-f]{64}$/.test(sent)) return { digest: Buffer.from(sent, 'hex'), causes: [], base64: false };
  if (/^[0-9a-fA-F]{64}$/.test(sent)) {
    return {
      digest: Buffer.from(sent, 'hex'),
      base64: false,
      causes: [
        {
          code: 'SIGNATURE_UPPERCASE_HEX',
          message: 'X-Signature esta em hexadecimal maiusculo: envie os 64 caracteres em hex minusculo.',
        },
      ],
    };
  }
  if (/^[A-Za-z0-9+/]{43}=$/.test(sent) || /^[A-Za-z0-9_-]{43}$/.test(sent)) {
    return {
      digest: Buffer.from(sent.replace(/-/g, '+').replace(/_/g, '/'), 'base64'),
      base64: true,
      causes: [
        {
          code: 'SIGNATURE_BASE64',
          message: 'X-Signature parece estar em base64: envie o HMAC-SHA256 em hex minusculo (64 caracteres).',
        },
      ],
    };
  }
  return {
    digest: null,
    base64: false,
    causes: [
      {
        code: 'SIGNATURE_FORMAT',
        message: `X-Signature deve ter 64 caracteres hexadecimais minusculos (HMAC-SHA256 em hex); recebido ${sent.length} caractere(s) fora desse formato.`,
      },
    ],
  };
}

function likelyCauses(input: SignatureMismatch): LikelyCause[] {
  const sent = decodeSent(input.sentSignature);
  if (sent.digest?.length !== 32) return sent.causes;
  const secretKey = Buffer.from(input.secret, 'utf8');
  const matches = (payload: Buffer, key: Buffer = secretKey) =>
    timingSafeEqual(createHmac('sha256', key).update(payload).digest(), sent.digest!);

  const exact = signingPayload(input.timestamp, input.method, input.pathAndQuery, input.rawBody);
  if (matches(exact)) {
    // The digest is right, only its encoding is not: the format cause above says which.
    return sent.causes.map((cause) => ({
      ...cause,
      message: `${cause.message} Com essa correcao a assinatura confere.`,
    }));
  }
  if (input.rawBody.length > MAX_CHECKED_BODY_BYTES) {
    return [
      ...sent.causes,
      {
        code: 'VARIANTS_NOT_CHECKED',
        message: `Corpo acima de ${MAX_CHECKED_BODY_BYTES / 1024} KB: nenhuma variante verificada (custo). Compare corpo_bytes e corpo_sha256 com os do corpo que voce assinou.`,
      },
    ];
  }
  const found = new Map<LikelyCauseCode, LikelyCause>();
  for (const variant of variants(input)) {
    if (found.has(variant.code)) continue;
    if (matches(variant.payload, variant.key))
      found.set(variant.code, { code: variant.code, message: variant.message });
  }
  if (input.unreadBody) {
    // Its bytes were never read, so no variant can include them; most likely they were signed.
    const size =
      input.unreadBody.announcedBytes === null ? 'corpo chunked' : `corpo de ${input.unreadBody.announcedBytes} bytes`;
    found.set('GET_BODY_NOT_SIGNED', {
      code: 'GET_BODY_NOT_SIGNED',
      message:
        `Requisicao ${input.method} com ${size}: o gateway nao le o corpo de um ${input.method} e nao o inclui no payload, que termina no LF depois de path_and_query. ` +
        'Assine sem corpo e nao envie corpo (os filtros vao na query string).',
    });
  }
  if (found.size === 0) {
    found.set('NO_VARIANT_MATCHED', {
      code: 'NO_VARIANT_MATCHED',
      message:
        'Nenhuma variante comum confere. Confira o api_secret desta chave (apos uma rotacao o anterior deixa de valer) e compare byte a byte o seu payload com payload_assinado.',
    });
  }
  return [...sent.causes, ...found.values()];
}

function* variants(input: SignatureMismatch): Generator<Variant> {
  const { timestamp: ts, method, pathAndQuery: pq, rawBody: body } = input;
  const payload = (t: string, m: string, target: string, b: Buffer | string, separator = '\n') =>
    Buffer.concat([
      Buffer.from(`${t}.${m} ${target}${separator}`, 'utf8'),
      typeof b === 'string' ? Buffer.from(b, 'utf8') : b,
    ]);

  if (/^(?:[0-9a-fA-F]{2})+$/.test(input.secret)) {
    yield {
      code: 'SECRET_HEX_DECODED',
      message:
        'A assinatura confere com o segredo decodificado de hex: use como chave do HMAC o proprio texto do api_secret (64 caracteres em UTF-8).',
      payload: payload(ts, method, pq, body),
      key: Buffer.from(input.secret, 'hex'),
    };
  }

  // Separator line feed.
  yield {
    code: 'MISSING_LF',
    message:
      'A assinatura confere sem o LF (0x0A) depois de path_and_query: ele faz parte do payload mesmo quando o corpo e vazio (o payload de um GET termina com o LF).',
    payload: payload(ts, method, pq, body, ''),
  };
  yield {
    code: 'CRLF_INSTEAD_OF_LF',
    message: 'A assinatura confere com CRLF (\\r\\n) depois de path_and_query: use so LF (0x0A).',
    payload: payload(ts, method, pq, body, '\r\n'),
  };

  // Request target.
  const hosts = input.host ? [...new Set([input.host, input.host.replace(/:\d+$/, '')])] : [];
  for (const host of hosts) {
    for (const scheme of ['http', 'https']) {
      yield {
        code: 'FULL_URL_SIGNED',
        message: `A assinatura confere com a URL completa (${scheme}://${host}${pq}): assine so o caminho e a query (path_and_query), sem esquema nem host.`,
        payload: payload(ts, method, `${scheme}://${host}${pq}`, body),
      };
    }
  }
  if (pq.startsWith('/v1/')) {
    yield {
      code: 'PATH_WITHOUT_V1',
      message:
        'A assinatura confere com o caminho sem o prefixo /v1: path_and_query e o caminho completo enviado, a partir de /v1.',
      payload: payload(ts, method, pq.slice(3), body),
    };
  }
  const q = pq.indexOf('?');
  if (q >= 0) {
    const path = pq.slice(0, q);
    const query = pq.slice(q + 1);
    yield {
      code: 'QUERY_OMITTED',
      message:
        'A assinatura confere sem a query string: path_and_query inclui o "?" e a query exatamente como enviados.',
      payload: payload(ts, method, path, body),
    };
    for (const order of reorderings(query.split('&'))) {
      yield {
        code: 'QUERY_REORDERED',
        message: `A assinatura confere com os parametros da query em outra ordem (${order.join('&')}): assine a query na ordem exata em que ela e enviada.`,
        payload: payload(ts, method, `${path}?${order.join('&')}`, body),
      };
    }
    for (const encoded of reencodings(query)) {
      yield {
        code: 'QUERY_ENCODING',
        message: `A assinatura confere com a query codificada de outra forma (${encoded}): assine a mesma string percent-encoded que vai na URL.`,
        payload: payload(ts, method, `${path}?${encoded}`, body),
      };
    }
  }

  for (const other of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', method.toLowerCase()]) {
    if (other === method) continue;
    yield {
      code: 'METHOD_DIFFERENT',
      message: `A assinatura confere com o metodo ${other}, mas a requisicao usou ${method}: assine o metodo enviado, em maiusculas.`,
      payload: payload(ts, other, pq, body),
    };
  }

  if (/^\d+$/.test(ts)) {
    for (const delta of [-1, 1, -2, 2]) {
      yield {
        code: 'TIMESTAMP_DIFFERENT',
        message: `A assinatura confere com o timestamp ${Number(ts) + delta} (${delta > 0 ? '+' : ''}${delta} s): assine o mesmo valor enviado em X-Timestamp (calcule-o uma vez so).`,
        payload: payload(String(Number(ts) + delta), method, pq, body),
      };
    }
  }

  // Body.
  if (body.length > 0) {
    yield {
      code: 'BODY_NOT_SIGNED',
      message:
        'A assinatura confere com o corpo vazio: os bytes exatos do corpo enviado entram no payload, depois do LF.',
      payload: payload(ts, method, pq, ''),
    };
    const last = body[body.length - 1];
    yield {
      code: 'BODY_TRAILING_NEWLINE',
      message:
        last === 0x0a
          ? 'A assinatura confere com o corpo sem a quebra de linha final que foi enviada: assine os bytes exatos enviados (ou nao envie a quebra de linha).'
          : 'A assinatura confere com o corpo seguido de uma quebra de linha que nao foi enviada: assine os bytes exatos enviados.',
      payload: payload(
        ts,
        method,
        pq,
        last === 0x0a ? body.subarray(0, body.length - 1) : Buffer.concat([body, Buffer.from('\n')]),
      ),
    };
    for (const { form, text } of reserializations(body)) {
      yield {
        code: 'BODY_RESERIALIZED',
        message: `A assinatura confere com o mesmo JSON serializado de outra forma (${form}): assine os bytes exatos que envia; serialize uma vez e use a mesma string para assinar e enviar.`,
        payload: payload(ts, method, pq, text),
      };
    }
  }
}

/** Other orders of the query's parameters: every permutation up to 4 parameters, else sorted and reversed. */
function reorderings(params: string[]): string[][] {
  if (params.length < 2) return [];
  const original = params.join('&');
  const candidates = params.length <= 4 ? permutations(params) : [[...params].sort(), [...params].reverse()];
  const seen = new Set([original]);
  return candidates.filter((order) => {
    const key = order.join('&');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((item, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
  );
}

/** The query percent-decoded (as some clients sign it) and re-encoded the way URLSearchParams does. */
function reencodings(query: string): string[] {
  const out = new Set<string>();
  try {
    out.add(decodeURIComponent(query));
    out.add(decodeURIComponent(query.replace(/\+/g, ' ')));
  } catch {
    // Not decodable: no decoded variant.
  }
  out.add(new URLSearchParams(query).toString());
  out.delete(query);
  return [...out];
}

interface JsonForm {
  indent: string;
  itemSeparator: string;
  keySeparator: string;
  sortKeys?: boolean;
  asciiOnly?: boolean;
}

const JSON_FORMS: Array<{ form: string } & JsonForm> = [
  { form: 'compacto, como JSON.stringify(obj)', indent: '', itemSeparator: ',', keySeparator: ':' },
  { form: 'indentado com 2 espacos', indent: '  ', itemSeparator: ',', keySeparator: ': ' },
  { form: 'indentado com 4 espacos', indent: '    ', itemSeparator: ',', keySeparator: ': ' },
  { form: 'indentado com tab', indent: '\t', itemSeparator: ',', keySeparator: ': ' },
  {
    form: 'separadores ", " e ": " e \\u para nao ASCII, como json.dumps do Python',
    indent: '',
    itemSeparator: ', ',
    keySeparator: ': ',
    asciiOnly: true,
  },
  { form: 'separadores ", " e ": "', indent: '', itemSeparator: ', ', keySeparator: ': ' },
  { form: 'compacto com \\u para nao ASCII', indent: '', itemSeparator: ',', keySeparator: ':', asciiOnly: true },
  {
    form: 'compacto com as chaves em ordem alfabetica',
    indent: '',
    itemSeparator: ',',
    keySeparator: ':',
    sortKeys: true,
  },
];

/** The received JSON serialized in the usual other ways (with and without a final newline), those differing from it. */
function reserializations(body: Buffer): Array<{ form: string; text: string }> {
  if (jsonDepthExceeds(body)) return [];
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    return [];
  }
  const received = body.toString('utf8');
  const seen = new Set([received]);
  const out: Array<{ form: string; text: string }> = [];
  for (const { form, ...options } of JSON_FORMS) {
    const text = serialize(value, options, '');
    for (const [suffix, label] of [
      ['', form],
      ['\n', `${form}, com quebra de linha final`],
    ]) {
      if (seen.has(text + suffix)) continue;
      seen.add(text + suffix);
      out.push({ form: label, text: text + suffix });
    }
  }
  return out;
}

function serialize(value: unknown, o: JsonForm, depth: string): string {
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value) ?? 'null';
    return o.asciiOnly
      ? text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
      : text;
  }
  const inner = depth + o.indent;
  const open = o.indent ? `\n${inner}` : '';
  const close = o.indent ? `\n${depth}` : '';
  const separator = o.indent ? `${o.itemSeparator}\n${inner}` : o.itemSeparator;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[${open}${value.map((item) => serialize(item, o, inner)).join(separator)}${close}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (o.sortKeys) entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (entries.length === 0) return '{}';
  return `{${open}${entries.map(([k, v]) => `${serialize(k, o, inner)}${o.keySeparator}${serialize(v, o, inner)}`).join(separator)}${close}}`;
}
