// Small DOM builders. Strings always become text nodes, so API data is never parsed as HTML.

const SVG_NS = 'http://www.w3.org/2000/svg';

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

function setAttrs(el, attrs) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.setAttribute('class', Array.isArray(v) ? v.filter(Boolean).join(' ') : v);
    else if (k === 'style' && typeof v === 'object') Object.assign(el.style, v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? '' : v);
  }
}

/** Build an HTML element: h('a', {href: '/x'}, 'text', child). */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

/** Build an SVG element. */
export function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

/** Replace the children of el. */
export function mount(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

export function spinner(label = 'Loading…') {
  return h('div', { class: 'state state-loading', role: 'status' }, h('span', { class: 'spin' }), label);
}

export function emptyState(title, detail) {
  return h('div', { class: 'state state-empty' }, h('div', { class: 'state-title' }, title), detail ? h('div', { class: 'state-detail' }, detail) : null);
}

export function errorState(err, retry) {
  const msg = err && err.message ? err.message : String(err);
  return h('div', { class: 'state state-error', role: 'alert' },
    h('div', { class: 'state-title' }, err && err.status === 404 ? 'Not found' : 'Something went wrong'),
    h('div', { class: 'state-detail' }, msg),
    err && err.status === 404
      ? h('a', { class: 'btn', href: '/', 'data-link': '' }, 'Back to the overview')
      : retry ? h('button', { class: 'btn', onclick: retry }, 'Retry') : null);
}

/** A run-state pill; label defaults to the state (events show their type in a state's colour). */
export function badge(state, label) {
  const st = (state || 'UNKNOWN').toUpperCase();
  return h('span', { class: `badge state-${st.toLowerCase()}` }, label || st);
}

/** A collapsible JSON tree of facets: one <details> per key. */
export function facetList(facets, emptyText = 'No facets') {
  const keys = Object.keys(facets || {});
  if (!keys.length) return h('div', { class: 'muted' }, emptyText);
  return h('div', { class: 'facets' }, keys.sort().map((k) =>
    h('details', { class: 'facet' },
      h('summary', null, h('span', { class: 'mono' }, k),
        facets[k] && facets[k]._schemaURL ? h('span', { class: 'muted facet-schema' }, shortSchema(facets[k]._schemaURL)) : null),
      h('pre', { class: 'json' }, JSON.stringify(facets[k], null, 2)))));
}

function shortSchema(url) {
  const m = /([^/#]+)(#.*)?$/.exec(url);
  return m ? m[1] : url;
}

export function section(title, ...children) {
  return h('section', { class: 'card' }, h('h2', null, title), ...children);
}

export function table(headers, rows, attrs) {
  return h('table', { class: 'table', ...attrs },
    // A header ending in '#' heads a numeric (right-aligned) column.
    h('thead', null, h('tr', null, headers.map((x) => (x.endsWith('#') ? h('th', { class: 'num' }, x.slice(0, -1)) : h('th', null, x))))),
    h('tbody', null, rows));
}
