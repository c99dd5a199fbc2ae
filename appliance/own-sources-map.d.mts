// Types of own-sources-map.mjs (plain JavaScript, loaded by the launcher when it builds).
/** A source map's JSON with the segments of node_modules sources left unmapped and those sources dropped. */
export declare function ownSourcesMap(text: string): string;
