// The lineage explorer: table-level (datasets and jobs) and column-level graphs.
import { api, links, nodeIds, parseNodeId } from '../api.js';
import { badge, emptyState, errorState, h, mount, spinner } from '../dom.js';
import { fmtDuration, fmtTime, runDuration } from '../format.js';
import {
  FANOUT_LIMIT, GraphModel, collapseFanouts, columnConfidence, columnTransformation, confidenceText, filterEdges, oneStep,
} from '../graph_model.js';
import { GraphView, MIN_FIT_SCALE } from '../graph_view.js';
import { arrange } from '../arrange.js';
import { navigate } from '../router.js';
import { datasetName, jobLabels, jobName } from '../names.js';

const DEPTHS = [0, 1, 2, 3, 5, 10];

export function renderLineage(root, _params, query) {
  const node = query.get('node');
  const depth = Math.max(0, Number(query.get('depth') ?? 2) || 0);
  const column = query.get('column');
  const indirect = query.get('indirect') !== 'off';
  document.title = 'Lineage · plumbline';
  if (!node) return renderPicker(root);
  const parsed = parseNodeId(node);
  if (!parsed) { mount(root, h('div', { class: 'page' }, errorState(new Error(`Not a node id: ${node}`)))); return null; }

  const url = (extra) => {
    const q = { depth: String(depth), ...(indirect ? {} : { indirect: 'off' }), ...extra };
    for (const k of Object.keys(q)) if (q[k] === null) delete q[k];
    return links.lineage(node, q);
  };
  const mode = column !== null ? 'column' : 'table';
  const focusId = mode === 'column' && column ? nodeIds.field(parsed.namespace, parsed.name, column) : node;
  const status = h('div', { class: 'canvas-status' }, spinner('Loading lineage…'));
  const canvas = h('div', { class: 'canvas', id: 'graph-canvas' }, status);
  const panel = h('aside', { class: 'panel', id: 'node-panel' });
  const columnSlot = h('span', { class: 'toolbar-group' });
  const view = new GraphView(canvas, {
    onSelect: (id) => { clearPath(); showPanel(id); },
    onOpen: (id) => {
      const n = model.nodes.get(id);
      if (n && n.type === 'DATASET_FIELD') navigate(links.lineage(nodeIds.dataset(n.data.namespace, n.data.dataset), { depth: String(depth), column: n.data.field }));
      else navigate(links.lineage(id, { depth: String(depth) }));
    },
    onExpand: (id, dir) => expand(id, dir),
    onPathTarget: (id) => showPath(view.selected, id),
    onMore: (id) => showMore(id),
  });
  let model = new GraphModel();
  // Folded fan-outs: how many more neighbours each "+K more" node has been asked to show, and
  // nodes that must stay visible (found with the find box).
  const shown = new Map();
  const pinned = new Set();
  let display = null;
  let plan = null;
  let pathInfo = null;

  const title = h('div', { class: 'lineage-title' },
    h('span', { class: `kind kind-${parsed.type === 'JOB' ? 'job' : 'dataset'}` }, parsed.type === 'JOB' ? 'JOB' : 'DS'),
    h('a', { href: parsed.type === 'JOB' ? links.job(parsed.namespace, parsed.name) : links.dataset(parsed.namespace, parsed.name), 'data-link': '', class: 'lineage-name', title: parsed.name }, parsed.name),
    h('span', { class: 'muted' }, parsed.namespace));
  const toolbar = h('div', { class: 'toolbar' },
    title,
    h('span', { class: 'toolbar-sep' }),
    h('a', { class: 'btn', id: 'open-impact', href: links.impact(focusId, 'downstream'), 'data-link': '', title: 'What this feeds, by distance' }, 'Impact'),
    parsed.type === 'DATASET' ? h('span', { class: 'segmented', role: 'group', 'aria-label': 'Mode' },
      h('a', { href: url({ column: null }), 'data-link': '', class: mode === 'table' ? 'on' : '', id: 'mode-table' }, 'Tables'),
      h('a', { href: url({ column: column || '' }), 'data-link': '', class: mode === 'column' ? 'on' : '', id: 'mode-column' }, 'Columns')) : null,
    columnSlot,
    h('label', { class: 'toolbar-group' }, 'Depth',
      h('select', { id: 'depth', class: 'select', onchange: (ev) => navigate(url({ depth: ev.target.value, column }), { replace: true }) },
        DEPTHS.map((d) => h('option', { value: d, selected: d === depth }, String(d))))),
    h('span', { class: 'toolbar-spacer' }),
    findBox(),
    h('span', { class: 'toolbar-group zoom' },
      h('button', { class: 'btn btn-icon', id: 'zoom-out', title: 'Zoom out', onclick: () => view.zoomBy(1 / 1.25) }, '−'),
      h('button', { class: 'btn btn-icon', id: 'zoom-in', title: 'Zoom in', onclick: () => view.zoomBy(1.25) }, '+'),
      h('button', { class: 'btn', id: 'fit', title: 'Fit to screen', onclick: () => view.fit() }, 'Fit')));
  const legend = h('div', { class: 'legend' },
    mode === 'table'
      ? [h('span', { class: 'lg lg-dataset' }, 'Dataset'), h('span', { class: 'lg lg-job' }, 'Job'),
        h('span', { class: 'lg lg-completed' }, 'Completed'), h('span', { class: 'lg lg-failed' }, 'Failed'), h('span', { class: 'lg lg-running' }, 'Running')]
      : [h('span', { class: 'lg lg-direct' }, 'Direct'), h('span', { class: 'lg lg-indirect' }, 'Indirect')],
    [h('span', { class: 'lg lg-conf lg-conf-complete', title: 'the producer walked every step' }, 'Complete'),
      h('span', { class: 'lg lg-conf lg-conf-partial', title: 'some lineage hidden: hover an edge for why' }, 'Partial'),
      h('span', { class: 'lg lg-conf lg-conf-inferred', title: 'the producer does not say how complete it is' }, 'Inferred')],
    h('span', { class: 'muted' }, 'Drag to pan · scroll to zoom · shift-click a second node for the path'));
  mount(root, h('div', { class: 'lineage' }, toolbar, h('div', { class: 'lineage-body' }, canvas, panel), legend));

  let jobLabel = (name) => jobName(name).short; // set by draw(): tells the graph's jobs apart
  const labelOf = (n) => {
    const d = n.data || {};
    if (n.type === 'MORE') return [`+${d.count} more`, ''];
    const p = parseNodeId(n.id) || {};
    if (n.type === 'DATASET_FIELD') {
      const ds = d.dataset || p.name;
      return [`${datasetName(ds).short}.${d.field || p.field}`, ds];
    }
    if (n.type === 'JOB') {
      const r = d.latestRun;
      return [jobLabel(d.name || p.name), r ? `${r.state} · ${fmtDuration(runDuration(r))}` : 'no runs'];
    }
    // Path-like names read best as "orders" over "file · /data/clean".
    const { short, context } = datasetName(d.name || p.name);
    const ns = d.namespace || p.namespace;
    return [short, context ? `${ns} · ${context}` : ns];
  };
  const tooltip = (n) => {
    const d = n.data || {};
    if (n.type === 'MORE') return `${d.count} more`;
    const p = parseNodeId(n.id) || {};
    if (n.type === 'DATASET_FIELD') return `${d.namespace || p.namespace} ${d.dataset || p.name} · ${d.field || p.field}`;
    return `${d.name || p.name}\n${d.namespace || p.namespace}`;
  };
  const edgeLabel = mode === 'column' ? (e) => {
    const t = columnTransformation(model.nodes.get(e.to), model.nodes.get(e.from));
    if (!t) return null;
    return { text: [t.type, t.subtype].filter(Boolean).join(' · '), kind: t.type || '' };
  } : null;
  // How each edge is known (issue 31 §2): drawn by its completeness, the reasons on hover.
  const edgeConfidence = (e) => (mode === 'column'
    ? columnConfidence(model.nodes.get(e.to), model.nodes.get(e.from))
    : (model.edges.get(`${e.from}\u0000${e.to}`) || {}).known || null);
  // Without indirect edges (joins, filters, grouping), only what flows into the values is shown.
  const columnFilter = (graph) => (indirect ? graph : filterEdges(graph, (o, d) => isIndirect(columnTransformation(d, o))));

  function findBox() {
    const count = h('span', { class: 'find-count muted', id: 'find-count' });
    let matches = [];
    let at = -1;
    const input = h('input', { class: 'input find-input', id: 'graph-find', type: 'search', placeholder: 'Find in graph', autocomplete: 'off' });
    input.addEventListener('input', () => {
      const q = input.value.trim().toLowerCase();
      matches = !q ? [] : [...model.nodes.values()]
        .filter((n) => labelOf(n).concat(tooltip(n)).some((x) => String(x).toLowerCase().includes(q)))
        .map((n) => n.id);
      at = -1;
      view.mark(new Set(matches));
      count.textContent = q ? `${matches.length} found` : '';
    });
    input.addEventListener('keydown', (ev) => {
      if (ev.key !== 'Enter' || !matches.length) return;
      at = (at + 1) % matches.length;
      if (!view.nodeEls.has(matches[at])) { pinned.add(matches[at]); draw(); view.mark(new Set(matches)); }
      view.centerOn(matches[at]);
      view.select(matches[at]);
      count.textContent = `${at + 1} of ${matches.length}`;
    });
    return h('span', { class: 'toolbar-group' }, input, count);
  }

  /** Draw the graph as arranged; `replan` (on first open) arranges it anew for the canvas: the whole
   * neighbourhood in view at a readable scale, folded where it would not fit (arrange.js). Later
   * draws (expand, "+K more", find) keep that arrangement and grow it. */
  function draw(replan = false) {
    const layout = mode === 'column' ? { layerGap: 200 } : {};
    if (replan || !plan) {
      const { width, height } = view.svg.getBoundingClientRect();
      plan = arrange(model, focusId, { width, height }, { directions: mode === 'column' ? ['LR'] : ['LR', 'TB'], layout, shown, pinned });
    }
    display = collapseFanouts(model, focusId, { shown, pinned, reach: plan.reach, limit: plan.limit });
    jobLabel = jobLabels([...model.nodes.values()].filter((n) => n.type === 'JOB').map((n) => (n.data || {}).name || (parseNodeId(n.id) || {}).name));
    view.render(display, {
      focusId, label: labelOf, edgeLabel, edgeConfidence, edgeTooltip: confidenceText, tooltip, layout: { ...layout, direction: plan.direction },
    });
    status.remove();
  }

  async function load() {
    try {
      if (mode === 'column') {
        const ds = await api.dataset(parsed.namespace, parsed.name);
        renderColumnPicker(ds.fields || []);
        if (!column) {
          mount(status, emptyState('Pick a column', 'See where it comes from and what it feeds, with the transformation on each edge.'));
          showPanel(null);
          return;
        }
        await loadShown((d) => api.columnLineage(focusId, d).then(columnFilter));
        if (!indirect && model.nodes.has(focusId)) model.prune(() => false, focusId);
        if (!model.nodes.size) {
          mount(status, emptyState('No column lineage', `Nothing is known to feed or read ${column}.`));
          return;
        }
      } else {
        await loadShown((d) => api.lineage(node, d));
        if (!model.nodes.size) { mount(status, emptyState('No lineage yet', 'No events mention this node.')); return; }
      }
      draw(true);
      // Fit never goes below a readable scale: arranged to fit, the graph opens whole.
      view.fit();
      view.select(model.nodes.has(focusId) ? focusId : null);
    } catch (err) {
      mount(status, errorState(err, () => { mount(status, spinner('Loading lineage…')); load(); }));
    }
  }

  /**
   * The graph at the chosen depth, plus what one more step would show: the extra step is not
   * drawn, it only tells which boundary nodes can be expanded (the server's graph has no edges
   * to nodes outside it).
   */
  async function loadShown(fetchAt) {
    const [shown, around] = await Promise.all([fetchAt(depth), fetchAt(depth + 1)]);
    const ids = new Set((shown.graph || []).map((n) => n.id));
    model.merge(around, (id) => ids.has(id));
    model.merge(shown);
    if (shown.truncated) {
      canvas.append(h('div', { class: 'canvas-note', id: 'truncated-note' },
        `Showing the ${ids.size} nearest nodes: the server caps graph size. Lower the depth or expand step by step.`));
    }
  }

  function renderColumnPicker(fields) {
    mount(columnSlot, h('label', { class: 'toolbar-group' }, 'Column',
      h('select', { id: 'column-select', class: 'select', onchange: (ev) => navigate(url({ column: ev.target.value }), { replace: true }) },
        h('option', { value: '', selected: !column, disabled: true }, fields.length ? 'Choose…' : 'no columns'),
        fields.map((f) => h('option', { value: f.name, selected: f.name === column }, f.name)))),
    h('label', { class: 'toolbar-group check', title: 'Joins, filters, grouping, sorting: columns that shape which rows, not what values' },
      h('input', { type: 'checkbox', id: 'show-indirect', checked: indirect, onchange: (ev) => navigate(url({ column, indirect: ev.target.checked ? null : 'off' }), { replace: true }) }),
      'Indirect'));
  }

  async function expand(id, dir) {
    try {
      const graph = mode === 'column' ? columnFilter(await api.columnLineage(id, 1)) : await api.lineage(id, 1);
      const keep = oneStep(graph, id, dir);
      model.merge(graph, (x) => keep.has(x) || model.nodes.has(x));
      // Draw that side of the node too (it may have been a sibling drawn but not walked).
      const key = `${id}\u0000${dir === 'up' ? 'in' : 'out'}`;
      shown.set(key, (shown.get(key) || 0) + FANOUT_LIMIT * 3);
      const k = view.t.k;
      draw();
      // Show the whole graph when it still reads well; otherwise keep the zoom and follow the node.
      view.fit();
      if (view.svg.dataset.clamped === 'true') {
        view.t.k = Math.max(k, MIN_FIT_SCALE);
        view.centerOn(id);
      }
      view.select(id);
    } catch (err) {
      mount(panel, errorState(err));
    }
  }

  /** A "+K more" node was clicked: show the next page of that node's folded neighbours. */
  function showMore(moreId) {
    const m = /^more:(in|out):(.*)$/s.exec(moreId);
    if (!m) return;
    const key = `${m[2]}\u0000${m[1]}`;
    shown.set(key, (shown.get(key) || 0) + FANOUT_LIMIT * 3);
    const k = view.t.k;
    draw();
    view.t.k = k;
    view.centerOn(m[2]);
    view.select(m[2]);
  }

  function clearPath() {
    pathInfo = null;
    view.highlight(null);
  }

  function showPath(a, b) {
    const p = model.pathBetween(a, b);
    pathInfo = { a, b, count: p.nodes.size };
    view.highlight(p.nodes.size ? p : { nodes: new Set([a, b]), edges: new Set() });
    const na = labelOf(model.nodes.get(a))[0];
    const nb = labelOf(model.nodes.get(b))[0];
    mount(panel, h('div', { class: 'panel-inner', id: 'path-panel' },
      h('div', { class: 'panel-kind' }, 'Path'),
      h('h3', null, na, ' ⇄ ', nb),
      p.nodes.size
        ? h('p', { id: 'path-summary' }, `${p.nodes.size} nodes and ${p.edges.size} edges lie on the paths between them.`)
        : h('p', { id: 'path-summary', class: 'muted' }, 'No directed path connects these two nodes.'),
      h('button', { class: 'btn', onclick: () => { clearPath(); showPanel(view.selected); } }, 'Clear path')));
  }

  function showPanel(id) {
    const n = id && model.nodes.get(id);
    if (!n) {
      mount(panel, h('div', { class: 'panel-inner muted' },
        h('p', null, `${model.nodes.size} nodes · ${model.edges.size} edges`),
        h('p', null, 'Select a node to see its details. Double-click a node to centre the lineage on it.')));
      return;
    }
    const d = n.data || {};
    const hidden = display ? display.hidden(id) : model.hidden(id);
    const parts = [];
    if (n.type === 'DATASET_FIELD') {
      const inputs = d.inputFields || [];
      parts.push(h('div', { class: 'panel-kind' }, 'Column'), h('h3', null, d.field),
        h('p', { class: 'break' }, h('a', { href: links.dataset(d.namespace, d.dataset), 'data-link': '' }, d.dataset), h('span', { class: 'muted' }, ` · ${d.namespace}`)),
        d.fieldType ? h('p', { class: 'mono' }, d.fieldType) : null,
        h('h4', null, 'Comes from'),
        inputs.length ? h('ul', { class: 'plain' }, inputs.map((f) => {
          const t = columnTransformation(n, { data: f });
          return h('li', { class: 'field-input' }, h('div', null, h('div', { class: 'mono' }, f.field), h('div', { class: 'muted small break' }, f.dataset)),
            t ? h('span', { class: `tag tag-${(t.type || '').toLowerCase()}` }, [t.type, t.subtype].filter(Boolean).join(' · ')) : null);
        })) : h('p', { class: 'muted' }, 'No inputs: a source column.'),
        h('div', { class: 'panel-actions' },
          h('a', { class: 'btn', href: links.lineage(nodeIds.dataset(d.namespace, d.dataset), { depth: String(depth), column: d.field }), 'data-link': '' }, 'Centre on this column')),
        impactActions(id));
    } else {
      const isJob = n.type === 'JOB';
      const page = isJob ? links.job(d.namespace, d.name) : links.dataset(d.namespace, d.name);
      parts.push(h('div', { class: 'panel-kind' }, isJob ? 'Job' : 'Dataset'), h('h3', { class: 'break' }, d.name),
        h('p', { class: 'muted break' }, d.namespace));
      if (isJob && d.latestRun) {
        const r = d.latestRun;
        parts.push(h('p', null, badge(r.state), ' ', h('a', { href: links.run(r.id), 'data-link': '' }, 'latest run'), h('span', { class: 'muted' }, ` · ${fmtTime(r.startedAt || r.createdAt)} · ${fmtDuration(runDuration(r))}`)));
      }
      if (!isJob && (d.fields || []).length) {
        parts.push(h('h4', null, 'Columns'), h('div', { class: 'chips' }, d.fields.slice(0, 40).map((f) =>
          h('a', { class: 'chip', href: links.lineage(id, { depth: String(depth), column: f.name }), 'data-link': '', title: f.type || '' }, f.name))));
      }
      parts.push(h('div', { class: 'panel-actions' },
        h('a', { class: 'btn btn-primary', href: page, 'data-link': '' }, isJob ? 'Open job' : 'Open dataset'),
        id !== node ? h('a', { class: 'btn', href: links.lineage(id, { depth: String(depth) }), 'data-link': '' }, 'Centre here') : null),
        impactActions(id));
      parts.push(h('div', { class: 'panel-actions' },
        h('button', { class: 'btn', id: 'expand-up', onclick: () => expand(id, 'up'), disabled: !hidden.up }, `Expand upstream${hidden.up ? ` (${hidden.up})` : ''}`),
        h('button', { class: 'btn', id: 'expand-down', onclick: () => expand(id, 'down'), disabled: !hidden.down }, `Expand downstream${hidden.down ? ` (${hidden.down})` : ''}`)));
    }
    parts.push(h('p', { class: 'muted small' }, 'Shift-click another node to highlight the path between them.'));
    mount(panel, h('div', { class: 'panel-inner', 'data-node': id }, parts));
  }

  const onKey = (ev) => {
    if (ev.key === 'Escape' && !document.querySelector('.modal')) { clearPath(); view.select(null); }
  };
  document.addEventListener('keydown', onKey);
  load();
  return () => {
    document.removeEventListener('keydown', onKey);
  };
}

