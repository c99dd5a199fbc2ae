import { readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { contractReport } from '../contracts/admin/contract.ts';
import { writePrivateFile } from '../server/secrets-files.ts';

/**
 * DATA_DIR/runtime.json: where the stack that runs on this data dir can be reached. `npm start`
 * writes it once everything listens and removes it on a clean shutdown; the CLI reads it so it
 * talks to that stack whatever PORT / BACKEND_PORT / S3_PORT it was started with. A file whose
 * process is gone (a crash, a SIGKILL) is stale and ignored. No secret goes in it.
 */
export const RUNTIME_FILE = 'runtime.json';

const url = z.string().url();
const port = z.number().int().min(1).max(65535);

export const runtimeInfoSchema = z.object({
  pid: z.number().int().positive(),
  started_at: z.string(),
  release: z.string(),
  data_dir: z.string(),
  gateway: z.object({ url, port, host: z.string() }),
  /** `pid`: backend-sim's own process, when npm start started one (the stack's pid when it runs in-process). */
  backend: z.object({ url, port: port.nullable(), external: z.boolean(), pid: z.number().int().positive().optional() }),
  storage: z.object({ internal_url: url, public_url: url, embedded: z.boolean(), port: port.nullable() }),
  /**
   * `npm run cluster`: every gateway process (`gateway` above is the first of them) and the database they
   * share. The url has no password: the cluster's own PostgreSQL keeps it in DATA_DIR/postgres.credentials,
   * a DATABASE_URL in the environment that set it. `managed`: started and stopped by the cluster.
   */
  gateways: z.array(z.object({ url, port, pid: z.number().int().positive() })).optional(),
  database: z.object({ kind: z.literal('postgres'), url: z.string(), managed: z.boolean() }).optional(),
  /** `npm run proxy` (issue 33): the contract guard's upstream (without credentials) and mode, for `proxy report`. */
  proxy: contractReport.shape.proxy.unwrap().optional(),
});

export type RuntimeInfo = z.infer<typeof runtimeInfoSchema>;

export const runtimeFilePath = (dataDir: string): string => path.join(dataDir, RUNTIME_FILE);

/** Whether a process with this id exists (EPERM: it exists but belongs to another user). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Written to a temporary name then renamed, so a reader never sees half a file. Mode 0600. */
export function writeRuntimeFile(dataDir: string, info: RuntimeInfo): void {
  const file = runtimeFilePath(dataDir);
  const temporary = `${file}.${process.pid}.tmp`;
  writePrivateFile(temporary, `${JSON.stringify(info, null, 2)}\n`);
  renameSync(temporary, file);
}

/**
 * The running stack's runtime file, or null when there is none, it does not parse, or its process
 * is gone. A file naming this very process is stale too (a container restarted with the same pid).
 */
export function readRuntimeFile(dataDir: string): RuntimeInfo | null {
  let text: string;
  try {
    text = readFileSync(runtimeFilePath(dataDir), 'utf8');
  } catch {
    return null;
  }
  let parsed: ReturnType<typeof runtimeInfoSchema.safeParse>;
  try {
    parsed = runtimeInfoSchema.safeParse(JSON.parse(text));
  } catch {
    return null;
  }
  if (!parsed.success) return null;
  const info = parsed.data;
  if (info.pid === process.pid || !isProcessAlive(info.pid)) return null;
  return info;
}

/** Removes the file if this process wrote it (a second stack started by mistake must not delete the first one's). */
export function removeRuntimeFile(dataDir: string, pid: number = process.pid): void {
  try {
    const info = JSON.parse(readFileSync(runtimeFilePath(dataDir), 'utf8')) as { pid?: unknown };
    if (info.pid !== pid) return;
  } catch {
    return;
  }
  rmSync(runtimeFilePath(dataDir), { force: true });
}

/** `http://host:port`, with IPv6 literals in brackets. */
export function httpUrl(host: string, port: number, ssl = false): string {
  return `${ssl ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** The address a local client uses for a server bound to `host` (a wildcard bind is reached on loopback). */
export function clientHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '::1';
  return host;
}

/** The gateway's URL as the banner and the credentials file give it: a wildcard bind is named `localhost`. */
export function publicGatewayUrl(host: string, port: number): string {
  return httpUrl(host === '0.0.0.0' || host === '::' ? 'localhost' : host, port);
}

/** Where listeners bound to `host` answer, for the banner: `127.0.0.1:8080 (loopback only; HOST moves it)`. */
export function listenDescription(host: string, ports: number[]): string {
  const where =
    host === '0.0.0.0' || host === '::' ? 'every interface' : isLoopback(host) ? 'loopback only' : 'that address only';
  const address = host.includes(':') ? `[${host}]` : host;
  return `${ports.map((port) => `${address}:${port}`).join(', ')} (${where}; HOST moves it)`;
}

const isLoopback = (host: string) => host === 'localhost' || host === '::1' || /^127\./.test(host);
