// Pieces shared by the entity pages.
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
