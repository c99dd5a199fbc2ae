import { createServer } from 'node:net';
import type { GatewayConfig } from '../server/config.ts';

/**
 * Before `npm start` opens anything: each port the stack will listen on is tried, and a port
 * already taken is reported with the environment variable that moves it, instead of a listen
 * error with a stack trace half-way through the start.
 */
export class PortInUseError extends Error {}

export interface PlannedListen {
  variable: 'PORT' | 'BACKEND_PORT' | 'S3_PORT';
  host: string;
  port: number;
}

/** The fixed ports the stack will listen on (port 0 picks a free one and cannot clash). */
export function plannedListens(config: GatewayConfig): PlannedListen[] {
  const planned: PlannedListen[] = [];
  if (config.s3.embedded && config.s3.embeddedPort !== 0)
    planned.push({ variable: 'S3_PORT', host: '127.0.0.1', port: config.s3.embeddedPort });
  if (!config.backend.external && config.backend.port !== 0)
    planned.push({ variable: 'BACKEND_PORT', host: '127.0.0.1', port: config.backend.port });
  if (config.port !== 0) planned.push({ variable: 'PORT', host: config.host, port: config.port });
  return planned;
}

type Probe = 'free' | 'in-use' | 'denied' | 'other';

function probe(host: string, port: number): Promise<Probe> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) =>
      resolve(error.code === 'EADDRINUSE' ? 'in-use' : error.code === 'EACCES' ? 'denied' : 'other'),
    );
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve('free')));
  });
}

async function suggestPort(listen: PlannedListen, taken: Set<number>): Promise<number | null> {
  for (let candidate = Math.max(listen.port + 1, 1024); candidate <= Math.min(listen.port + 50, 65535); candidate++) {
    if (!taken.has(candidate) && (await probe(listen.host, candidate)) === 'free') return candidate;
  }
  return null;
}

function message(listen: PlannedListen, problem: string, suggestion: number | null, hint?: string): string {
  const example = suggestion === null ? `${listen.variable}=<another port>` : `${listen.variable}=${suggestion}`;
  return `port ${listen.port} ${problem}: set ${listen.variable} to another port, e.g. \`${example} npm start\`${hint ? ` (${hint})` : ''}`;
}

/** Throws PortInUseError naming the variable to change; `hint` is added to an in-use message. */
export async function assertPortsFree(config: GatewayConfig, hint?: string): Promise<void> {
  const planned = plannedListens(config);
  const taken = new Set(planned.map((p) => p.port));
  for (let i = 0; i < planned.length; i++) {
    const clash = planned.slice(i + 1).find((p) => p.port === planned[i].port);
    if (clash) {
      throw new PortInUseError(
        `${planned[i].variable} and ${clash.variable} are both ${clash.port}: each service needs its own port; set one of them to another value`,
      );
    }
  }
  for (const listen of planned) {
    const result = await probe(listen.host, listen.port);
    if (result === 'in-use')
      throw new PortInUseError(message(listen, 'is in use', await suggestPort(listen, taken), hint));
    if (result === 'denied')
      throw new PortInUseError(
        message(listen, 'needs privileges this process does not have', await suggestPort(listen, taken)),
      );
  }
}

/** A listen error that still happens (a port taken between the check and the listen), named the same way. */
export function portErrorMessage(config: GatewayConfig, error: unknown): string | null {
  const e = error as NodeJS.ErrnoException & { port?: number };
  if (!e || typeof e !== 'object' || e.code !== 'EADDRINUSE' || typeof e.port !== 'number') return null;
  const listen = plannedListens(config).find((p) => p.port === e.port);
  if (!listen) return `port ${e.port} is in use`;
  return message(listen, 'is in use', null);
}
