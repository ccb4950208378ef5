// Change alerts (issue 19): newest first, filtered by kind, namespace and state, each with its
// details and blast radius (the downstream datasets and jobs at detection), acknowledged here.
import { api, links } from '../api.js';
import { emptyState, errorState, h, mount, spinner } from '../dom.js';
import { fmtTime, shortId } from '../format.js';
import { navigate } from '../router.js';

export const KINDS = ['new-edge', 'stopped-edge', 'schema-drift', 'volume-anomaly', 'duration-anomaly', 'freshness', 'failure-after-success', 'observed-deviation'];

export async function renderAlerts(root, _params, query) {
  document.title = 'Alerts · plumbline';
  const kind = query.get('kind') || '';
  const namespace = query.get('namespace') || '';
  const open = query.get('open') === '1';
  const kindIn = h('select', { class: 'input', id: 'alerts-kind' },
    h('option', { value: '' }, 'every kind'),
    KINDS.map((k) => h('option', { value: k, selected: k === kind }, k)));
  const nsIn = h('input', { class: 'input', id: 'alerts-namespace', placeholder: 'namespace', value: namespace });
  const openIn = h('input', { type: 'checkbox', id: 'alerts-open', checked: open });
  const form = h('form', { class: 'filters', id: 'alerts-filter', onsubmit: (ev) => {
    ev.preventDefault();
    const q = new URLSearchParams();
    if (kindIn.value) q.set('kind', kindIn.value);
    if (nsIn.value.trim()) q.set('namespace', nsIn.value.trim());
    if (openIn.checked) q.set('open', '1');
    navigate(`/alerts${q.toString() ? `?${q}` : ''}`);
  } },
  h('label', null, 'Kind', kindIn), h('label', null, 'Namespace', nsIn),
  h('label', { class: 'check' }, openIn, 'Unacknowledged only'),
  h('button', { class: 'btn btn-primary', type: 'submit' }, 'Apply'));
  const list = h('div', { id: 'alerts-list' }, spinner());
  mount(root, h('div', { class: 'page' },
    h('div', { class: 'page-header' }, h('div', null, h('div', { class: 'page-kind' }, 'Lineage health'), h('h1', null, 'Alerts')),
      h('div', { class: 'page-actions' }, h('a', { class: 'btn', href: '/coverage', 'data-link': '' }, 'Coverage'))),
    form, list));
  try {
    const res = await api.alerts({ kind, namespace, acknowledged: open ? 'false' : '', limit: 200 });
    if (!res.alerts.length) {
      mount(list, emptyState('No alerts', kind || namespace || open ? 'No alert matches these filters.' : 'Nothing changed unexpectedly in the lineage seen so far.'));
      return null;
    }
    mount(list, h('div', { class: 'alerts' }, res.alerts.map(alertCard)));
  } catch (err) {
    mount(list, errorState(err, () => renderAlerts(root, _params, query)));
  }
  return null;
}

function nodeLink(nodeId) {
  const href = links.node(nodeId);
  return href ? h('a', { href, 'data-link': '', class: 'mono break' }, nodeId) : h('span', { class: 'mono break' }, nodeId);
}

function alertCard(alert) {
  const ack = h('div', { class: 'alert-ack' });
  const showAck = (a) => mount(ack, a.acknowledgedAt
    ? h('span', { class: 'muted', 'data-acknowledged': '' }, `Acknowledged ${fmtTime(a.acknowledgedAt)}${a.acknowledgedBy ? ` by ${a.acknowledgedBy}` : ''}`)
    : h('button', { class: 'btn', 'data-ack': String(a.id), onclick: async (ev) => {
      ev.target.disabled = true;
      try {
        const res = await api.ackAlert(a.id);
        showAck(res.alerts[0]);
      } catch (err) {
        mount(ack, h('span', { class: 'error', role: 'alert' }, err.message));
      }
    } }, 'Acknowledge'));
  showAck(alert);
  return h('section', { class: 'card alert-card', 'data-alert': String(alert.id), 'data-kind': alert.kind },
    h('div', { class: 'alert-head' },
      h('span', { class: `badge alert-kind kind-${alert.kind}` }, alert.kind),
      nodeLink(alert.subject),
      h('span', { class: 'muted' }, fmtTime(alert.seenAt)),
      alert.runId ? h('a', { href: links.run(alert.runId), 'data-link': '', class: 'mono muted' }, `run ${shortId(alert.runId)}`) : null,
      ack),
    details(alert),
    blastRadius(alert.blastRadius, alert.subject));
}

function fieldList(label, fields, fmt) {
  if (!fields || !fields.length) return null;
  return h('div', { class: 'alert-fields' }, h('b', null, `${label}: `), fields.map(fmt).join(', '));
}

function details(alert) {
  const d = alert.details || {};
  const parts = [];
  if (d.dataset) parts.push(h('div', null, h('b', null, d.direction === 'output' ? 'writes ' : 'reads '), nodeLink(d.dataset)));
  parts.push(fieldList('added', d.added, (f) => `${f.name} (${f.type || '?'})`));
  parts.push(fieldList('removed', d.removed, (f) => `${f.name} (${f.type || '?'})`));
  parts.push(fieldList('retyped', d.retyped, (f) => `${f.name}: ${f.before} → ${f.after}`));
  if (d.affectedColumns && d.affectedColumns.length) {
    parts.push(h('div', { class: 'alert-fields' }, h('b', null, 'derived columns: '),
      d.affectedColumns.map((c) => h('span', { class: 'mono' }, `${c.nodeId} (from ${c.from}) `))));
  }
  if (d.median !== undefined) {
    const value = d.rows !== undefined ? `${d.rows} rows` : `${Math.round(d.seconds)} s`;
    parts.push(h('div', null, `${value}; usual ${Math.round(d.median)} (expected ${Math.round(d.lower)}–${Math.round(d.upper)}, ${d.history} runs)`));
  }
  if (d.lastWrite) parts.push(h('div', null, `last written ${fmtTime(d.lastWrite)}; usually every ${Math.round(d.usualIntervalSeconds / 60)} min`));
  if (d.successes) parts.push(h('div', null, `failed after ${d.successes} successful runs`, d.error ? h('div', { class: 'mono muted break' }, d.error.split('\n').slice(-1)[0]) : null));
  if (d.runDiff && alert.runId) {
    parts.push(h('div', null, h('a', { href: links.runDiff(alert.runId, d.runDiff.against), 'data-link': '' }, 'What changed since the last successful run')));
  }
  return h('div', { class: 'alert-details' }, parts);
}

function blastRadius(radius, subject) {
  if (!radius) return h('div', { class: 'muted alert-radius' }, 'Blast radius: being computed…');
  const nodes = radius.nodes || [];
  return h('div', { class: 'alert-radius', 'data-blast-radius': '' },
    h('div', null, h('b', null, 'Blast radius: '), `${radius.datasets} dataset(s), ${radius.jobs} job(s) downstream`,
      ' · ', h('a', { href: links.impact(subject), 'data-link': '' }, 'impact')),
    nodes.length ? h('ul', { class: 'alert-nodes' }, nodes.slice(0, 20).map((n) =>
      h('li', null, h('span', { class: 'muted' }, `${n.distance} `), nodeLink(n.id)))) : null,
    nodes.length > 20 || radius.truncated ? h('div', { class: 'muted' }, `… and more (${nodes.length}${radius.truncated ? '+' : ''} listed)`) : null);
}
