/**
 * The chart of a results tab: chart.js on a canvas (no eval; styles through the CSSOM only), in the
 * theme's chart colours, or a single number, as `chooseChart` (common/src/results/shape.ts) picks. Its
 * axis titles, legend and y baseline are `chartAxes`'s, as chart.js options (scale `title`,
 * `plugins.legend`, `beginAtZero`). Once drawn, the canvas carries what the chart shows, read from the
 * chart.js instance (`data-x-title`, `data-y-title`, `data-legend`: the legend's items as a JSON list,
 * `[]` when hidden, `data-legend-title`, `data-y-min`: the y scale's lowest value), for the tests.
 */
import { Chart, registerables, type ChartConfiguration, type Plugin } from 'chart.js';
import { formatCell, formatNumber } from '../../common/src/results/format';
import { chartAxes, chartData, chooseChart, type ChartKind } from '../../common/src/results/shape';
import { el, type Tab } from './tab';

Chart.register(...registerables);

/** A colour of the VS Code theme (`--vscode-charts-*`), with a fallback. */
function themeColor(name: string, fallback: string): string {
  return getComputedStyle(document.body).getPropertyValue(name).trim() || fallback;
}

/** The chart's series colours: the theme's chart colours, then fixed ones. */
function palette(): string[] {
  return [
    themeColor('--vscode-charts-blue', '#3794ff'),
    themeColor('--vscode-charts-orange', '#d18616'),
    themeColor('--vscode-charts-green', '#89d185'),
    themeColor('--vscode-charts-red', '#f14c4c'),
    themeColor('--vscode-charts-purple', '#b180d7'),
    themeColor('--vscode-charts-yellow', '#cca700'),
    '#4dc0b5', '#f66d9b', '#9561e2', '#6cb2eb', '#a0aec0', '#e3342f',
  ];
}

/** Writes on the canvas, after each render, what the drawn chart shows (see the file comment). */
const describeDrawn: Plugin = {
  id: 'tsqDescribeDrawn',
  afterRender(chart) {
    const d = chart.canvas.dataset;
    const scales = chart.options.scales as Record<string, { title?: { display?: boolean; text?: string | string[] } } | undefined>;
    const title = (axis: string): string => {
      const t = scales[axis]?.title;
      return t?.display ? [t.text ?? ''].flat().join(' ') : '';
    };
    d.xTitle = title('x');
    d.yTitle = title('y');
    const legend = chart.options.plugins?.legend;
    d.legend = JSON.stringify(legend?.display ? (chart.legend?.legendItems ?? []).map((i) => i.text) : []);
    d.legendTitle = legend?.display && legend.title?.display ? String(legend.title.text) : '';
    d.yMin = String(chart.scales.y?.min ?? '');
  },
};

/** Draws the tab's chart (chart.js on a canvas) or its single number, as `chooseChart` picks for its answer. */
export function drawChart(t: Tab): void {
  if (t.view !== 'chart' || !t.columns) return;
  const spec = chooseChart(t.columns, t.store.length, t.chartKind);
  const kind = t.els.kind;
  const labels: Record<ChartKind, string> = { line: 'Line', bar: 'Bars', groupedBar: 'Grouped bars', number: 'Single number', none: 'None' };
  kind.replaceChildren(...spec.alternatives.map((k) => {
    const o = el('option', undefined, labels[k]);
    o.value = k;
    o.selected = k === spec.kind;
    return o;
  }));
  kind.disabled = spec.alternatives.length < 2;
  t.els.body.dataset.chartKind = spec.kind;
  t.chart?.destroy();
  t.chart = undefined;
  t.els.canvasBox.replaceChildren();
  t.els.number.hidden = true;
  if (spec.kind === 'none') {
    t.els.number.hidden = false;
    t.els.number.className = 'big-number none';
    t.els.number.textContent = spec.reason ?? 'No chart fits this answer.';
    return;
  }
  if (spec.kind === 'number') {
    const m = spec.measures[0];
    t.els.number.hidden = false;
    t.els.number.className = 'big-number';
    const v = t.store.get(0, m);
    t.els.number.replaceChildren(el('div', 'value', typeof v === 'number' ? formatNumber(v) : formatCell(v ?? null, t.columns[m])), el('div', 'caption', t.columns[m].name));
    return;
  }
  const data = chartData(spec, t.columns, t.store, formatCell);
  const axes = chartAxes(spec, t.columns, data);
  const colors = palette();
  const fg = themeColor('--vscode-foreground', '#cccccc');
  const lines = themeColor('--vscode-charts-lines', 'rgba(128,128,128,0.3)');
  const type = spec.kind === 'line' ? 'line' : 'bar';
  const canvas = el('canvas');
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', `${labels[spec.kind]} chart`);
  t.els.canvasBox.append(canvas);
  const config: ChartConfiguration = {
    type,
    data: {
      labels: data.labels,
      datasets: data.series.map((s, i) => ({
        label: s.label,
        data: s.data,
        borderColor: colors[i % colors.length],
        backgroundColor: colors[i % colors.length],
        pointRadius: data.labels.length > 200 ? 0 : 2,
        borderWidth: type === 'line' ? 2 : 0,
        spanGaps: true,
      })),
    },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      color: fg,
      plugins: {
        legend: { display: axes.legend, labels: { color: fg }, title: { display: !!axes.legendTitle, text: axes.legendTitle ?? '', color: fg } },
        tooltip: { enabled: true },
      },
      scales: {
        x: { ticks: { color: fg, autoSkip: true, maxRotation: 60 }, grid: { color: lines }, title: { display: !!axes.xTitle, text: axes.xTitle ?? '', color: fg } },
        y: { ticks: { color: fg }, grid: { color: lines }, beginAtZero: axes.fromZero, title: { display: !!axes.yTitle, text: axes.yTitle, color: fg } },
      },
    },
    plugins: [describeDrawn],
  };
  t.chart = new Chart(canvas, config);
  t.chartStale = false;
  t.els.note.hidden = !data.truncated;
  if (data.truncated) t.els.note.textContent = 'The chart shows the first categories and the largest series only.';
}
