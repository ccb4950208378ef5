// Overview: what needs attention first (the latest failed runs and the open change alerts), then
// the most recently updated jobs (with their latest run) and datasets, all namespaces.
import { api, get, links, parseNodeId } from '../api.js';
import { badge, emptyState, h, section, table } from '../dom.js';
import { fmtDuration, fmtShortTime, middleEllipsis, runDuration, shortId } from '../format.js';
import { loadInto } from './common.js';
import { contextLine, datasetName, jobLabels, jobName } from '../names.js';

const SHOWN = 50;
const MAX_NAMESPACES = 20;
const ATTENTION = 5;

export function renderHome(root) {
  document.title = 'plumbline';
  const body = h('div', { id: 'overview' });
  const attention = h('div', { id: 'attention' });
  root.append(h('div', { class: 'page' },
    h('div', { class: 'hero' },
      h('h1', null, 'Lineage of your Spark pipelines'),
      h('p', { class: 'muted' }, 'Search a dataset or a job above (press /), or start from what changed last.')),
    attention,
    body));
  loadInto(attention, async () => {
    const [failed, alerts] = await Promise.all([
      get('/failed-runs', { limit: ATTENTION }),
      api.alerts({ acknowledged: 'false', limit: ATTENTION }),
    ]);
    return { failed, alerts };
  }, renderAttention);
  loadInto(body, async () => {
    const ns = (await api.namespaces()).namespaces || [];
    const per = await Promise.all(ns.slice(0, MAX_NAMESPACES).map(async (n) => {
      const [jobs, datasets] = await Promise.all([api.jobs(n.name, SHOWN), api.datasets(n.name, SHOWN)]);
      return { jobs: jobs.jobs || [], datasets: datasets.datasets || [], totals: [jobs.totalCount, datasets.totalCount] };
    }));
    const newest = (a, b) => String(b.updatedAt).localeCompare(String(a.updatedAt));
    return {
      namespaces: ns.length,
      jobs: per.flatMap((p) => p.jobs).sort(newest),
      datasets: per.flatMap((p) => p.datasets).sort(newest),
    };
  }, ({ namespaces, jobs, datasets }) => {
    if (!jobs.length && !datasets.length) {
      return emptyState('No lineage yet', 'Send OpenLineage events to POST /api/v1/lineage, or run `plumbline demo`.');
    }
    const name = (href, full, parts, ns) => h('td', null,
      h('a', { href, 'data-link': '', class: 'break', title: full }, parts.short),
      h('div', { class: 'muted small break', title: full }, middleEllipsis(contextLine(parts, ns), 52)));
    const jobLabel = jobLabels(jobs.slice(0, SHOWN).map((j) => j.name));
    return [
      h('p', { class: 'muted small' }, `${namespaces} namespace${namespaces === 1 ? '' : 's'}`),
      h('div', { class: 'grid-2 even' },
        section('Jobs', jobs.length ? table(['Job', 'Latest run', 'Duration#', 'Updated'], jobs.slice(0, SHOWN).map((j) => h('tr', null,
          name(links.job(j.namespace, j.name), j.name, { ...jobName(j.name), short: jobLabel(j.name) }, j.namespace),
          h('td', null, j.latestRun ? badge(j.latestRun.state) : h('span', { class: 'muted' }, '—')),
          h('td', { class: 'num' }, j.latestRun ? fmtDuration(runDuration(j.latestRun)) : '—'),
          h('td', { class: 'muted nowrap' }, fmtShortTime(j.updatedAt)))), { id: 'home-jobs' }) : h('p', { class: 'muted' }, 'No jobs yet')),
        section('Datasets', datasets.length ? table(['Dataset', 'Columns#', 'Updated'], datasets.slice(0, SHOWN).map((d) => h('tr', null,
          name(links.dataset(d.namespace, d.name), d.name, datasetName(d.name), d.namespace),
          h('td', { class: 'num' }, String((d.fields || []).length)),
          h('td', { class: 'muted nowrap' }, fmtShortTime(d.updatedAt)))), { id: 'home-datasets' }) : h('p', { class: 'muted' }, 'No datasets yet'))),
    ];
  });
  return null;
}

/** The latest failed runs and the open alerts, side by side; one quiet line when there are none. */
function renderAttention({ failed, alerts }) {
  const runs = failed.runs || [];
  const open = alerts.alerts || [];
  if (!runs.length && !open.length) return h('p', { class: 'muted small', id: 'attention-none' }, 'No failed run and no open alert.');
  return h('div', { class: 'grid-2 even' },
    section(`Latest failures${failed.totalCount ? ` (${failed.totalCount})` : ''}`, runs.length
      ? table(['Job', 'Run', 'When'], runs.map(failedRow(jobLabels(runs.map((r) => r.job.name)))), { id: 'home-failures' })
      : h('p', { class: 'muted', id: 'home-failures-none' }, 'No failed run.')),
    section('Open alerts', open.length
      ? [table(['Alert', 'On', 'Seen'], open.map(alertRow), { id: 'home-alerts' }),
        h('p', { class: 'small' }, h('a', { href: '/alerts?open=1', 'data-link': '', id: 'home-all-alerts' }, 'Every open alert'))]
      : h('p', { class: 'muted', id: 'home-alerts-none' }, 'No open alert.')));
}

const failedRow = (label) => (run) => {
  const parts = jobName(run.job.name);
  const fixed = run.jobLatestRunId && run.jobLatestRunId !== run.id && run.jobLatestRunState === 'COMPLETED';
  const error = String(run.errorMessage || '').split('\n')[0];
  return h('tr', { 'data-run': run.id },
    h('td', null,
      h('a', { href: links.job(run.job.namespace, run.job.name), 'data-link': '', class: 'break', title: run.job.name }, label(run.job.name)),
      h('div', { class: 'muted small break', title: run.errorMessage || '' }, middleEllipsis(error || contextLine(parts, run.job.namespace), 90))),
    h('td', null,
      h('div', null, badge(run.state), ' ', h('a', { href: links.run(run.id), 'data-link': '', class: 'mono', title: run.id }, shortId(run.id))),
      h('div', { class: 'small' },
        h('a', { href: links.runDiff(run.id), 'data-link': '' }, 'what changed'),
        fixed ? h('span', { class: 'muted', 'data-fixed': '' }, ' · a later run completed') : null)),
    h('td', { class: 'muted nowrap' }, fmtShortTime(run.endedAt || run.startedAt)));
};

function alertRow(alert) {
  const node = parseNodeId(alert.subject) || { type: 'DATASET', name: alert.subject, namespace: '' };
  const parts = node.type === 'JOB' ? jobName(node.name) : datasetName(node.name);
  return h('tr', { 'data-alert': String(alert.id) },
    h('td', null, h('a', { href: `/alerts?open=1&kind=${encodeURIComponent(alert.kind)}`, 'data-link': '' }, h('span', { class: `badge alert-kind kind-${alert.kind}` }, alert.kind))),
    h('td', null,
      h('a', { href: links.node(alert.subject) || '/alerts', 'data-link': '', class: 'break', title: alert.subject }, parts.short + (node.field ? `.${node.field}` : '')),
      h('div', { class: 'muted small break' }, middleEllipsis(contextLine(parts, node.namespace), 52))),
    h('td', { class: 'muted nowrap' }, fmtShortTime(alert.seenAt)));
}
