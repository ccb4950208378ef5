// Path-based client-side routing (the server answers every UI path with index.html).

const listeners = [];

export function onRoute(fn) {
  listeners.push(fn);
}

/** Go to a UI URL without reloading; replace=true keeps the history entry (filters, state). */
export function navigate(url, { replace = false } = {}) {
  const target = new URL(url, window.location.origin);
  const same = target.pathname === window.location.pathname && target.search === window.location.search;
  if (replace || same) window.history.replaceState(null, '', target);
  else window.history.pushState(null, '', target);
  fire();
}

function fire() {
  for (const fn of listeners) fn(window.location);
}

/** Match a pathname against route patterns like '/datasets/:ns/:name'. */
export function match(routes, pathname) {
  const parts = pathname.split('/').filter(Boolean);
  for (const r of routes) {
    const pat = r.path.split('/').filter(Boolean);
    if (pat.length !== parts.length) continue;
    const params = {};
    let ok = true;
    pat.forEach((p, i) => {
      if (p.startsWith(':')) params[p.slice(1)] = decodeURIComponent(parts[i]);
      else if (p !== parts[i]) ok = false;
    });
    if (ok) return { route: r, params };
  }
  return null;
}

export function start() {
  window.addEventListener('popstate', fire);
  document.addEventListener('click', (ev) => {
    // Only links marked data-link are the UI's own; others (docs, API, assets) load normally.
    const a = ev.target.closest('a[href][data-link]');
    if (!a || ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
    if (a.target && a.target !== '_self') return;
    const url = new URL(a.getAttribute('href'), window.location.href);
    if (url.origin !== window.location.origin || url.pathname.startsWith('/api/')) return;
    ev.preventDefault();
    navigate(url.pathname + url.search);
  });
  fire();
}
