/**
 * The journal's rollup per clinic, key and minute (migration 026; server/audit/journal-rollup.ts keeps it): calls
 * per status class and a latency histogram. `chave_id` 0: the entry named no key.
 */
export interface JournalMinutesTable {
  tenant_id: number;
  chave_id: number;
  /** `YYYY-MM-DDTHH:MM`, appliance clock. */
  minute: string;
  calls: number;
  s2xx: number;
  s3xx: number;
  s4xx: number;
  s5xx: number;
  lat0: number;
  lat1: number;
  lat2: number;
  lat3: number;
  lat4: number;
  lat5: number;
  lat6: number;
  lat7: number;
  lat8: number;
  lat9: number;
  lat10: number;
  lat11: number;
}

/** Refusals (status ≥ 400) per clinic, key, minute and error code ('' when the answer carried none). */
export interface JournalMinuteCodesTable {
  tenant_id: number;
  chave_id: number;
  minute: string;
  code: string;
  count: number;
}
