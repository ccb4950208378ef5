// Entry point: routes each URL to its view and mounts the header search.
import { h, mount } from './dom.js';
import { match, onRoute, start } from './router.js';
import { mountSearch } from './search.js';
import { renderHome } from './views/home.js';
import { renderLineage } from './views/lineage.js';
import { renderDataset } from './views/dataset.js';
import { renderJob } from './views/job.js';
import { renderRun } from './views/run.js';
import { renderEvents } from './views/events.js';
import { renderImpact } from './views/impact.js';
import { renderRunDiff } from './views/run_diff.js';
import { renderAlerts } from './views/alerts.js';
import { renderCoverage } from './views/coverage.js';

const routes = [
  { path: '/', view: renderHome, nav: 'home' },
  { path: '/lineage', view: renderLineage, nav: 'lineage' },
  { path: '/datasets/:namespace/:name', view: renderDataset, nav: 'home' },
  { path: '/jobs/:namespace/:name', view: renderJob, nav: 'home' },
  { path: '/runs/:id', view: renderRun, nav: 'home' },
  { path: '/runs/:id/diff', view: renderRunDiff, nav: 'home' },
  { path: '/impact', view: renderImpact, nav: 'lineage' },
  { path: '/events', view: renderEvents, nav: 'events' },
  { path: '/alerts', view: renderAlerts, nav: 'alerts' },
  { path: '/coverage', view: renderCoverage, nav: 'alerts' },
];

const root = document.getElementById('view');
let cleanup = null;
let current = null;

onRoute(async (loc) => {
  const m = match(routes, loc.pathname);
  if (cleanup) { try { cleanup(); } catch { /* view already gone */ } cleanup = null; }
  document.querySelectorAll('[data-nav]').forEach((a) => a.classList.toggle('active', !!m && a.dataset.nav === m.route.nav));
  if (!m) {
    document.title = 'Not found · plumbline';
    mount(root, h('div', { class: 'page' }, h('div', { class: 'state state-empty' },
      h('div', { class: 'state-title' }, 'Page not found'),
      h('div', { class: 'state-detail' }, h('a', { href: '/', 'data-link': '' }, 'Back to the overview')))));
    return;
  }
  const token = {};
  current = token;
  const view = h('div', { class: `view view-${m.route.nav}` });
  mount(root, view);
  root.dataset.view = m.route.path;
  const result = await m.route.view(view, m.params, new URLSearchParams(loc.search), () => current === token);
  if (current === token && typeof result === 'function') cleanup = result;
});

mountSearch(document.getElementById('search'));
start();
