// Overview: the most recently updated jobs (with their latest run) and datasets, all namespaces.
import { api, links } from '../api.js';
import { badge, emptyState, h, section, table } from '../dom.js';
import { fmtDuration, fmtShortTime, middleEllipsis, runDuration } from '../format.js';
import { loadInto } from './common.js';
import { contextLine, datasetName, jobLabels, jobName } from '../names.js';

const SHOWN = 50;
const MAX_NAMESPACES = 20;

export function renderHome(root) {
  document.title = 'plumbline';
  const body = h('div', { id: 'overview' });
  root.append(h('div', { class: 'page' },
    h('div', { class: 'hero' },
      h('h1', null, 'Lineage of your Spark pipelines'),
      h('p', { class: 'muted' }, 'Search a dataset or a job above (press /), or start from what changed last.')),
    body));
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
