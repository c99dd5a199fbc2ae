import type { Command } from 'commander';
import { loadConfig } from '../../server/config.ts';
import { ApplianceClock, parseDuration, type ClockState } from '../../server/clock.ts';

const describe = (state: ClockState): string =>
  [
    `appliance time: ${state.appliance_time}${state.shifted ? `  (${state.offset_text} ahead)` : ''}`,
    `real time:      ${state.real_time}`,
    `offset:         ${state.offset_seconds} s${state.enabled ? '' : '  (clock control off: APP_ENV=production)'}`,
  ].join('\n');

/**
 * `clock show | advance <duration> | reset`: the appliance clock of DATA_DIR (server/clock.ts). The
 * CLI writes DATA_DIR/clock.json; a running gateway follows within a second, its backend-sim with it.
 */
export function addClockCommands(program: Command): void {
  const print = (state: ClockState, json?: boolean): void => {
    process.stdout.write(`${json ? JSON.stringify(state, null, 2) : describe(state)}\n`);
  };
  const open = () => {
    const config = loadConfig();
    return new ApplianceClock({ dataDir: config.dataDir, enabled: config.appEnv === 'development' });
  };
  const clock = program
    .command('clock')
    .description('the appliance clock (development mode): move it ahead to test 24 h, 30-day and 300 s rules');
  clock
    .command('show')
    .description('appliance time, real time and the offset between them')
    .option('--json', 'machine-readable output')
    .action((opts: { json?: boolean }) => print(open().state(), opts.json));
  clock
    .command('advance')
    .description('move the clock further ahead (cumulative); the running gateway follows within a second')
    .argument('<duration>', 'e.g. 301s, 90m, 25h, 31d, 1d2h')
    .option('--json', 'machine-readable output')
    .action(async (duration: string, opts: { json?: boolean }) => {
      const deltaMs = parseDuration(duration);
      print(await open().advance(deltaMs), opts.json);
    });
  clock
    .command('reset')
    .description('back to real time')
    .option('--json', 'machine-readable output')
    .action(async (opts: { json?: boolean }) => print(await open().reset(), opts.json));
}
