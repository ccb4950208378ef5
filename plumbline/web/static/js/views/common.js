// Pieces shared by the entity pages.
import { download } from '../api.js';
import { getToken } from '../auth.js';
import { errorState, h, mount, spinner } from '../dom.js';

/** A page section that loads itself: shows a spinner, then fill(data) or an error with retry. */
export function loadInto(el, loader, fill) {
  const go = async () => {
    mount(el, spinner());
    try {
      const data = await loader();
      mount(el, fill(data));
    } catch (err) {
      mount(el, errorState(err, go));
    }
  };
  go();
  return el;
}

export function header(kind, title, subtitle, ...actions) {
  return h('div', { class: 'page-header' },
    h('div', null,
      h('div', { class: 'page-kind' }, kind),
      h('h1', { class: 'break' }, title),
      subtitle ? h('div', { class: 'muted break' }, subtitle) : null),
    h('div', { class: 'page-actions' }, actions));
}

export function kv(pairs) {
  return h('dl', { class: 'kv' }, pairs.filter(([, v]) => v !== null && v !== undefined && v !== '').map(([k, v]) => [h('dt', null, k), h('dd', null, v)]));
}

/** Dataset id of an input/output dataset version, whichever of Marquez's shapes the server sends. */
export function versionId(dv) {
  return dv.datasetVersionId || dv.id || dv;
}

/** A link that downloads an API answer; with a session token it fetches it (a link cannot send it). */
export function exportLink(url, filename, label, id) {
  return h('a', {
    class: 'btn', href: url, download: filename, id,
    onclick: (ev) => {
      if (!getToken()) return;
      ev.preventDefault();
      download(url, filename).catch((err) => window.alert(err.message));
    },
  }, label);
}

/** Run states as the read API names them (COMPLETED, FAILED, …), from OpenLineage's event types too. */
export function runState(state) {
  const map = { COMPLETE: 'COMPLETED', FAIL: 'FAILED', ABORT: 'ABORTED', START: 'RUNNING' };
  return map[state] || state || 'UNKNOWN';
}
