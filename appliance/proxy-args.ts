/** The command line of `npm run proxy` (appliance/proxy-main.ts) as the environment the gateway's config reads. */
const USAGE =
  'usage: npm run proxy -- [--upstream <base URL>] [--pass-through] [--strict]\n' +
  '  --upstream       the gateway to check (or UPSTREAM_URL)\n' +
  '  --pass-through   forward your own signatures untouched (sign with the upstream key); default: re-sign\n' +
  '  --strict         refuse a request outside the contract with its 400 instead of forwarding it\n' +
  'The upstream key and secret are read from UPSTREAM_API_KEY and UPSTREAM_API_SECRET, never from the command line.';

export function proxyEnvironment(argv: string[]): { env: Record<string, string>; rest: string[] } | { error: string } {
  const env: Record<string, string> = { PROXY_MODE: 'resign' };
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--upstream' || arg.startsWith('--upstream=')) {
      const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[++i];
      if (!value) return { error: `--upstream needs a base URL\n${USAGE}` };
      env.UPSTREAM_URL = value;
    } else if (arg === '--pass-through') env.PROXY_MODE = 'pass-through';
    else if (arg === '--strict') env.PROXY_STRICT = 'true';
    else if (/^--(upstream-)?(api-)?(key|secret)/.test(arg))
      return { error: `${arg.split('=')[0]}: the upstream credentials are read from the environment only\n${USAGE}` };
    else if (arg === '--help' || arg === '-h') return { error: USAGE };
    else rest.push(arg);
  }
  return { env, rest };
}
