import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ephemeralConfig } from '../server/config.ts';
import { startStack } from './stack.ts';

/** The committed copy of the generated reference (a test fails when it drifts from the routes). */
export const OPENAPI_FILE = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../docs/api/openapi.yaml');

/** `npm run openapi`: regenerates docs/api/openapi.yaml from the registered /v1 operations. */
async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-openapi-'));
  const stack = await startStack(ephemeralConfig(dataDir));
  try {
    writeFileSync(OPENAPI_FILE, stack.app.swagger({ yaml: true }));
    console.log(`wrote ${path.relative(process.cwd(), OPENAPI_FILE)} (${stack.app.operations.length} operations)`);
  } finally {
    await stack.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
