// The launcher's source maps (appliance/start.mjs): the appliance's own sources only, packages left out. Plain
// JavaScript, loaded by the launcher when it builds a bundle.

const VLQ = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const VLQ_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < VLQ.length; i++) VLQ_VALUE[VLQ.charCodeAt(i)] = i;

const COMMA = 44;
const SEMICOLON = 59;

/** The values of one segment (`text` from `start` to `end`) into `values`; returns how many. */
function vlqDecode(text, start, end, values) {
  let count = 0;
  let value = 0;
  let shift = 0;
  for (let i = start; i < end; i++) {
    const digit = VLQ_VALUE[text.charCodeAt(i)];
    value += (digit & 31) * 2 ** shift;
    if (digit & 32) shift += 5;
    else {
      values[count++] = value % 2 ? -(value - 1) / 2 : value / 2;
      value = 0;
      shift = 0;
    }
  }
  return count;
}

function vlqEncode(values) {
  let out = '';
  for (const v of values) {
    let rest = v < 0 ? (-v << 1) | 1 : v << 1;
    do {
      let digit = rest & 31;
      rest >>>= 5;
      if (rest) digit |= 32;
      out += VLQ[digit];
    } while (rest);
  }
  return out;
}

/**
 * The bundle's source map with the appliance's own sources only: a package's code is left unmapped (its frames name
 * the bundle's line), ours names the TypeScript source. Node reads and parses a linked map when it loads the bundle,
 * and decodes all of it at the first stack it formats: the whole map (packages included, 4.9 MB for the server's
 * bundle) took about 0.2 s of each start (decision T32-1). A segment of a package becomes a column alone (no source),
 * so the code before it is not taken for ours.
 */
export function ownSourcesMap(text) {
  const map = JSON.parse(text);
  const keep = map.sources.map((source) => !/(^|\/)node_modules\//.test(source));
  const sourceIndex = [];
  const sources = [];
  map.sources.forEach((source, i) => {
    if (keep[i]) {
      sourceIndex[i] = sources.length;
      sources.push(source);
    }
  });
  const nameIndex = new Map();
  const names = [];
  // Absolute values of the input (source, line, column, name carry over lines) and of the output.
  let source = 0;
  let line = 0;
  let column = 0;
  let name = 0;
  let outSource = 0;
  let outLine = 0;
  let outColumn = 0;
  let outName = 0;
  const v = [0, 0, 0, 0, 0];
  const mappings = map.mappings;
  const out = [];
  let generated = 0;
  let outGenerated = 0;
  let unmapped = false;
  let first = true;
  for (let at = 0; at <= mappings.length; ) {
    let end = at;
    for (let c = mappings.charCodeAt(end); end < mappings.length && c !== COMMA && c !== SEMICOLON; )
      c = mappings.charCodeAt(++end);
    if (end > at) {
      const count = vlqDecode(mappings, at, end, v);
      generated += v[0];
      let fields = null;
      if (count > 1) {
        source += v[1];
        line += v[2];
        column += v[3];
        if (count === 5) name += v[4];
      }
      if (count > 1 && keep[source]) {
        unmapped = false;
        fields = [generated - outGenerated, sourceIndex[source] - outSource, line - outLine, column - outColumn];
        outSource = sourceIndex[source];
        outLine = line;
        outColumn = column;
        if (count === 5) {
          let index = nameIndex.get(map.names[name]);
          if (index === undefined) {
            index = names.length;
            names.push(map.names[name]);
            nameIndex.set(map.names[name], index);
          }
          fields.push(index - outName);
          outName = index;
        }
      } else if (!unmapped) {
        unmapped = true;
        fields = [generated - outGenerated];
      }
      if (fields) {
        if (!first) out.push(',');
        out.push(vlqEncode(fields));
        first = false;
        outGenerated = generated;
      }
    }
    if (mappings.charCodeAt(end) === SEMICOLON) {
      out.push(';');
      generated = 0;
      outGenerated = 0;
      unmapped = false;
      first = true;
    }
    at = end + 1;
  }
  return JSON.stringify({ ...map, sources, names, mappings: out.join('') });
}
