// The walls between the floors of the house (docs/architecture.md § Layers), checked by `npm run lint:boundaries`
// in .ci/run before the tests. Each folder lists the folders it may import; an import of any other project folder
// is an error. A new top-level folder is added to FLOORS with what it may import.
//
//   bench/ e2e/ seed/                   on top: the tools (seed/ also lends its generators to first-start seeding)
//   appliance/                          the composition root: the only place that knows them all
//   server/  backend-sim/  console/     side by side, none importing another
//   shared-node/                        Node code both services use (S3 client, scrypt, fault table, contract stamps)
//   contracts/                          the ground: every wire, no Node imports
//
// Why dependency-cruiser: the rules are about resolved files, not the spelling of relative paths, and type-only
// imports count (tsPreCompilationDeps), since a console `import type` from server/ is a wire defined twice too.
'use strict';

/** Every top-level folder of the product and its tools, with the folders it may import besides its own. */
const FLOORS = {
  contracts: [],
  'shared-node': ['contracts'],
  server: ['contracts', 'shared-node'],
  'backend-sim': ['contracts', 'shared-node'],
  console: ['contracts'],
  // seed/: first-start seeding runs the seed's generators (appliance/main.ts, bootstrap.ts).
  appliance: ['contracts', 'shared-node', 'server', 'backend-sim', 'seed'],
  seed: ['contracts', 'shared-node', 'server', 'backend-sim'],
  bench: ['contracts', 'shared-node', 'server', 'backend-sim', 'appliance', 'seed'],
  e2e: ['contracts', 'shared-node', 'server', 'backend-sim', 'appliance', 'seed'],
};
const ALL = [...Object.keys(FLOORS), 'test'];
const escapeRegExp = (name) => name.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
const anyOf = (names) => `^(${names.map(escapeRegExp).join('|')})/`;

const floorRules = Object.entries(FLOORS).map(([floor, allowed]) => ({
  name: `${floor}-imports-only-${allowed.length ? allowed.join('-') : 'itself'}`,
  comment: `${floor}/ may import ${allowed.length ? `${allowed.join(', ')} and itself` : 'only itself'} (docs/architecture.md § Layers)`,
  severity: 'error',
  from: { path: anyOf([floor]) },
  to: { path: anyOf(ALL.filter((name) => name !== floor && !allowed.includes(name))) },
}));

// The inner floors of server/ (docs/architecture.md § Layers), bottom first: a file imports its own floor and the
// ones below, never one above. A floor is a list of paths below server/; a file takes the first floor in PRECEDENCE
// order that names it (so `http/envelope.ts` is ground, though `http/` is the HTTP floor), and every file of
// server/ must be on one. Inside a floor, no-circular keeps the imports one way.
const STORE_FOLDERS = '(keys|tenants|operators|idempotency|audit|storage|backend|integrity|alerts)';
const SERVER_FLOORS = [
  {
    name: 'ground',
    comment: 'leaf modules: errors, config, clock, the envelope and redaction helpers',
    paths: [
      '(errors|service-error|clock|secrets-files|config|drain)\\.ts$',
      'http/(envelope|redact|json-depth|schemas|sync-hooks|edit-distance)\\.ts$',
      // What a plugin takes to report a step of a request as a span (tracing on).
      'tracing/steps\\.ts$',
    ],
  },
  { name: 'db', comment: 'the gateway database: connections, migrations, tables', paths: ['db/'] },
  {
    name: 'stores',
    comment:
      'stores, services and clients: keys, tenants, operators, idempotency, audit, storage, backend, integrity, alerts',
    paths: [`${STORE_FOLDERS}/`],
  },
  {
    name: 'http',
    comment:
      "Fastify plugins and what maps a request: http/, auth/, rate-limit/, a store folder's *-plugin.ts, journal entries",
    paths: ['http/', '(auth|rate-limit)/', `${STORE_FOLDERS}/[^/]+-plugin\\.ts$`, 'audit/journal-entries\\.ts$'],
  },
  {
    name: 'adapters',
    comment:
      'the /v1 routes, the console API, the OpenAPI document, the Prometheus metrics, the request spans (tracing on), the contract guard',
    paths: ['(routes|admin|openapi|tracing|proxy)/', 'metrics/'],
  },
  { name: 'app', comment: 'the composition of the gateway', paths: ['app\\.ts$'] },
];
/** Which floor claims a file first: the leaf files of http/ before http/, the plugins of audit/ and idempotency/ before the stores. */
const PRECEDENCE = ['ground', 'http', 'db', 'stores', 'adapters', 'app'];
const floorRegex = (name) => {
  const own = SERVER_FLOORS.find((floor) => floor.name === name).paths;
  const before = PRECEDENCE.slice(0, PRECEDENCE.indexOf(name)).flatMap(
    (earlier) => SERVER_FLOORS.find((floor) => floor.name === earlier).paths,
  );
  const claimedBefore = before.length ? `(?!server/(${before.join('|')}))` : '';
  return `^${claimedBefore}server/(${own.join('|')})`;
};
const serverFloorRules = SERVER_FLOORS.slice(0, -1).map((floor, level) => ({
  name: `server-${floor.name}-not-up`,
  comment: `server/'s ${floor.name} floor (${floor.comment}) imports no floor above it (docs/architecture.md § Layers)`,
  severity: 'error',
  from: { path: floorRegex(floor.name) },
  to: {
    path: SERVER_FLOORS.slice(level + 1)
      .map((above) => `(${floorRegex(above.name)})`)
      .join('|'),
  },
}));

module.exports = {
  forbidden: [
    ...floorRules,
    ...serverFloorRules,
    {
      name: 'server-file-on-a-floor',
      comment:
        'every file of server/ is on one of its floors (.dependency-cruiser.cjs SERVER_FLOORS): a new folder gets one',
      severity: 'error',
      from: { path: '^server/', pathNot: SERVER_FLOORS.map((floor) => `(${floorRegex(floor.name)})`).join('|') },
      to: {},
    },
    {
      name: 'no-circular',
      comment:
        'no import circle (server/ and everywhere): a deps type route modules share lives in a deps.ts beside them',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'contracts-no-node',
      comment:
        'contracts/ is loaded by the console in a browser too: no Node built-in modules (node:fs, node:crypto, …)',
      severity: 'error',
      from: { path: '^contracts/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'console-no-node',
      comment: 'console/src runs in the browser: no Node built-in modules',
      severity: 'error',
      from: { path: '^console/src/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'console-features-apart',
      comment:
        'a console feature does not import another feature (DESIGN: feature folders, no imports between features)',
      severity: 'error',
      from: { path: '^console/src/features/([^/]+)/' },
      to: { path: '^console/src/features/', pathNot: '^console/src/features/$1/' },
    },
    {
      name: 'opentelemetry-runtime-loaded-dynamically',
      comment:
        'shared-node/otel-runtime.ts, the one file importing OpenTelemetry (test/server/tracing/tracing-off.test.ts), is loaded by the dynamic import of startTracing only',
      severity: 'error',
      from: {},
      to: { path: '^shared-node/otel-runtime\\.ts$', dependencyTypesNot: ['dynamic-import'] },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'an import that resolves to no file (a moved or deleted module)',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: '(^|/)node_modules/' },
    exclude: { path: '(^|/)(node_modules|dist|\\.cache|artifacts|report)/' },
    tsPreCompilationDeps: true,
    moduleSystems: ['es6', 'cjs'],
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.mts', '.mjs', '.js', '.cjs', '.d.ts', '.json'],
    },
  },
};
