import { readdirSync, readFileSync } from 'node:fs';

/** The pids of the processes of a process group (Linux /proc: `stat`'s fifth field). */
export function processGroupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // `pid (comm) state ppid pgrp …`: comm may hold spaces and parentheses, so the fields after its last ')'.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z') members.push(Number(entry));
  }
  return members;
}

/** Waits until the group has no live process left (at most `ms`); the pids still there then. */
export async function groupGone(pgid: number, ms = 10_000): Promise<number[]> {
  const deadline = Date.now() + ms;
  let left = processGroupMembers(pgid);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    left = processGroupMembers(pgid);
  }
  return left;
}
