// Types of stack-trace-sources.mjs (plain JavaScript, imported by the launcher before anything is compiled).
/** Stack traces name the TypeScript sources of these bundles (absolute paths, a `.map` beside each), read lazily. */
export declare function mapStackTraces(bundles: string[]): void;
