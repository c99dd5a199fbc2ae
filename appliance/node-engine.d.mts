// Types of node-engine.mjs (plain JavaScript, imported by the launcher before anything is compiled).
export declare const SUPPORTED_NODE: string;
export declare const UNSUPPORTED_NODE_EXIT_CODE: number;
export declare function unsupportedNodeReason(version: string): string | null;
