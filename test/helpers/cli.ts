import { execFile } from 'node:child_process';
import path from 'node:path';

const TSX = path.resolve('node_modules/.bin/tsx');

/** The operator CLI from its sources, with `env` over this process's environment: its exit code and output. */
export function runCli(
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(TSX, ['appliance/cli/main.ts', ...args], { env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}
