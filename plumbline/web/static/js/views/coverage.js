// Lineage coverage (issue 19): what plumbline knows and what it does not, per namespace.
import { api } from '../api.js';
import { emptyState, errorState, h, mount, spinner, table } from '../dom.js';
import { navigate } from '../router.js';

const ROWS = [
  ['unproducedInputs', 'Datasets read with no known producer'],
  ['outputs', 'Outputs'],
  ['outputsWithoutSchema', 'Outputs without a schema'],
  ['outputsWithoutColumnLineage', 'Outputs without column lineage'],
  ['columnLineageShare', 'Output fields with column lineage'],
  ['unfinishedRuns', 'Runs with a START and no end'],
  ['failedEventRuns', 'Runs whose events failed normalization'],
];

const WINDOWS = { '1': '24 hours', '7': '7 days', '30': '30 days', '3650': 'all time' };

export async function renderCoverage(root, _params, query) {
  document.title = 'Coverage · plumbline';
  const days = WINDOWS[query.get('days')] ? query.get('days') : '7';
  const since = new Date(Date.now() - Number(days) * 86400000).toISOString();
  const pick = h('select', { class: 'input', id: 'coverage-window', onchange: (ev) => navigate(`/coverage?days=${ev.target.value}`) },
    Object.entries(WINDOWS).map(([d, label]) => h('option', { value: d, selected: d === days }, label)));
  const body = h('div', { id: 'coverage' }, spinner());
  mount(root, h('div', { class: 'page' },
    h('div', { class: 'page-header' }, h('div', null, h('div', { class: 'page-kind' }, 'Lineage health'), h('h1', null, 'Coverage')),
      h('div', { class: 'page-actions' }, h('a', { class: 'btn', href: '/alerts', 'data-link': '' }, 'Alerts'))),
    h('div', { class: 'filters' }, h('label', null, 'Window', pick)), body));
  try {
    const res = await api.coverage({ since });
    if (!res.namespaces.length) {
      mount(body, emptyState('Nothing seen', 'No lineage was seen in this window.'));
      return null;
    }
    const cell = (key, m) => {
      const v = m[key];
      if (key === 'columnLineageShare') return v === null || v === undefined ? '–' : `${Math.round(v * 100)}%`;
      return String(v);
    };
    const cols = [['overall', res.overall], ...res.namespaces.map((n) => [n.namespace, n])];
    mount(body,
      h('section', { class: 'card' }, table(['', ...cols.map(([name]) => `${name}#`)],
        ROWS.map(([key, label]) => h('tr', { 'data-measure': key }, h('td', null, label),
          cols.map(([, m]) => h('td', { class: 'num' }, cell(key, m))))), { id: 'coverage-table' })),
      h('section', { class: 'card' }, h('h2', null, 'Producers'),
        table(['producer', 'events#'], res.overall.producers.map((p) => h('tr', null, h('td', { class: 'mono break' }, p.producer), h('td', { class: 'num' }, String(p.events)))), { id: 'coverage-producers' })),
      res.namespaces.map((n) => examples(n)));
  } catch (err) {
    mount(body, errorState(err, () => renderCoverage(root, _params, query)));
  }
  return null;
}

function examples(entry) {
  const groups = Object.entries(entry.examples || {});
  if (!groups.length) return null;
  return h('section', { class: 'card', 'data-namespace': entry.namespace }, h('h2', null, `${entry.namespace}: what is missing`),
    groups.map(([key, names]) => h('div', { class: 'coverage-examples' },
      h('b', null, `${(ROWS.find(([k]) => k === key) || [key, key])[1]}: `), names.join(', '))));
}
