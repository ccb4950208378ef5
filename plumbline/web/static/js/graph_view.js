// SVG rendering of a laid-out lineage graph, with pan, zoom, fit, selection and highlights.
import { s } from './dom.js';
import { edgePath, layout } from './layout.js';
import { middleEllipsis } from './format.js';

const measurers = {};

/** text shortened in the middle until it fits maxWidth pixels in the node's font. */
function fitText(text, kind, maxWidth) {
  const t = String(text ?? '');
  // One canvas per font: setting ctx.font re-parses it, which costs more than measuring.
  let ctx = measurers[kind];
  if (!ctx) {
    ctx = document.createElement('canvas').getContext('2d');
    const family = getComputedStyle(document.body).fontFamily;
    ctx.font = kind === 'title' ? `600 ${TITLE_PX}px ${family}` : `${SUB_PX}px ${family}`;
    measurers[kind] = ctx;
  }
  const full = ctx.measureText(t).width;
  if (full <= maxWidth) return t;
  // Start from the average character width, then step down: a measurement or two per label
  // (a binary search costs ~8 and shows on graphs of 1,000 nodes).
  let n = Math.max(1, Math.floor((t.length * maxWidth) / full));
  let out = middleEllipsis(t, n);
  while (n > 1 && ctx.measureText(out).width > maxWidth) {
    n -= 1;
    out = middleEllipsis(t, n);
  }
  return out;
}

const SIZES = { DATASET: [210, 52], JOB: [210, 52], DATASET_FIELD: [230, 48], MORE: [150, 36] };
/** Node titles and the smaller texts (subtitles, edge labels), in CSS px (app.css says the same). */
const TITLE_PX = 13;
const SMALL_PX = 12;
const SUB_PX = SMALL_PX;
/** No text on screen is smaller than this (px): below it, the smaller texts give way. */
export const MIN_TEXT_PX = 11;
/** The smallest scale "fit" goes to: node titles stay at least MIN_TEXT_PX tall on screen.
 * The lineage view folds what would not fit at it (see arrange.js); what is still bigger (the user
 * expanded it) fits by panning. */
export const MIN_FIT_SCALE = MIN_TEXT_PX / TITLE_PX + 0.001;
/** Free space kept around the fitted graph, per side (px). */
export const FIT_PAD = 20;
const TEXT_X = 44;
const TEXT_PAD = 12;

/** Layout options of the lineage graph: compact margins, and a shorter gap between the layers of a
 * top-to-bottom layout (vertical edges need less room than horizontal ones). */
export function layoutOptions(options = {}) {
  return { marginX: 24, marginY: 24, layerGap: options.direction === 'TB' ? 44 : 64, ...options };
}

/** The nodes of a display (a GraphModel or collapseFanouts' result) with their drawn sizes. */
function sized(model) {
  return [...model.nodes.values()].map((n) => {
    const [w, hgt] = SIZES[n.type] || SIZES.DATASET;
    return { id: n.id, width: w, height: hgt };
  });
}

/** The layout of a display without drawing it: {width, height, …} as layout() answers. */
export function measure(model, options = {}) {
  return layout(sized(model), [...model.edges.values()], layoutOptions(options));
}

export class GraphView {
  /**
   * @param {HTMLElement} container
   * @param {{onSelect?: Function, onOpen?: Function, onExpand?: Function, onPathTarget?: Function, onMore?: Function}} handlers
   */
  constructor(container, handlers = {}) {
    this.handlers = handlers;
    this.t = { k: 1, x: 0, y: 0 };
    this.viewport = s('g', { class: 'viewport' });
    this.svg = s('svg', { class: 'graph', role: 'img', 'aria-label': 'Lineage graph' }, defs(), this.viewport);
    container.append(this.svg);
    this.nodeEls = new Map();
    this.edgeEls = new Map();
    this.edgesOf = new Map();
    this.selected = null;
    this._bindPanZoom();
  }

