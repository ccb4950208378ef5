// Impact view: what a dataset, job or column feeds (downstream) or comes from (upstream), listed by
// distance beside the graph, with export and a shareable link (/impact?node=…&direction=…&depth=…).
import { api, apiUrl, links, parseNodeId } from '../api.js';
import { badge, emptyState, errorState, h, mount, spinner } from '../dom.js';
import { fmtShortTime, shortId } from '../format.js';
import { GraphModel, collapseFanouts } from '../graph_model.js';
import { GraphView } from '../graph_view.js';
import { navigate } from '../router.js';
import { datasetName, jobLabels, jobName } from '../names.js';
import { exportLink, runState } from './common.js';

const DEPTHS = ['', '1', '2', '3', '5', '10'];
const KIND = { JOB: ['JOB', 'job'], DATASET: ['DS', 'dataset'], DATASET_FIELD: ['COL', 'field'] };

export function renderImpact(root, _params, query) {
  const node = query.get('node');
  const direction = query.get('direction') === 'upstream' ? 'upstream' : 'downstream';
  const depth = DEPTHS.includes(query.get('depth') || '') ? query.get('depth') || '' : '';
  const parsed = parseNodeId(node);
  document.title = 'Impact · plumbline';
  if (!parsed) {
    mount(root, h('div', { class: 'page' }, errorState(new Error(node ? `Not a node id: ${node}` : 'No node given: open the impact of a dataset, job or column from its page.'))));
    return null;
  }
  const url = (extra) => links.impact(node, extra.direction || direction, (extra.depth ?? depth) ? { depth: extra.depth ?? depth } : {});
  const params = { nodeId: node, direction, depth };
  const stem = `impact-${direction}-${(parsed.field || parsed.name).replace(/[^A-Za-z0-9_.-]+/g, '_').replace(/^_+/, '')}`;
  const home = parsed.type === 'JOB' ? links.job(parsed.namespace, parsed.name) : links.dataset(parsed.namespace, parsed.name);
  const graphLink = parsed.type === 'DATASET_FIELD'
    ? links.lineage(`dataset:${parsed.namespace}:${parsed.name}`, { column: parsed.field })
    : links.lineage(node);

  const listEl = h('aside', { class: 'impact-list', id: 'impact-list' }, spinner('Walking the lineage…'));
  const status = h('div', { class: 'canvas-status' }, spinner('Loading…'));
  const canvas = h('div', { class: 'canvas', id: 'graph-canvas' }, status);
  const model = new GraphModel();
  const shown = new Map();
  const pinned = new Set();
  const view = new GraphView(canvas, {
    onSelect: (id) => markItem(id),
    onOpen: (id) => { if (model.nodes.has(id)) navigate(links.impact(id, direction)); },
    onMore: (id) => {
      const m = /^more:(in|out):(.*)$/s.exec(id);
      if (!m) return;
      const key = `${m[2]}\u0000${m[1]}`;
      shown.set(key, (shown.get(key) || 0) + 24);
      draw();
      view.centerOn(m[2]);
    },
  });
  const draw = () => view.render(collapseFanouts(model, node, { shown, pinned }), { focusId: node, label: labelOf, tooltip: (n) => `${n.data.name || ''}\n${n.data.namespace || ''}` });

  mount(root, h('div', { class: 'lineage impact' },
    h('div', { class: 'toolbar' },
      h('div', { class: 'lineage-title' },
        h('span', { class: `kind kind-${KIND[parsed.type][1]}` }, KIND[parsed.type][0]),
        h('a', { href: home, 'data-link': '', class: 'lineage-name', title: parsed.name }, parsed.field ? `${datasetName(parsed.name).short}.${parsed.field}` : parsed.name),
        h('span', { class: 'muted' }, parsed.namespace)),
      h('span', { class: 'toolbar-sep' }),
      h('span', { class: 'segmented', role: 'group', 'aria-label': 'Direction' },
        h('a', { href: url({ direction: 'downstream' }), 'data-link': '', class: direction === 'downstream' ? 'on' : '', id: 'dir-downstream' }, 'Downstream'),
        h('a', { href: url({ direction: 'upstream' }), 'data-link': '', class: direction === 'upstream' ? 'on' : '', id: 'dir-upstream' }, 'Upstream')),
      h('label', { class: 'toolbar-group' }, 'Depth',
        h('select', { id: 'impact-depth', class: 'select', onchange: (ev) => navigate(url({ depth: ev.target.value }), { replace: true }) },
          DEPTHS.map((d) => h('option', { value: d, selected: d === depth }, d || 'all')))),
      h('span', { class: 'toolbar-spacer' }),
      exportLink(apiUrl('/impact', { ...params, format: 'csv' }), `${stem}.csv`, 'CSV', 'export-csv'),
      exportLink(apiUrl('/impact', params), `${stem}.json`, 'JSON', 'export-json'),
      h('a', { class: 'btn', href: graphLink, 'data-link': '', id: 'open-graph' }, 'Lineage graph'),
      h('button', { class: 'btn', id: 'fit', title: 'Fit to screen', onclick: () => view.fit() }, 'Fit')),
    h('div', { class: 'lineage-body' }, listEl, canvas)));

  function markItem(id) {
    for (const li of listEl.querySelectorAll('.impact-node')) li.classList.toggle('selected', li.dataset.id === id);
  }

  function focusNode(id) {
    if (!view.nodeEls.has(id)) { pinned.add(id); draw(); }
    view.centerOn(id);
    view.select(id);
  }

  async function load() {
    let res;
    try {
      res = await api.impact(node, direction, depth);
    } catch (err) {
      mount(listEl, errorState(err, load));
      status.remove();
      return;
    }
    for (const n of res.nodes) {
      model.nodes.set(n.id, { id: n.id, type: n.type, data: { ...n, dataset: n.name, latestRun: n.lastRun ? { ...n.lastRun, state: runState(n.lastRun.state) } : null } });
    }
    for (const e of res.edges) model.addEdge(e.origin, e.destination);
    jobLabel = jobLabels(res.nodes.filter((n) => n.type === 'JOB').map((n) => n.name));
    mount(listEl, impactList(res, focusNode));
    if (res.nodes.length <= 1) {
      mount(status, emptyState(direction === 'downstream' ? 'Nothing downstream' : 'Nothing upstream',
        direction === 'downstream' ? 'No known job reads from this node.' : 'No known job writes this node.'));
      return;
    }
    status.remove();
    draw();
    view.fit();
    view.select(node);
  }
  load();
  return null;
}

