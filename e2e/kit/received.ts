import type { ConsoleApi } from './admin.ts';

/**
 * What the gateway received, from its journal (`GET /admin/api/tenants/:slug/journal/received`): the kit's
 * `received()` and `expectReceived()`. Entries are as the journal stores them (redacted, bounded).
 */
export interface ReceivedFilter {
  method?: string;
  /** A prefix (`/v1/pacientes`) or a template (`/v1/pacientes/:id`, `:name` is one segment). */
  path?: string;
  /** `201`, or a class: `'4xx'`. */
  status?: number | string;
  /** An error code: `AUTH_INVALID_SIGNATURE`. */
  code?: string;
  /** The key's id (`chave_id`). */
  key?: number;
  /** An ISO time or a request id; the kit's default: when the test started. */
  since?: string;
  until?: string;
  limit?: number;
}

export interface ReceivedEntry {
  id: number | null;
  request_id: string;
  ts: string;
  tenant_slug: string | null;
  chave_id: number | null;
  method: string;
  path: string;
  status: number;
  error_code: string | null;
  body: unknown;
  response_body: unknown;
  request_headers: Record<string, string | number> | null;
  [field: string]: unknown;
}

export interface NearMiss {
  entry: ReceivedEntry;
  differs: string[];
  reason: string;
  count: number;
}

export interface ReceivedAnswer {
  entries: ReceivedEntry[];
  truncated: boolean;
  near_misses: NearMiss[];
}

export interface ExpectedCall extends Omit<ReceivedFilter, 'limit'> {
  method: string;
  path: string;
  /** Exactly this many matching calls (default: at least one). */
  count?: number;
  /** The request body holds at least these fields with these values (as journaled: personal data redacted). */
  body?: unknown;
}

function query(filter: ReceivedFilter): string {
  const { key, ...rest } = filter;
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries({ ...rest, chave_id: key }))
    if (value !== undefined && value !== '') params.set(name, String(value));
  return params.toString();
}

/** `expected` is contained in `actual`: objects by their given fields, arrays and the rest by equality. */
export function containsSubset(actual: unknown, expected: unknown): boolean {
  if (expected === null || typeof expected !== 'object') return Object.is(actual, expected);
  if (Array.isArray(expected))
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((e, i) => containsSubset(actual[i], e))
    );
  if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
  return Object.entries(expected).every(([k, v]) => containsSubset((actual as Record<string, unknown>)[k], v));
}

const line = (e: ReceivedEntry) =>
  `${e.method} ${e.path} → ${e.status}${e.error_code ? ` ${e.error_code}` : ''} (key ${e.chave_id ?? 'none'}, ${e.ts}, ${e.request_id})`;

export class Received {
  constructor(
    private readonly consoleApi: ConsoleApi,
    private readonly tenant: string,
    private readonly since: string,
  ) {}

  /** The journal's answer for the filter (the test's clinic, since the test started unless `since` is given). */
  async query(filter: ReceivedFilter = {}): Promise<ReceivedAnswer> {
    const q = query({ since: this.since, ...filter });
    return this.consoleApi.call<ReceivedAnswer>('GET', `/tenants/${this.tenant}/journal/received?${q}`);
  }

  async entries(filter: ReceivedFilter = {}): Promise<ReceivedEntry[]> {
    return (await this.query(filter)).entries;
  }

  /**
   * Passes when the journal holds the expected call (`count`: exactly that many); fails with what it found
   * instead: the calls that matched the filter but not the body or count, or the gateway's near misses (what
   * differs and why) when nothing matched.
   */
  async expect(expected: ExpectedCall): Promise<ReceivedEntry[]> {
    const { count, body, ...filter } = expected;
    const answer = await this.query(filter);
    const matching = answer.entries.filter((e) => body === undefined || containsSubset(e.body, body));
    const ok = count === undefined ? matching.length > 0 : matching.length === count;
    if (ok) return matching;
    const wanted = `${expected.method} ${expected.path}${expected.status ? ` → ${expected.status}` : ''}${expected.code ? ` ${expected.code}` : ''}${count === undefined ? '' : ` × ${count}`}${body === undefined ? '' : ` with body ${JSON.stringify(body)}`}`;
    const lines = [
      `expected the gateway to have received ${wanted} in ${this.tenant} since ${filter.since ?? this.since}`,
    ];
    lines.push(`found ${matching.length} matching call(s).`);
    if (answer.entries.length > 0) {
      lines.push(`calls that match the method, path and status (${answer.entries.length}):`);
      for (const e of answer.entries) lines.push(`  ${line(e)} body ${JSON.stringify(e.body)}`);
    } else if (answer.near_misses.length > 0) {
      lines.push('near misses (closest first):');
      for (const miss of answer.near_misses)
        lines.push(
          `  ${line(miss.entry)} — differs: ${miss.differs.join(', ')} — ${miss.reason}${miss.count > 1 ? ` (${miss.count} alike)` : ''}`,
        );
    } else lines.push('no near misses: the gateway received nothing close to it.');
    throw new Error(lines.join('\n'));
  }
}
