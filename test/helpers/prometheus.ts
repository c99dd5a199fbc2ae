import parsePrometheusTextFormat, { type PrometheusFamily, type PrometheusSample } from 'parse-prometheus-text-format';
import { rawRequest } from './signed-client.ts';

/**
 * A scrape of `GET /metrics`, parsed by a Prometheus text-format parser (parse-prometheus-text-format, not the
 * gateway's code). That parser folds a histogram with labels into one sample without them; so the samples are
 * also read with the histograms' TYPE lines made `untyped`, where `<name>_count{…}` keeps its labels.
 */
export class Scrape {
  readonly families: Map<string, PrometheusFamily>;
  private readonly samples = new Map<string, PrometheusSample[]>();

  constructor(readonly text: string) {
    this.families = new Map(parsePrometheusTextFormat(text).map((family) => [family.name, family]));
    const untyped = text.replace(/^# TYPE (\S+) histogram$/gm, '# TYPE $1 untyped');
    for (const family of parsePrometheusTextFormat(untyped)) {
      this.samples.set(family.name, [...(this.samples.get(family.name) ?? []), ...family.metrics]);
    }
  }

  has(name: string): boolean {
    return this.families.has(name);
  }

  /** A counter's or gauge's value for exactly these labels (0 when the series is absent). */
  value(name: string, labels: Record<string, string> = {}): number {
    const wanted = key(labels);
    const sample = (this.samples.get(name) ?? []).find((s) => key(s.labels ?? {}) === wanted);
    return sample ? Number(sample.value) : 0;
  }

  /** Every label set of a family with its value; a histogram's: its count. */
  series(name: string): Array<{ labels: Record<string, string>; value: number }> {
    const histogram = this.families.get(name)?.type === 'HISTOGRAM';
    return (this.samples.get(histogram ? `${name}_count` : name) ?? []).map((s) => ({
      labels: s.labels ?? {},
      value: Number(s.value),
    }));
  }
}

const key = (labels: Record<string, string>): string => JSON.stringify(Object.entries(labels).sort());

export async function scrape(baseUrl: string, token: string): Promise<Scrape> {
  const res = await rawRequest(baseUrl, { path: '/metrics', headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}: ${res.text}`);
  return new Scrape(res.text);
}