let jobLabel = (name) => jobName(name).short; // set by load(): tells the answer's jobs apart

function labelOf(n) {
  const d = n.data || {};
  if (n.type === 'MORE') return [`+${d.count} more`, ''];
  if (n.type === 'DATASET_FIELD') return [`${datasetName(d.name).short}.${d.field}`, d.name];
  if (n.type === 'JOB') return [jobLabel(d.name), d.latestRun ? `${d.latestRun.state} · distance ${d.distance}` : `no runs · distance ${d.distance}`];
  const { short, context } = datasetName(d.name);
  return [short, `distance ${d.distance}${context ? ` · ${context}` : ''}`];
}

function shortName(id) {
  if (id === null) return '(hidden)';
  const p = parseNodeId(id);
  if (!p) return id;
  if (p.type === 'DATASET_FIELD') return `${datasetName(p.name).short}.${p.field}`;
  return p.type === 'JOB' ? jobLabel(p.name) : datasetName(p.name).short;
}

/** The list beside the graph: a summary, then one group per distance. */
function impactList(res, onPick) {
  const byId = new Map(res.nodes.map((n) => [n.id, n]));
  const rest = res.nodes.filter((n) => n.distance > 0);
  const jobs = rest.filter((n) => n.type === 'JOB').length;
  const word = res.direction === 'downstream' ? 'downstream' : 'upstream';
  const summary = h('div', { class: 'impact-summary', id: 'impact-summary' },
    rest.length ? `${rest.length} node${rest.length === 1 ? '' : 's'} ${word}: ${jobs} job${jobs === 1 ? '' : 's'}, ${rest.length - jobs} ${res.mode === 'column' ? 'field' : 'dataset'}${rest.length - jobs === 1 ? '' : 's'}` : `Nothing ${word}.`);
  const notes = [
    res.truncated ? h('div', { class: 'alert', id: 'impact-truncated' }, res.truncatedReason === 'work budget'
      ? 'The analysis reached the server\'s work budget: the answer is partial. Lower the depth to see all of a level.'
      : 'The walk stopped at the server\'s node cap: the nearest nodes are listed. Lower the depth to see all of a level.') : null,
    res.hiddenNodes ? h('div', { class: 'muted small', id: 'impact-hidden' }, `${res.hiddenNodes} more your token may not read.`) : null,
  ];
  const levels = (res.levels || []).filter((l) => l.distance > 0).map((l) => h('section', { class: 'impact-level', 'data-distance': String(l.distance) },
    h('h3', null, `Distance ${l.distance}`, h('span', { class: 'muted' }, ` · ${l.nodes.length}`)),
    h('ul', { class: 'plain' }, l.nodes.map((id) => byId.get(id)).filter(Boolean).map((n) => item(n, onPick)))));
  return [summary, notes, levels];
}

