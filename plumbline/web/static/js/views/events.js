// Raw events: newest first, filtered by time, paged.
import { api, links } from '../api.js';
import { badge, emptyState, errorState, h, mount, spinner } from '../dom.js';
import { fmtTime, shortId } from '../format.js';
import { navigate } from '../router.js';

const PAGE = 20;
const MAX_PAGE = 200;

export async function renderEvents(root, _params, query) {
  document.title = 'Events · plumbline';
  const after = query.get('after') || '';
  const before = query.get('before') || '';
  const page = Math.max(0, Number(query.get('page') || 0));
  const size = Math.min(MAX_PAGE, Math.max(1, Number(query.get('limit') || PAGE)));
  const afterIn = h('input', { type: 'datetime-local', class: 'input', id: 'events-after', value: toLocalInput(after), step: 1 });
  const beforeIn = h('input', { type: 'datetime-local', class: 'input', id: 'events-before', value: toLocalInput(before), step: 1 });
  const go = (p, a = after, b = before) => {
    const q = new URLSearchParams();
    if (a) q.set('after', a);
    if (b) q.set('before', b);
    if (p) q.set('page', String(p));
    if (size !== PAGE) q.set('limit', String(size));
    navigate(`/events${q.toString() ? `?${q}` : ''}`);
  };
  const form = h('form', { class: 'filters', id: 'events-filter', onsubmit: (ev) => { ev.preventDefault(); go(0, fromLocalInput(afterIn.value), fromLocalInput(beforeIn.value)); } },
    h('label', null, 'After', afterIn), h('label', null, 'Before', beforeIn),
    h('button', { class: 'btn btn-primary', type: 'submit' }, 'Apply'),
    after || before ? h('a', { class: 'btn', href: '/events', 'data-link': '' }, 'Clear') : null);
  const list = h('div', { id: 'events-list' }, spinner());
  mount(root, h('div', { class: 'page' }, h('div', { class: 'page-header' }, h('div', null, h('div', { class: 'page-kind' }, 'Raw'), h('h1', null, 'Events'))), form, list));
  try {
    const res = await api.events({ after, before, limit: size, offset: page * size });
    const events = res.events || [];
    const total = res.totalCount ?? events.length;
    if (!events.length) {
      mount(list, emptyState('No events', after || before ? 'No event was received in this time window.' : 'No OpenLineage event has been received yet.'));
      return null;
    }
    const from = page * size + 1;
    const to = page * size + events.length;
    mount(list,
      h('div', { class: 'events' }, events.map(eventRow)),
      h('div', { class: 'pager' },
        h('button', { class: 'btn', id: 'prev-page', disabled: page === 0, onclick: () => go(page - 1) }, '← Newer'),
        h('span', { class: 'muted', id: 'page-info' }, `${from}–${to} of ${total}`),
        h('button', { class: 'btn', id: 'next-page', disabled: to >= total, onclick: () => go(page + 1) }, 'Older →')));
  } catch (err) {
    mount(list, errorState(err, () => renderEvents(root, _params, query)));
  }
  return null;
}

function eventRow(ev) {
  const job = ev.job || {};
  const runId = ev.run && ev.run.runId;
  const type = ev.eventType || (ev.schemaURL || '').split('/').pop();
  return h('details', { class: 'event' },
    h('summary', null,
      h('span', { class: 'event-time' }, fmtTime(ev.eventTime)),
      badge(type === 'COMPLETE' ? 'COMPLETED' : type === 'FAIL' ? 'FAILED' : type, type),
      job.name ? h('a', { href: links.job(job.namespace, job.name), 'data-link': '', class: 'event-job' }, job.name) : h('span', { class: 'muted' }, 'no job'),
      runId ? h('a', { href: links.run(runId), 'data-link': '', class: 'mono muted' }, shortId(runId)) : null,
      h('span', { class: 'muted event-io' }, `${(ev.inputs || []).length} in · ${(ev.outputs || []).length} out`)),
    h('pre', { class: 'json' }, JSON.stringify(ev, null, 2)));
}

function toLocalInput(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const off = d.getTimezoneOffset() * 60000;
  return new Date(d.getTime() - off).toISOString().slice(0, 19);
}

function fromLocalInput(v) {
  return v ? new Date(v).toISOString() : '';
}
