/**
 * A key's calls per bucket as a small line (the API keys list: `GET /tenants/:slug/stats/keys`); SVG, no chart
 * library: dozens of them on one page cost nothing. An absent or quiet key draws a flat line.
 */
export function Sparkline({
  points,
  width = 96,
  height = 22,
  label,
}: {
  points: number[] | undefined;
  width?: number;
  height?: number;
  label: string;
}) {
  const values = points && points.length > 1 ? points : [0, 0];
  const max = Math.max(1, ...values);
  const step = width / (values.length - 1);
  const line = values
    .map((v, i) => `${(i * step).toFixed(1)},${(height - 1 - (v / max) * (height - 2)).toFixed(1)}`)
    .join(' ');
  return (
    <svg
      className="sparkline"
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      role="img"
      aria-label={label}
      data-testid="sparkline"
    >
      <polyline points={line} fill="none" stroke="var(--primary)" strokeWidth="1.5" />
    </svg>
  );
}