/** Links to the impact view of a node, both ways. */
function impactActions(id) {
  return h('div', { class: 'panel-actions' },
    h('a', { class: 'btn', id: 'panel-impact-down', href: links.impact(id, 'downstream'), 'data-link': '', title: 'Everything this feeds, by distance' }, 'Impact ↓'),
    h('a', { class: 'btn', id: 'panel-impact-up', href: links.impact(id, 'upstream'), 'data-link': '', title: 'Everything this comes from, by distance' }, 'Sources ↑'));
}

function isIndirect(t) {
  return !!t && t.type === 'INDIRECT';
}

function renderPicker(root) {
  const input = h('input', { class: 'input', id: 'lineage-pick', placeholder: 'Dataset or job name…', autocomplete: 'off' });
  const results = h('div', { class: 'pick-results' });
  let timer = null;
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      const q = input.value.trim();
      if (!q) { mount(results); return; }
      try {
        const res = await api.search(q, null, 20);
        mount(results, (res.results || []).map((r) => h('a', { class: 'pick-item', href: links.lineage(r.nodeId || (r.type === 'JOB' ? nodeIds.job(r.namespace, r.name) : nodeIds.dataset(r.namespace, r.name))), 'data-link': '' },
          h('span', { class: `kind kind-${r.type.toLowerCase()}` }, r.type === 'JOB' ? 'JOB' : 'DS'), r.name, h('span', { class: 'muted' }, ` ${r.namespace}`))));
        if (!(res.results || []).length) mount(results, h('div', { class: 'muted' }, 'No matches'));
      } catch (err) { mount(results, errorState(err)); }
    }, 160);
  });
  mount(root, h('div', { class: 'page narrow' },
    h('h1', null, 'Explore lineage'),
    h('p', { class: 'muted' }, 'Pick a dataset or a job to see what feeds it and what it feeds.'),
    input, results));
  input.focus();
  return null;
}