  /**
   * Lay out and draw model (a GraphModel). options: focusId, label(node) -> [title, subtitle],
   * edgeLabel(edge) -> {text, kind} | null.
   */
  render(model, options = {}) {
    this.model = model;
    this.options = options;
    this.layout = measure(model, options.layout || {});
    this.svg.dataset.direction = this.layout.direction;
    this.nodeEls.clear();
    this.edgeEls.clear();
    this.edgesOf.clear();
    const edgeLayer = s('g', { class: 'edges' });
    const labelLayer = s('g', { class: 'edge-labels' });
    const nodeLayer = s('g', { class: 'nodes' });
    for (const e of this.layout.edges) {
      const key = `${e.from}\u0000${e.to}`;
      const lbl = options.edgeLabel ? options.edgeLabel(e) : null;
      // drawn by confidence (issue 31 §2): solid complete, dashed partial, dotted inferred; the
      // reason on hover
      const known = options.edgeConfidence ? options.edgeConfidence(e) : null;
      const path = s('path', {
        class: ['edge', e.reversed && 'edge-back', lbl && lbl.kind && `edge-${lbl.kind.toLowerCase()}`,
          known && `edge-conf-${known.completeness}`],
        d: edgePath(e.points, this.layout.direction),
        'marker-end': 'url(#arrow)',
        'data-from': e.from,
        'data-to': e.to,
        'data-completeness': known ? known.completeness : null,
      });
      if (known && options.edgeTooltip) path.append(s('title', null, options.edgeTooltip(known)));
      edgeLayer.append(path);
      this.edgeEls.set(key, path);
      for (const id of [e.from, e.to]) {
        if (!this.edgesOf.has(id)) this.edgesOf.set(id, []);
        this.edgesOf.get(id).push(key);
      }
      if (lbl && lbl.text) labelLayer.append(edgeLabel(e.points, lbl.text));
    }
    for (const n of model.nodes.values()) {
      const p = this.layout.nodes.get(n.id);
      const g = this._node(n, p, options);
      nodeLayer.append(g);
      this.nodeEls.set(n.id, g);
    }
    this.viewport.replaceChildren(edgeLayer, labelLayer, nodeLayer);
    this.svg.dataset.nodes = String(model.nodes.size);
    this.svg.dataset.edges = String(model.edges.size);
    if (this.selected && !model.nodes.has(this.selected)) this.selected = null;
    if (this.selected) this.nodeEls.get(this.selected).classList.add('selected');
  }

  _more(n, p) {
    const { count, side } = n.data;
    const g = s('g', {
      class: 'node node-more',
      transform: `translate(${p.x.toFixed(1)},${p.y.toFixed(1)})`,
      'data-id': n.id,
      'data-type': 'MORE',
      'data-count': String(count),
      tabindex: 0,
      role: 'button',
    },
    s('title', null, `${count} more ${side === 'out' ? 'downstream' : 'upstream'}: click to show them`),
    s('rect', { class: 'node-box', width: p.width, height: p.height, rx: p.height / 2 }),
    s('text', { class: 'node-title', x: p.width / 2, y: p.height / 2 + 4, 'text-anchor': 'middle' }, `+${count} more`));
    const open = () => this.handlers.onMore?.(n.id);
    g.addEventListener('click', open);
    g.addEventListener('keydown', (ev) => { if (ev.key === 'Enter') open(); });
    return g;
  }

  _node(n, p, options) {
    if (n.type === 'MORE') return this._more(n, p);
    const [title, subtitle] = options.label ? options.label(n) : [n.id, ''];
    const state = n.type === 'JOB' && n.data.latestRun ? String(n.data.latestRun.state || '').toLowerCase() : null;
    const hidden = this.model.hidden(n.id);
    const g = s('g', {
      class: ['node', `node-${n.type.toLowerCase()}`, state && `run-${state}`, n.id === options.focusId && 'focus'],
      transform: `translate(${p.x.toFixed(1)},${p.y.toFixed(1)})`,
      'data-id': n.id,
      'data-type': n.type,
      tabindex: 0,
    },
    s('title', null, options.tooltip ? options.tooltip(n) : `${title}\n${subtitle}`),
    s('rect', { class: 'node-box', width: p.width, height: p.height, rx: n.type === 'JOB' ? 27 : 8 }),
    icon(n.type, p.height),
    s('text', { class: 'node-title', x: TEXT_X, y: p.height / 2 - 3 }, fitText(title, 'title', p.width - TEXT_X - TEXT_PAD)),
    s('text', { class: 'node-sub', x: TEXT_X, y: p.height / 2 + 13 }, fitText(subtitle, 'sub', p.width - TEXT_X - TEXT_PAD)));
    const tb = this.layout.direction === 'TB';
    if (hidden.up) g.append(tb ? handle(p.width / 2, 0, 'up', hidden.up) : handle(0, p.height / 2, 'up', hidden.up));
    if (hidden.down) g.append(tb ? handle(p.width / 2, p.height, 'down', hidden.down) : handle(p.width, p.height / 2, 'down', hidden.down));
    g.addEventListener('click', (ev) => {
      const h = ev.target.closest('.expand');
      if (h) { ev.stopPropagation(); this.handlers.onExpand?.(n.id, h.dataset.dir); return; }
      if (ev.shiftKey && this.selected && this.selected !== n.id) { this.handlers.onPathTarget?.(n.id); return; }
      this.select(n.id);
    });
    g.addEventListener('dblclick', () => this.handlers.onOpen?.(n.id));
    g.addEventListener('keydown', (ev) => { if (ev.key === 'Enter') this.select(n.id); });
    g.addEventListener('mouseenter', () => this._hover(n.id, true));
    g.addEventListener('mouseleave', () => this._hover(n.id, false));
    return g;
  }

