import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSeries {
  label: string;
  color: string;
  values: Array<number | null>;
  /** Bars instead of a line (requests per bucket). */
  bars?: boolean;
}

/**
 * One uPlot chart over the buckets' times (`x`, epoch seconds), as wide as its container (redrawn when it resizes).
 * `stacked`: each series drawn over the sum of those before it (requests by status class).
 */
export function UPlotChart({
  title,
  x,
  series,
  yLabel,
  stacked = false,
  height = 220,
  testId,
}: {
  title: string;
  x: number[];
  series: ChartSeries[];
  yLabel: string;
  stacked?: boolean;
  height?: number;
  testId?: string;
}) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = host.current;
    if (!element) return;
    // Stacked: cumulative sums, drawn last-first so each band shows its own class.
    const drawn = stacked
      ? series.map((_, i) => x.map((__, j) => series.slice(0, i + 1).reduce((sum, s) => sum + (s.values[j] ?? 0), 0)))
      : series.map((s) => s.values);
    const order = stacked ? [...series.keys()].reverse() : [...series.keys()];
    const options: uPlot.Options = {
      width: Math.max(280, element.clientWidth),
      height,
      legend: { show: true },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true }, y: { range: (_u, min, max) => [0, Math.max(1, max * 1.1, min)] } },
      axes: [
        { label: 'Time', labelSize: 18, size: 36 },
        { label: yLabel, labelSize: 18, size: 52 },
      ],
      series: [
        {},
        ...order.map((i) => ({
          label: series[i].label,
          stroke: series[i].color,
          fill: stacked || series[i].bars ? `${series[i].color}cc` : undefined,
          width: 1.5,
          spanGaps: !stacked,
          paths: series[i].bars ? uPlot.paths.bars?.({ size: [0.8, 40] }) : undefined,
          // A lone bucket between empty ones is a dot, not an invisible line.
          points: { show: !series[i].bars, size: 5, fill: series[i].color },
          value: (_u: uPlot, v: number | null, _s: number, idx: number | null) =>
            v === null || idx === null ? '–' : String(stacked ? (series[i].values[idx] ?? 0) : v),
        })),
      ],
    };
    const chart = new uPlot(options, [x, ...order.map((i) => drawn[i])] as uPlot.AlignedData, element);
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(280, element.clientWidth), height }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [x, series, yLabel, stacked, height]);
  return (
    <figure className="chart" data-testid={testId} aria-label={title}>
      <figcaption className="chart-title">{title}</figcaption>
      <div ref={host} className="chart-host" />
    </figure>
  );
}
