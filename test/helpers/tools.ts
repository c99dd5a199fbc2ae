import { execFileSync } from 'node:child_process';

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
