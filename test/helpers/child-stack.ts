import { spawn, type ChildProcess } from 'node:child_process';

/** The environment of a stack started by a test: its own data dir, free loopback ports, no seed, no log. */
export function loopbackStackEnv(dataDir: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    BACKEND_PORT: '0',
    S3_PORT: '0',
    SEED_ON_FIRST_START: 'false',
    LOG_LEVEL: 'silent',
  };
}

/**
 * The whole stack in its own process, as `npm start` runs it (`appliance/main.ts`), on free loopback
 * ports, for tests that measure the process (memory, logs) or kill it. Resolves with the gateway URL
 * from the start banner; `output` receives everything the process prints.
 */
export async function spawnStack(
  dataDir: string,
  env: Record<string, string> = {},
  options: { output?: (chunk: Buffer) => void; timeoutMs?: number } = {},
): Promise<{ child: ChildProcess; baseUrl: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'appliance/main.ts'], {
    env: { ...loopbackStackEnv(dataDir), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const baseUrl = await bannerUrl(child, options.timeoutMs ?? 50_000, options.output);
  return { child, baseUrl };
}

/** The gateway URL from the start banner (`API  http://…/v1/ping`) of a starting stack; rejects if it exits first. */
export function bannerUrl(child: ChildProcess, timeoutMs: number, output?: (chunk: Buffer) => void): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`stack did not start: ${out}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output?.(chunk);
      out += chunk;
      const m = /API\s+(http:\/\/[\d.:]+)\/v1\/ping/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`stack exited (${code ?? signal}) before starting: ${out}`));
    });
  });
}

/** Stops a spawned stack (SIGTERM: graceful, SIGKILL: a crash) and waits for it to exit. */
export async function stopStack(
  child: ChildProcess | null | undefined,
  signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM',
): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}
