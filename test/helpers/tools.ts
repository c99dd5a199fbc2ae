import { execFile, execFileSync } from 'node:child_process';
import path from 'node:path';

/** Whether every one of these commands is on PATH (the docs' shell examples need bash, curl and openssl). */
export function hasCommands(...commands: string[]): boolean {
  return commands.every((command) => {
    try {
      execFileSync('which', [command], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  });
}

/** The operator CLI (appliance/cli/main.ts under tsx) with `env` over the test's environment: its exit code and output. */
export function runCli(
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      path.resolve('node_modules/.bin/tsx'),
      ['appliance/cli/main.ts', ...args],
      { env: { ...process.env, ...env } },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}