function item(n, onPick) {
  const [kind, cls] = KIND[n.type] || ['?', 'dataset'];
  const page = n.type === 'JOB' ? links.job(n.namespace, n.name) : links.dataset(n.namespace, n.name);
  const title = n.type === 'DATASET_FIELD' ? `${datasetName(n.name).short}.${n.field}` : n.type === 'JOB' ? jobLabel(n.name) : datasetName(n.name).short;
  const via = (n.path || []).slice(1, -1);
  let last;
  if (n.type === 'JOB') {
    last = n.lastRun
      ? h('span', { class: 'impact-last' }, badge(runState(n.lastRun.state)), ' ', h('a', { href: links.run(n.lastRun.id), 'data-link': '', class: 'mono' }, `run ${shortId(n.lastRun.id)}`),
        h('span', { class: 'muted' }, ` ${fmtShortTime(n.lastRun.endedAt || n.lastRun.startedAt)}`))
      : h('span', { class: 'muted impact-last' }, 'no runs');
  } else {
    last = n.lastVersion
      ? h('span', { class: 'impact-last' }, h('span', { class: 'muted' }, 'version '), h('span', { class: 'mono', title: n.lastVersion.version }, shortId(n.lastVersion.version)),
        h('span', { class: 'muted' }, ` ${fmtShortTime(n.lastVersion.createdAt)}`),
        n.lastVersion.runId ? [' ', h('a', { href: links.run(n.lastVersion.runId), 'data-link': '', class: 'mono' }, `run ${shortId(n.lastVersion.runId)}`)] : null)
      : h('span', { class: 'muted impact-last' }, 'no versions');
  }
  return h('li', { class: 'impact-node', 'data-id': n.id, 'data-type': n.type, onclick: (ev) => { if (!ev.target.closest('a')) onPick(n.id); } },
    h('div', { class: 'impact-head' },
      h('span', { class: `kind kind-${cls}` }, kind),
      h('a', { href: page, 'data-link': '', class: 'impact-name', title: n.name }, title),
      n.fieldType ? h('span', { class: 'muted mono small' }, n.fieldType) : null,
      n.indirectOnly ? h('span', { class: 'tag tag-indirect', title: 'Every path to it crosses an INDIRECT edge (a join key, a filter)' }, 'indirect only') : null),
    h('div', { class: 'muted small break' }, n.namespace, n.type !== 'DATASET_FIELD' && datasetName(n.name).context ? ` · ${datasetName(n.name).context}` : ''),
    via.length ? h('div', { class: 'impact-path small' }, 'via ', via.map((id, i) => [i ? ' → ' : '', h('span', { class: 'mono' }, shortName(id))])) : null,
    last);
}
