import path from 'node:path';
import { ConfigError, loadConfig } from './config.ts';
import { startStack } from './stack.ts';
import { bootstrapFirstStart, CREDENTIALS_FILE, firstCallCommand, isFirstStart, seedDefaultData } from './bootstrap.ts';

/** `npm start`: embedded S3, backend-sim and the gateway in the foreground; Ctrl-C stops all three. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
  const firstStart = await isFirstStart(config.dataDir);
  let doctors: Record<string, number[]> = {};
  const started = Date.now();
  if (firstStart) console.log(`First start: creating ${config.dataDir} with demo, sandbox and clinica-b…`);

  const stack = await startStack(config, {
    beforeBackend: async (c) => {
      if (firstStart && c.seedOnFirstStart) doctors = await seedDefaultData(c);
    },
  });
  const hostForUrls = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const gatewayUrl = `http://${hostForUrls}:${stack.config.port}`;
  const credentialsFile = path.join(config.dataDir, CREDENTIALS_FILE);
  if (firstStart) await bootstrapFirstStart(stack, doctors, gatewayUrl);

  console.log(
    [
      '',
      `Clinic Exams Gateway ${config.release} is up (${Date.now() - started} ms)`,
      `  API        ${gatewayUrl}/v1/ping`,
      `  Console    ${gatewayUrl}/console/`,
      `  backend    ${stack.backendUrl} (loopback only)`,
      `  storage    ${stack.s3PublicUrl} (${config.s3.embedded ? 'embedded s3rver' : 'external S3'}, bucket ${config.s3.bucket})`,
      `  data       ${config.dataDir}`,
      `  credentials (operator login and demo API keys, mode 0600): ${credentialsFile}`,
      '',
      'First signed call (bash + openssl + curl):',
      firstCallCommand(gatewayUrl, credentialsFile),
      '',
      'Ctrl-C stops everything.',
    ].join('\n'),
  );

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) {
      console.error('Forced exit.');
      process.exit(1);
    }
    stopping = true;
    console.log(`\n${signal}: stopping (flushing audit log, closing databases)…`);
    stack.close().then(
      () => process.exit(0),
      (error) => {
        console.error('Shutdown failed:', error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((error) => {
  console.error(`Startup failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
