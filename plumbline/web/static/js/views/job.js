// Job page: runs with states and durations, each run's inputs and outputs, errors, versions.
import { api, links, nodeIds } from '../api.js';
import { badge, emptyState, errorState, facetList, h, mount, section, spinner, table } from '../dom.js';
import { fmtDuration, fmtShortTime, fmtTime, runDuration, shortId } from '../format.js';
import { barChart } from '../charts.js';
import { header, kv, loadInto, versionId } from './common.js';
import { datasetName, jobName } from '../names.js';

export async function renderJob(root, { namespace, name }) {
  document.title = `${jobName(name).short} · plumbline`;
  mount(root, h('div', { class: 'page' }, spinner()));
  let job;
  try {
    job = await api.job(namespace, name);
  } catch (err) {
    mount(root, h('div', { class: 'page' }, errorState(err, () => renderJob(root, { namespace, name }))));
    return null;
  }
  const runsEl = h('div');
  const chartEl = h('div');
  const errorEl = h('div');
  const versionsEl = h('div');
  const latest = job.latestRun;
  mount(root, h('div', { class: 'page' },
    header('Job', jobName(job.name).short,
      [jobName(job.name).short !== job.name ? [h('span', { class: 'mono', id: 'full-name' }, job.name), ' · '] : null, `namespace ${job.namespace}`],
      latest ? badge(latest.state) : null,
      h('a', { class: 'btn btn-primary', href: links.lineage(nodeIds.job(namespace, name)), 'data-link': '', id: 'open-lineage' }, 'Lineage'),
      h('a', { class: 'btn', href: links.impact(nodeIds.job(namespace, name), 'downstream'), 'data-link': '', id: 'open-impact' }, 'Impact')),
    job.description ? h('p', { class: 'lead' }, job.description) : null,
    errorEl,
    h('div', { class: 'grid-2' },
      section('Run durations', chartEl),
      section('About', kv([
        ['Type', job.type],
        ['Parent job', job.parentJobName ? h('a', { href: links.job(namespace, job.parentJobName), 'data-link': '' }, job.parentJobName) : null],
        ['Location', job.location ? h('span', { class: 'mono break' }, job.location) : null],
        ['Created', fmtTime(job.createdAt)], ['Updated', fmtTime(job.updatedAt)],
        ['Inputs', datasetLinks(job.inputs)], ['Outputs', datasetLinks(job.outputs)],
      ]))),
    job.facets && job.facets.sql && job.facets.sql.query
      ? section('SQL', h('pre', { class: 'code', id: 'job-sql' }, job.facets.sql.query)) : null,
    section('Runs', runsEl),
    section('Versions', versionsEl),
    section('Facets', facetList(job.facets))));

  loadInto(runsEl, () => api.jobRuns(namespace, name, 50), (res) => {
    const runs = res.runs || [];
    mount(chartEl, barChart(runs.slice().reverse().map((r) => ({
      label: fmtShortTime(r.startedAt || r.createdAt), value: runDuration(r), state: r.state, href: links.run(r.id), title: `run ${shortId(r.id)} ${r.state}`,
    })), { format: fmtDuration, emptyText: 'No finished runs yet.', ariaLabel: 'Run durations' }));
    const failed = runs.find((r) => r.state === 'FAILED');
    const err = failed && failed.facets && failed.facets.errorMessage;
    if (failed && failed === runs[0]) {
      mount(errorEl, h('div', { class: 'alert alert-error', id: 'latest-error' },
        h('strong', null, 'The latest run failed'), ' ',
        h('a', { href: links.run(failed.id), 'data-link': '' }, `run ${shortId(failed.id)}`),
        err ? h('div', { class: 'mono alert-msg' }, err.message) : null));
    }
    if (!runs.length) return emptyState('No runs yet');
    const more = (res.totalCount ?? runs.length) > runs.length
      ? h('p', { class: 'muted small' }, `Showing the newest ${runs.length} of ${res.totalCount} runs.`) : null;
    return [more, table(['State', 'Run', 'Started', 'Duration', 'Inputs', 'Outputs'], runs.map((r) => h('tr', { 'data-run': r.id },
      h('td', null, badge(r.state)),
      h('td', null, h('a', { class: 'mono', href: links.run(r.id), 'data-link': '' }, shortId(r.id)), ' ',
        h('a', { class: 'small run-diff', href: links.runDiff(r.id), 'data-link': '', title: 'What changed since the last COMPLETE run before it' }, 'diff'),
        r.state === 'FAILED' && r.facets && r.facets.errorMessage ? h('div', { class: 'run-error' }, r.facets.errorMessage.message) : null),
      h('td', { class: 'muted nowrap' }, fmtShortTime(r.startedAt || r.createdAt)),
      h('td', null, fmtDuration(runDuration(r))),
      h('td', null, datasetLinks((r.inputDatasetVersions || []).map(versionId))),
      h('td', null, datasetLinks((r.outputDatasetVersions || []).map(versionId))))), { id: 'runs-table' })];
  });

  loadInto(versionsEl, () => api.jobVersions(namespace, name, 50), (res) => {
    const versions = res.versions || [];
    if (!versions.length) return emptyState('No versions yet');
    return table(['Version', 'Created', 'Inputs', 'Outputs', 'Latest run'], versions.map((v) => h('tr', null,
      h('td', { class: 'mono', title: v.version }, shortId(v.version || (v.id && v.id.version))),
      h('td', { class: 'muted' }, fmtTime(v.createdAt)),
      h('td', null, datasetLinks(v.inputs)),
      h('td', null, datasetLinks(v.outputs)),
      h('td', null, v.latestRun ? [badge(v.latestRun.state), ' ', h('a', { href: links.run(v.latestRun.id), 'data-link': '', class: 'mono' }, shortId(v.latestRun.id))] : '—'))), { id: 'job-versions' });
  });
  return null;
}

function datasetLinks(list) {
  if (!list || !list.length) return h('span', { class: 'muted' }, '—');
  return h('div', { class: 'ds-links' }, list.map((d) => {
    const { short, context } = datasetName(d.name);
    return h('div', { class: 'ds-link' },
      h('a', { href: links.dataset(d.namespace, d.name), 'data-link': '', title: `${d.namespace} ${d.name}` }, short),
      context ? h('span', { class: 'muted small' }, ` ${context}`) : null);
  }));
}

