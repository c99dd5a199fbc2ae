// Stack traces of a bundle that name the TypeScript sources, without Node's source-map support: with it
// (`process.setSourceMapsEnabled(true)`), Node scans each module as it loads (its line lengths and its
// sourceMappingURL comment: about 0.16 s of CPU for the server's 8.7 MB bundle at every start, decision T32-1).
// Here nothing is read until a stack is formatted with one of the bundle's frames; its map is then read and
// decoded once. Plain JavaScript: the launcher (appliance/start.mjs) imports it without a build.
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * From now on, `error.stack` names the original file, line and column of each frame in one of `bundles` (absolute
 * paths of files with a `.map` beside them) that the map covers; other frames, and the text before them, are as
 * V8 formats them. An `Error.prepareStackTrace` set later (a package's, for its own use) takes precedence, as it
 * would over Node's.
 */
export function mapStackTraces(bundles) {
  const byUrl = new Map(bundles.map((file) => [pathToFileURL(file).href, file]));
  const maps = new Map();
  const mapOf = (url) => {
    if (!maps.has(url)) {
      let map = null;
      try {
        const file = byUrl.get(url);
        const payload = JSON.parse(readFileSync(`${file}.map`, 'utf8'));
        const base = pathToFileURL(`${file}.map`);
        payload.sources = payload.sources.map((source) => {
          const resolved = new URL(source, base);
          return resolved.protocol === 'file:' ? fileURLToPath(resolved) : resolved.href;
        });
        map = new SourceMap(payload);
      } catch {
        map = null; // no map (removed, unreadable): the bundle's own positions
      }
      maps.set(url, map);
    }
    return maps.get(url);
  };
  const frame = (callSite) => {
    const text = String(callSite);
    const url = callSite.getFileName?.();
    if (!url || !byUrl.has(url)) return text;
    const line = callSite.getLineNumber();
    const column = callSite.getColumnNumber();
    const map = line && column ? mapOf(url) : null;
    if (!map) return text;
    const entry = map.findEntry(line - 1, column - 1);
    if (!entry.originalSource || entry.originalLine === undefined) return text;
    const position = `${url}:${line}:${column}`;
    const at = text.lastIndexOf(position);
    if (at === -1) return text;
    const original = `${entry.originalSource}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
    return text.slice(0, at) + original + text.slice(at + position.length);
  };
  Error.prepareStackTrace = (error, callSites) => {
    let header;
    try {
      // Node's own errors say their code as Node does: `TypeError [ERR_X]: message`.
      header =
        typeof error?.code === 'string' && error.code.startsWith('ERR_') && typeof error.name === 'string'
          ? `${error.name} [${error.code}]: ${error.message}`
          : Error.prototype.toString.call(error);
    } catch {
      header = '<error>';
    }
    if (callSites.length === 0) return header;
    let frames;
    try {
      frames = callSites.map(frame);
    } catch {
      frames = callSites.map(String);
    }
    return `${header}\n    at ${frames.join('\n    at ')}`;
  };
}
