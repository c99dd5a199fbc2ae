import type { Generated, Selectable } from 'kysely';

export interface ApiKeysTable {
  id: Generated<number>;
  tenant_id: number;
  /** Public identifier, `ce_live_` + 32 lowercase hex. */
  api_key: string;
  label: string;
  /** JSON array of scope strings. */
  scopes: string;
  /** Bound doctor id, 0 when unbound. */
  medico_id: number;
  /** `active`, `revoked` or `inactive`. */
  status: string;
  /** `v1`, or `legacy` for keys imported from the old system without a usable secret. */
  format: string;
  /** AES-256-GCM sealed secret (base64 iv|tag|ciphertext); null for legacy keys. */
  secret_sealed: string | null;
  /** Bumped on every rotation; part of the in-memory secret cache key. */
  secret_version: number;
  created_at: string;
  rotated_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  /** ISO 8601 UTC (appliance clock) after which the key is refused as expired; null: never (migration 024). */
  expires_at: Generated<string | null>;
}

export type ApiKeyRow = Selectable<ApiKeysTable>;
