import type { HistogramBar } from '../shared/api-types.js';

/** The score histogram as bars; each bar says its range and count. */
export function Histogram({ bars }: { bars: HistogramBar[] }) {
  const max = Math.max(1, ...bars.map((bar) => bar.count));
  return (
    <div class="histogram" data-testid="histogram">
      {bars.map((bar) => (
        <div
          class="bar"
          key={bar.from}
          title={`${bar.from.toFixed(1)}–${bar.to.toFixed(1)}: ${bar.count}`}
        >
          <span class="bar-count">{bar.count}</span>
          <span class="bar-fill" style={{ height: `${(bar.count / max) * 100}%` }} />
          <span class="bar-label">{bar.from.toFixed(1)}</span>
        </div>
      ))}
    </div>
  );
}

export interface TrendPoint {
  label: string;
  value: number | null;
}

/** A small line chart of values in [0, 1] over runs, oldest first. */
export function Trend({ points, title }: { points: TrendPoint[]; title: string }) {
  const width = 240;
  const height = 64;
  const step = points.length > 1 ? width / (points.length - 1) : 0;
  const shown = points
    .map((point, index) =>
      point.value === null ? null : [index * step, height - point.value * height],
    )
    .filter((xy): xy is number[] => xy !== null);
  const last = points[points.length - 1]?.value ?? null;
  return (
    <figure class="trend">
      <figcaption>
        <span class="trend-title">{title}</span>
        <span class="trend-last">{last === null ? '–' : `${Math.round(last * 100)}%`}</span>
      </figcaption>
      <svg
        viewBox={`-4 -4 ${width + 8} ${height + 8}`}
        preserveAspectRatio="none"
        role="img"
        aria-label={title}
      >
        <line x1="0" y1={height} x2={width} y2={height} class="axis" />
        <polyline points={shown.map((xy) => xy.join(',')).join(' ')} class="line" />
        {/* A dot per run while there are few; beyond, the line alone (a long history draws fast). */}
        {shown.length > 40
          ? null
          : shown.map((xy, index) => (
              <circle key={index} cx={xy[0]} cy={xy[1]} r="3" class="dot">
                <title>{points[index]?.label}</title>
              </circle>
            ))}
      </svg>
    </figure>
  );
}
