// Small hand-written SVG bar charts.
import { h, s } from './dom.js';

/**
 * Bar chart of items [{label, value, state, href, title}] in the given order.
 * format(value) renders axis ticks and tooltips.
 */
export function barChart(items, { format = String, height = 180, emptyText = 'No data yet', ariaLabel = 'chart' } = {}) {
  const data = items.filter((d) => d.value !== null && d.value !== undefined && !Number.isNaN(Number(d.value)));
  if (!data.length) return h('div', { class: 'muted chart-empty' }, emptyText);
  // Drawn at the wrapper's real width (and redrawn when it changes) so text keeps its size.
  const wrap = h('div', { class: 'chart-wrap', 'data-bars': String(data.length) });
  let drawnWidth = 0;
  const draw = (width) => {
    const w = Math.max(240, Math.round(width));
    if (w === drawnWidth) return;
    drawnWidth = w;
    wrap.replaceChildren(drawBars(data, { format, height, ariaLabel, width: w }));
  };
  draw(640);
  new ResizeObserver((entries) => draw(entries[0].contentRect.width)).observe(wrap);
  return wrap;
}

function drawBars(data, { format, height, ariaLabel, width }) {
  const W = width;
  const H = height;
  const pad = { l: 64, r: 12, t: 12, b: 26 };
  const max = niceMax(Math.max(...data.map((d) => Number(d.value))));
  const iw = W - pad.l - pad.r;
  const ih = H - pad.t - pad.b;
  const step = iw / data.length;
  const bw = Math.max(3, Math.min(40, step * 0.6));
  const allZero = data.every((d) => Number(d.value) === 0);
  const ticks = allZero ? [0] : [0, max / 2, max];
  return s('svg', { class: 'chart', width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': ariaLabel },
    ticks.map((t) => {
      const y = pad.t + ih - (t / max) * ih;
      return s('g', { class: 'tick' },
        s('line', { x1: pad.l, x2: W - pad.r, y1: y, y2: y }),
        s('text', { x: pad.l - 8, y: y + 4, 'text-anchor': 'end' }, format(t)));
    }),
    data.map((d, i) => {
      const v = Number(d.value);
      const bh = max ? (v / max) * ih : 0;
      const x = pad.l + i * step + (step - bw) / 2;
      const bar = s('rect', {
        class: ['bar', d.state && `state-${String(d.state).toLowerCase()}`],
        x, y: pad.t + ih - bh, width: bw, height: Math.max(bh, v > 0 ? 1.5 : 0), rx: Math.min(3, bw / 4),
        'data-value': String(v),
      }, s('title', null, `${d.title || d.label}: ${format(v)}`));
      const g = s('g', null, bar);
      if (i % Math.max(1, Math.ceil(data.length / Math.floor(iw / 90))) === 0) {
        g.append(s('text', { class: 'bar-label', x: x + bw / 2, y: H - 8, 'text-anchor': 'middle' }, d.label));
      }
      return d.href ? s('a', { href: d.href, 'data-link': '' }, g) : g;
    }));
}

function niceMax(v) {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}