  _hover(id, on) {
    for (const k of this.edgesOf.get(id) || []) this.edgeEls.get(k).classList.toggle('hover', on);
  }

  select(id) {
    if (this.selected) this.nodeEls.get(this.selected)?.classList.remove('selected');
    this.selected = id;
    if (id) this.nodeEls.get(id)?.classList.add('selected');
    this.handlers.onSelect?.(id);
  }

  /** Dim everything except the given nodes and edges; null clears. */
  highlight(sel) {
    this.svg.classList.toggle('dimmed', !!sel);
    for (const [id, el] of this.nodeEls) el.classList.toggle('hl', !!sel && sel.nodes.has(id));
    for (const [k, el] of this.edgeEls) el.classList.toggle('hl', !!sel && sel.edges.has(k));
  }

  /** Outline the given node ids (a find-in-graph result); an empty set clears. */
  mark(ids) {
    for (const [id, el] of this.nodeEls) el.classList.toggle('match', ids.has(id));
  }

  centerOn(id) {
    const p = this.layout.nodes.get(id);
    if (!p) return;
    const { width, height } = this.svg.getBoundingClientRect();
    this.t.x = width / 2 - (p.x + p.width / 2) * this.t.k;
    this.t.y = height / 2 - (p.y + p.height / 2) * this.t.k;
    this._apply();
  }

  /**
   * The whole graph on screen, unless that would make labels unreadable: then the readable
   * MIN_FIT_SCALE, centred on the selected (else focus) node; svg data-clamped says so.
   */
  fit() {
    const { width, height } = this.svg.getBoundingClientRect();
    if (!this.layout || !width || !height) return;
    const k = Math.min(1.1, (width - 2 * FIT_PAD) / this.layout.width, (height - 2 * FIT_PAD) / this.layout.height);
    this.t.k = Math.max(MIN_FIT_SCALE, k);
    this.svg.dataset.clamped = String(k < MIN_FIT_SCALE);
    if (k < MIN_FIT_SCALE) {
      const at = [this.selected, this.options && this.options.focusId].find((id) => id && this.layout.nodes.has(id));
      this.t.x = 20;
      this.t.y = 20;
      if (at) {
        this.centerOn(at);
        // No empty margin where the graph could be: slide it back towards the canvas's edges
        // (the focus stays in sight: it moves at most by the empty space).
        const gw = this.layout.width * this.t.k;
        const gh = this.layout.height * this.t.k;
        this.t.x = gw > width ? Math.min(20, Math.max(width - 20 - gw, this.t.x)) : (width - gw) / 2;
        this.t.y = gh > height ? Math.min(20, Math.max(height - 20 - gh, this.t.y)) : (height - gh) / 2;
      }
    } else {
      this.t.x = (width - this.layout.width * this.t.k) / 2;
      this.t.y = (height - this.layout.height * this.t.k) / 2;
    }
    this._apply();
  }

  zoomBy(f, cx, cy) {
    const r = this.svg.getBoundingClientRect();
    const px = cx ?? r.width / 2;
    const py = cy ?? r.height / 2;
    const k = Math.min(3, Math.max(0.02, this.t.k * f));
    this.t.x = px - ((px - this.t.x) * k) / this.t.k;
    this.t.y = py - ((py - this.t.y) * k) / this.t.k;
    this.t.k = k;
    this._apply();
  }

