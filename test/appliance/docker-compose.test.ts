import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { envSchema, loadConfig } from '../../server/config.ts';

// docker-compose.yml cannot run here (no Docker engine): this keeps it valid and consistent with what the
// appliance reads (issue 24 § 5): every variable it sets exists and parses, the cluster names the postgres
// service with that service's credentials, and it publishes one port per gateway.
const compose = parse(readFileSync('docker-compose.yml', 'utf8'), { merge: true }) as {
  services: Record<
    string,
    {
      image: string;
      command: string | string[];
      environment?: Record<string, string>;
      ports?: string[];
      profiles?: string[];
      depends_on?: Record<string, { condition: string }>;
    }
  >;
  volumes: Record<string, unknown>;
};
const known = new Set(Object.keys(envSchema.shape));

describe('docker-compose.yml', () => {
  it('the single appliance (default) and the cluster (profile cluster) set only variables the appliance reads, with values it accepts', () => {
    for (const name of ['appliance', 'cluster']) {
      const env = compose.services[name].environment!;
      for (const variable of Object.keys(env)) expect(known.has(variable), `${name}: ${variable}`).toBe(true);
      expect(() => loadConfig({ ...env }), name).not.toThrow();
    }
    expect(loadConfig({ ...compose.services.appliance.environment }).database.kind).toBe('sqlite');
    // HOST defaults to loopback (issue 29): inside a container that would be unreachable through the published port.
    expect(loadConfig({}).host).toBe('127.0.0.1');
    for (const name of ['appliance', 'cluster'])
      expect(loadConfig({ ...compose.services[name].environment }).host).toBe('0.0.0.0');
    expect(compose.services.appliance.profiles).toBeUndefined();
  });

  it('the cluster runs npm run cluster on the postgres service, with its credentials, and publishes a port per gateway', () => {
    const cluster = compose.services.cluster;
    const postgres = compose.services.postgres;
    expect(cluster.profiles).toEqual(['cluster']);
    expect(postgres.profiles).toEqual(['cluster']);
    const instances = Number(/npm run cluster -- --instances (\d+)/.exec(String(cluster.command))?.[1]);
    expect(instances).toBeGreaterThanOrEqual(2);
    const config = loadConfig({ ...cluster.environment });
    expect(config.database.kind).toBe('postgres');
    const url = new URL((config.database as { url: string }).url);
    expect(url.hostname).toBe('postgres');
    expect(decodeURIComponent(url.username)).toBe(postgres.environment!.POSTGRES_USER);
    expect(decodeURIComponent(url.password)).toBe(postgres.environment!.POSTGRES_PASSWORD);
    expect(url.pathname.slice(1)).toBe(postgres.environment!.POSTGRES_DB);
    const published = cluster.ports!.map((p) => Number(p.split(':')[1]));
    expect(published).toEqual(Array.from({ length: instances }, (_, i) => config.port + i));
    expect(cluster.depends_on).toMatchObject({
      postgres: { condition: 'service_healthy' },
      minio: { condition: 'service_healthy' },
    });
    // PostgreSQL has room for every gateway's pool and its listening connection.
    const maxConnections = Number(/max_connections=(\d+)/.exec(String(postgres.command))?.[1]);
    expect(maxConnections).toBeGreaterThanOrEqual(
      instances * ((config.database as { poolSize: number }).poolSize + 1) + 10,
    );
  });

  it('both topologies use the same MinIO, with a public endpoint for presigned URLs', () => {
    for (const name of ['appliance', 'cluster']) {
      const config = loadConfig({ ...compose.services[name].environment });
      expect(config.s3.embedded).toBe(false);
      expect(config.s3.internal.endPoint).toBe('minio');
      expect(config.s3.public.endPoint).toBe('localhost');
      expect(compose.services[name].environment!.S3_ACCESS_KEY).toBe(
        compose.services.minio.environment!.MINIO_ROOT_USER,
      );
    }
    expect(Object.keys(compose.volumes).sort()).toEqual(['minio-data', 'postgres-data']);
  });
});
