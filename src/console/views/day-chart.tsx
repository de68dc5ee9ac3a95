// A bar chart of counts per UTC day, drawn on the server as SVG (no script): one bar per day,
// stacked when there are two series (deliveries that succeeded and failed). The SVG scales with
// its viewBox, so it fits a phone; its words (dates, the scale, the legend) are HTML beside it,
// so they stay readable at any width. For screen readers the picture is one image with a
// summary, and every day's numbers are in a table that only they read.

export interface DaySeries {
  /** Plural words for what is counted: "credits", "succeeded". */
  label: string;
  tone: 'accent' | 'ok' | 'bad';
  /** One value per day, in the order of `days`. */
  values: readonly number[];
}

export interface DayChartProps {
  /** What the picture shows, such as "Credits spent per day". */
  title: string;
  /** YYYY-MM-DD, oldest first. */
  days: readonly string[];
  series: readonly DaySeries[];
}

const WIDTH = 300;
const HEIGHT = 100;
const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

/** "Credits spent per day, 2026-10-22 to 2026-11-20 (UTC): 57 credits in all; most on 2026-11-20 (40)." */
export function chartSummary({ title, days, series }: DayChartProps): string {
  const span = `${title}, ${days[0]} to ${days[days.length - 1]} (UTC)`;
  const totals = days.map((_, i) => sum(series.map((s) => s.values[i] ?? 0)));
  const all = sum(totals);
  if (all === 0) return `${span}: none.`;
  const busiest = totals.indexOf(Math.max(...totals));
  const parts = series.map((s) => `${sum(s.values)} ${s.label}`).join(', ');
  return `${span}: ${parts} in all; most on ${days[busiest]} (${totals[busiest]}).`;
}

export function DayChart(props: DayChartProps) {
  const { title, days, series } = props;
  const totals = days.map((_, i) => sum(series.map((s) => s.values[i] ?? 0)));
  const top = Math.max(1, ...totals);
  const slot = WIDTH / days.length;
  const bar = Math.max(1, slot * 0.7);
  const heightOf = (value: number) => (value / top) * (HEIGHT - 2);
  return (
    <div class="chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none" role="img" aria-label={chartSummary(props)} focusable="false">
        <line class="chart-top" x1="0" x2={WIDTH} y1="1" y2="1" />
        <line class="chart-base" x1="0" x2={WIDTH} y1={HEIGHT - 0.5} y2={HEIGHT - 0.5} />
        {days.map((day, i) => {
          let y = HEIGHT;
          return (
            <g>
              <title>{`${day}: ${series.map((s) => `${s.values[i] ?? 0} ${s.label}`).join(', ')}`}</title>
              {series.map((s) => {
                const h = heightOf(s.values[i] ?? 0);
                y -= h;
                return h > 0 ? (
                  <rect class={`bar-${s.tone}`} x={(i * slot + (slot - bar) / 2).toFixed(2)} y={y.toFixed(2)} width={bar.toFixed(2)} height={h.toFixed(2)} />
                ) : null;
              })}
            </g>
          );
        })}
      </svg>
      <div class="chart-axis" aria-hidden="true">
        <span>{days[0]}</span>
        <span>{days[days.length - 1]}</span>
      </div>
      <p class="chart-legend muted" aria-hidden="true">
        {series.length > 1 &&
          series.map((s) => (
            <span class="chart-key">
              <span class={`swatch bar-${s.tone}`} /> {s.label}
            </span>
          ))}
        <span>{totals.some((total) => total > 0) ? `Top line: ${top} a day.` : 'None in these days.'}</span>
      </p>
      {/* Hidden by its box: a table grows to fit its rows whatever height it is given. */}
      <div class="sr-only">
        <table data-testid="chart-data">
          <caption>{title}</caption>
          <thead>
            <tr>
              <th scope="col">Day (UTC)</th>
              {series.map((s) => (
                <th scope="col">{s.label}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {days.map((day, i) => (
              <tr data-day={day}>
                <th scope="row">{day}</th>
                {series.map((s) => (
                  <td>{s.values[i] ?? 0}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