  _apply() {
    this.viewport.setAttribute('transform', `translate(${this.t.x.toFixed(1)},${this.t.y.toFixed(1)}) scale(${this.t.k.toFixed(4)})`);
    // Level of detail: tiny text is noise and costs paint time on big graphs; the smaller texts
    // give way before they get smaller than MIN_TEXT_PX on screen.
    this.svg.classList.toggle('lod-small', this.t.k * SMALL_PX < MIN_TEXT_PX);
    this.svg.classList.toggle('lod-mid', this.t.k < 0.55);
    this.svg.classList.toggle('lod-low', this.t.k < 0.3);
    this.svg.dataset.scale = this.t.k.toFixed(3);
  }

  _bindPanZoom() {
    let drag = null;
    this.svg.addEventListener('pointerdown', (ev) => {
      if (ev.target.closest('.node')) return;
      drag = { x: ev.clientX, y: ev.clientY, tx: this.t.x, ty: this.t.y, moved: false };
      this.svg.setPointerCapture(ev.pointerId);
      this.svg.classList.add('panning');
    });
    this.svg.addEventListener('pointermove', (ev) => {
      if (!drag) return;
      const dx = ev.clientX - drag.x;
      const dy = ev.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      this.t.x = drag.tx + dx;
      this.t.y = drag.ty + dy;
      this._apply();
    });
    const end = () => {
      if (drag && !drag.moved) this.select(null);
      drag = null;
      this.svg.classList.remove('panning');
    };
    this.svg.addEventListener('pointerup', end);
    this.svg.addEventListener('pointercancel', end);
    this.svg.addEventListener('wheel', (ev) => {
      ev.preventDefault();
      const r = this.svg.getBoundingClientRect();
      this.zoomBy(Math.exp(-ev.deltaY * 0.0015), ev.clientX - r.left, ev.clientY - r.top);
    }, { passive: false });
  }
}

function defs() {
  return s('defs', null,
    s('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' },
      s('path', { d: 'M0,1 L9,5 L0,9 z', class: 'arrow-head' })));
}

function icon(type, height) {
  const cy = height / 2;
  if (type === 'JOB') {
    return s('g', { class: 'node-icon', transform: `translate(24,${cy})` },
      s('circle', { r: 11 }),
      s('path', { d: 'M-3,-5 L5,0 L-3,5 z', class: 'glyph' }));
  }
  if (type === 'DATASET_FIELD') {
    return s('g', { class: 'node-icon', transform: `translate(22,${cy})` },
      s('rect', { x: -9, y: -9, width: 18, height: 18, rx: 4 }),
      s('path', { d: 'M-4,-3 H4 M-4,1 H4 M-4,5 H1', class: 'glyph-line' }));
  }
  return s('g', { class: 'node-icon', transform: `translate(22,${cy})` },
    s('ellipse', { cx: 0, cy: -6, rx: 9, ry: 3.5 }),
    s('path', { d: 'M-9,-6 V6 A9,3.5 0 0 0 9,6 V-6', class: 'cyl' }),
    s('path', { d: 'M-9,0 A9,3.5 0 0 0 9,0', class: 'glyph-line' }));
}

function handle(x, y, dir, count) {
  return s('g', { class: 'expand', 'data-dir': dir, transform: `translate(${x},${y})` },
    s('title', null, `Expand ${dir === 'up' ? 'upstream' : 'downstream'} (${count} more)`),
    s('circle', { r: 9 }),
    s('path', { d: 'M-4,0 H4 M0,-4 V4', class: 'glyph-line' }));
}

function edgeLabel(points, text) {
  // Label at the middle of the route: the middle point of odd routes, else the midpoint of the middle segment.
  const i = Math.floor((points.length - 1) / 2);
  const [x0, y0] = points[i];
  const [x1, y1] = points[Math.min(i + 1, points.length - 1)];
  const x = (x0 + x1) / 2;
  const y = (y0 + y1) / 2;
  const w = text.length * 7 + 12;
  return s('g', { class: 'edge-label', transform: `translate(${x.toFixed(1)},${y.toFixed(1)})` },
    s('rect', { x: -w / 2, y: -9, width: w, height: 18, rx: 9 }),
    s('text', { 'text-anchor': 'middle', y: 4 }, text));
}
