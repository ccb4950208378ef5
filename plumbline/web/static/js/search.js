// Header search with typeahead over datasets and jobs (GET /api/v1/search).
import { api, links } from './api.js';
import { h, mount } from './dom.js';
import { navigate } from './router.js';
import { fmtShortTime } from './format.js';
import { contextLine, datasetName, jobName } from './names.js';

export function mountSearch(el) {
  const input = h('input', {
    class: 'input search-input', id: 'search-input', type: 'search', placeholder: 'Search datasets and jobs…',
    autocomplete: 'off', role: 'combobox', 'aria-expanded': 'false', 'aria-controls': 'search-results', 'aria-label': 'Search',
  });
  const filter = h('select', { class: 'search-filter', id: 'search-filter', 'aria-label': 'Search in' },
    h('option', { value: '' }, 'All'), h('option', { value: 'DATASET' }, 'Datasets'), h('option', { value: 'JOB' }, 'Jobs'));
  const list = h('div', { class: 'search-results', id: 'search-results', role: 'listbox', hidden: true });
  mount(el, h('div', { class: 'search-box' }, searchIcon(), input, filter), list);

  let items = [];
  let active = -1;
  let timer = null;
  let controller = null;

  const close = () => { list.hidden = true; input.setAttribute('aria-expanded', 'false'); active = -1; };
  const open = () => { list.hidden = false; input.setAttribute('aria-expanded', 'true'); };
  const go = (r) => {
    close();
    input.value = '';
    input.blur();
    navigate(r.type === 'JOB' ? links.job(r.namespace, r.name) : links.dataset(r.namespace, r.name));
  };
  const setActive = (i) => {
    active = i;
    [...list.querySelectorAll('.search-item')].forEach((x, j) => x.classList.toggle('active', j === i));
  };

  async function run() {
    const q = input.value.trim();
    if (!q) { close(); return; }
    if (controller) controller.abort();
    controller = new AbortController();
    mount(list, h('div', { class: 'search-note' }, 'Searching…'));
    open();
    try {
      const res = await api.search(q, filter.value || null, 12, controller.signal);
      items = res.results || [];
      if (!items.length) { mount(list, h('div', { class: 'search-note' }, `No datasets or jobs match “${q}”`)); return; }
      const groups = [['DATASET', 'Datasets'], ['JOB', 'Jobs']];
      const ordered = groups.flatMap(([t]) => items.filter((r) => r.type === t));
      items = ordered;
      mount(list, groups.map(([t, title]) => {
        const rs = ordered.filter((r) => r.type === t);
        if (!rs.length) return null;
        return [h('div', { class: 'search-group' }, title), rs.map((r) => h('div', {
          class: 'search-item', role: 'option', 'data-type': r.type, 'data-name': r.name,
          onmousedown: (ev) => { ev.preventDefault(); go(r); },
          onmouseenter: () => setActive(ordered.indexOf(r)),
        },
        h('span', { class: `kind kind-${r.type.toLowerCase()}` }, r.type === 'JOB' ? 'JOB' : 'DS'),
        searchMain(r, q),
        h('span', { class: 'search-time' }, fmtShortTime(r.updatedAt))))];
      }));
      setActive(0);
    } catch (err) {
      if (err.name === 'AbortError') return;
      mount(list, h('div', { class: 'search-note error' }, err.message));
    }
  }

  input.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(run, 160); });
  filter.addEventListener('change', () => { if (input.value.trim()) run(); });
  input.addEventListener('keydown', (ev) => {
    if (ev.key === 'ArrowDown') { ev.preventDefault(); if (items.length) setActive((active + 1) % items.length); }
    else if (ev.key === 'ArrowUp') { ev.preventDefault(); if (items.length) setActive((active - 1 + items.length) % items.length); }
    else if (ev.key === 'Enter') { if (active >= 0 && items[active]) go(items[active]); }
    else if (ev.key === 'Escape') { close(); input.blur(); }
  });
  input.addEventListener('blur', () => setTimeout(close, 120));
  input.addEventListener('focus', () => { if (input.value.trim() && list.childElementCount) open(); });
  document.addEventListener('keydown', (ev) => {
    if (ev.key === '/' && document.activeElement === document.body) { ev.preventDefault(); input.focus(); }
  });
}

function searchMain(r, q) {
  const parts = r.type === 'JOB' ? jobName(r.name) : datasetName(r.name);
  return h('span', { class: 'search-main', title: r.name },
    highlight(parts.short, q),
    h('span', { class: 'search-ns' }, contextLine(parts, r.namespace)));
}

function highlight(name, q, cls = 'search-name') {
  const i = name.toLowerCase().indexOf(q.toLowerCase());
  if (i < 0) return h('span', { class: cls }, name);
  return h('span', { class: cls }, name.slice(0, i), h('mark', null, name.slice(i, i + q.length)), name.slice(i + q.length));
}

function searchIcon() {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 16 16');
  svg.setAttribute('class', 'search-icon');
  svg.innerHTML = '<circle cx="7" cy="7" r="4.5" fill="none" stroke="currentColor" stroke-width="1.6"/><path d="M10.5 10.5 14 14" stroke="currentColor" stroke-width="1.6" stroke-linecap="round"/>';
  return svg;
}
