import { runCli } from './main.ts';

/**
 * The CLI's entry for `npm run cli` (appliance/start.mjs --entry=cli bundles it): runs the command given on the
 * command line and exits with its code. `tsx appliance/cli/main.ts` runs the same CLI from the sources.
 */
process.exit(await runCli(process.argv.slice(2)));
