// Run page: state and timing, error and stack trace, parent run, per-dataset statistics, facets.
import { api, links } from '../api.js';
import { badge, errorState, facetList, h, mount, section, spinner, table } from '../dom.js';
import { fmtBytes, fmtDuration, fmtNumber, fmtTime, shortId, shownVersion, runDuration } from '../format.js';
import { header, kv, loadInto, runState, versionId } from './common.js';
import { suspects } from './run_diff.js';

export async function renderRun(root, { id }) {
  document.title = `Run ${shortId(id)} · plumbline`;
  mount(root, h('div', { class: 'page' }, spinner()));
  let run;
  try {
    run = await api.run(id);
  } catch (err) {
    mount(root, h('div', { class: 'page' }, errorState(err, () => renderRun(root, { id }))));
    return null;
  }
  const facets = run.facets || {};
  const job = run.jobVersion || {};
  const err = facets.errorMessage;
  const parent = facets.parent;
  const jobFacetsEl = h('div');
  const rootCauseEl = h('div', { id: 'root-cause' });
  const batchesEl = h('div', { id: 'batches' });
  const failed = String(run.state || '').toUpperCase().startsWith('FAIL');
  mount(root, h('div', { class: 'page' },
    header('Run', h('span', { class: 'mono' }, run.id),
      job.name ? h('span', null, 'of job ', h('a', { href: links.job(job.namespace, job.name), 'data-link': '' }, job.name), h('span', { class: 'muted' }, ` · ${job.namespace}`)) : null,
      badge(run.state),
      h('a', { class: 'btn', href: links.runDiff(run.id), 'data-link': '', id: 'compare-run', title: 'What changed since the last COMPLETE run of the job (or another run)' }, 'Compare with…')),
    err ? h('div', { class: 'alert alert-error', id: 'run-error' },
      h('strong', null, 'Error'),
      errorMessage(err.message),
      err.stackTrace ? h('details', { class: 'stack', id: 'stack-trace-fold' }, h('summary', null, `Stack trace${err.programmingLanguage ? ` (${err.programmingLanguage})` : ''}`),
        h('pre', { class: 'stacktrace', id: 'stack-trace' }, err.stackTrace)) : null) : null,
    failed ? section('Root cause', rootCauseEl) : null,
    h('div', { class: 'grid-2' },
      section('Timing', kv([
        ['State', badge(run.state)],
        ['Started', fmtTime(run.startedAt)], ['Ended', fmtTime(run.endedAt)],
        ['Duration', fmtDuration(runDuration(run))],
        ['Nominal start', run.nominalStartTime ? fmtTime(run.nominalStartTime) : null],
        ['Created', fmtTime(run.createdAt)], ['Updated', fmtTime(run.updatedAt)],
        ['Job version', job.version ? h('span', { class: 'mono', title: job.version }, shortId(job.version)) : null],
      ])),
      section('Parent run', parent && parent.run ? h('div', { id: 'parent-run' }, kv([
        ['Job', h('a', { href: links.job(parent.job.namespace, parent.job.name), 'data-link': '' }, parent.job.name)],
        ['Namespace', parent.job.namespace],
        ['Run', h('a', { class: 'mono', href: links.run(parent.run.runId), 'data-link': '' }, parent.run.runId)],
      ])) : h('p', { class: 'muted' }, 'This run has no parent.'))),
    section('Inputs', ioTable(run.inputDatasetVersions || [], 'inputStatistics', 'inputs-table')),
    section('Outputs', ioTable(run.outputDatasetVersions || [], 'outputStatistics', 'outputs-table')),
    facets.streamBatches ? section('Micro-batches', batchesEl) : null,
    section('Run facets', facetList(facets)),
    section('Job facets', jobFacetsEl)));
  loadInto(jobFacetsEl, () => api.runFacets(id, 'job'), (res) => facetList(res.facets));
  if (failed) loadInto(rootCauseEl, () => api.rootCause(id), rootCause);
  if (facets.streamBatches) loadInto(batchesEl, () => api.runBatches(id), batchesTable);
  return null;
}

/** A streaming run's micro-batches (GET /jobs/runs/{id}/batches): what each read (Kafka offsets
 * per partition, versions, files added) and the version each sink committed. */
function batchesTable(page) {
  const list = page.batches || [];
  if (!list.length) return h('p', { class: 'muted' }, 'No micro-batch recorded.');
  const lines = (items) => items.map((text) => h('div', { class: 'mono small' }, text));
  const read = (s) => (s.partitions.length
    ? s.partitions.map((p) => `${p.topic}[${p.partition}] ${p.startOffset}–${p.endOffset}${p.offsetsBackward ? ' (backward)' : ''}`)
    : [[s.name || s.description || '?',
      s.endVersion !== null ? `versions ${s.startVersion}–${s.endVersion}` : '',
      s.filesAdded !== null ? `${s.filesAdded} file(s) added` : ''].filter(Boolean).join(' ')]);
  const rows = list.map((b) => h('tr', { 'data-batch': String(b.batchId) },
    h('td', { class: 'num' }, String(b.batchId), b.offsetsBackward ? h('div', { class: 'muted small' }, 'offsets backward') : null),
    h('td', null, fmtTime(b.timestamp)),
    h('td', { class: 'num' }, fmtNumber(b.numInputRows)),
    h('td', { class: 'batch-read' }, lines(b.sources.flatMap(read))),
    h('td', { class: 'batch-wrote' }, lines(b.sinks.map((s) => `${s.name}${s.version !== null ? ` version ${s.version}` : ''}`)))));
  const more = page.totalCount > list.length
    ? h('p', { class: 'muted' }, `${list.length} of ${page.totalCount} shown (plumbline batches ${page.runId} --offset N lists the rest).`)
    : null;
  return h('div', null, table(['Batch#', 'Time', 'Rows#', 'Read', 'Wrote'], rows, { id: 'batches-table' }), more);
}

/** The error's message; a long one (Spark puts a stack in it) shows its first line (the capture
 * puts the innermost cause there) and folds the rest. */
function errorMessage(message) {
  const text = String(message || '');
  const lines = text.split('\n');
  if (lines.length <= 4 && text.length <= 600) return h('div', { class: 'mono alert-msg', id: 'error-message' }, text);
  const head = lines[0];
  return h('div', { id: 'error-message-long' },
    h('div', { class: 'mono alert-msg', id: 'error-message' }, head.length > 600 ? `${head.slice(0, 600)}…` : head),
    h('details', { class: 'stack' }, h('summary', null, `Full message (${lines.length} lines)`),
      h('pre', { class: 'stacktrace' }, text)));
}

function ioTable(list, statsKey, tableId) {
  if (!list.length) return h('p', { class: 'muted' }, 'None');
  return table(['Dataset', 'Version', 'Rows#', 'Size#', 'Files#'], list.map((dv) => {
    const id = versionId(dv);
    const st = (dv.facets && (dv.facets[statsKey] || dv.facets.outputStatistics || dv.facets.inputStatistics)) || {};
    return h('tr', null,
      h('td', null, h('a', { href: links.dataset(id.namespace, id.name), 'data-link': '' }, id.name), h('div', { class: 'muted small' }, id.namespace)),
      h('td', { class: 'mono muted version-shown', title: dv.datasetVersion || id.version || '' }, shownVersion({ datasetVersion: dv.datasetVersion, version: id.version })),
      h('td', { class: 'num' }, fmtNumber(st.rowCount)),
      h('td', { class: 'num' }, fmtBytes(st.size)),
      h('td', { class: 'num' }, st.fileCount === undefined ? '—' : fmtNumber(st.fileCount)));
  }), { id: tableId });
}

/** The root-cause panel of a failed run: what changed in it, then the upstream runs that wrote what
 * it read, suspects first. */
function rootCause(rc) {
  const ups = rc.upstream || [];
  const reason = { failed: 'failed', jobChanged: 'job changed', inputChanged: 'input changed', outputChanged: 'output changed' };
  return [
    h('h3', null, 'In this run', rc.against ? h('span', { class: 'muted small' }, ' · against ', h('a', { class: 'mono', href: links.runDiff(rc.run.id, rc.against), 'data-link': '' }, `run ${shortId(rc.against)}`)) : null),
    suspects(rc.changes, 'root-cause-changes'),
    h('h3', null, 'Upstream runs that wrote what it read'),
    ups.length ? table(['Distance#', 'Run', 'State', 'Why', 'Wrote'], ups.map((u) => h('tr', { class: u.suspect ? 'suspect' : '', 'data-run': u.run.id, 'data-suspect': String(u.suspect) },
      h('td', { class: 'num' }, String(u.distance)),
      h('td', null, h('a', { href: links.job(u.run.job.namespace, u.run.job.name), 'data-link': '' }, u.run.job.name), ' ',
        h('a', { class: 'mono small', href: links.run(u.run.id), 'data-link': '' }, shortId(u.run.id))),
      h('td', null, badge(runState(u.state))),
      h('td', null, u.reasons.length ? u.reasons.map((r) => h('span', { class: 'tag tag-indirect' }, reason[r] || r)) : h('span', { class: 'muted' }, 'unchanged'),
        u.changes.length ? h('div', { class: 'muted small' }, u.changes.map((c) => `${c.subject}: ${c.detail}`).join('; ')) : null),
      h('td', null, (u.produced || []).map((p) => h('div', null, h('a', { href: links.dataset(p.namespace, p.name), 'data-link': '' }, p.name), ' ', h('span', { class: 'mono muted small' }, shortId(p.version))))))), { id: 'root-cause-upstream' })
      : h('p', { class: 'muted' }, 'No upstream run is known to have written what this run read.'),
    (rc.prunedRuns || []).length ? h('p', { class: 'muted small' }, `Pruned writers: ${rc.prunedRuns.map((r) => `${r.job.name} ${shortId(r.id)} (pruned ${fmtTime(r.prunedAt)})`).join(', ')}.`) : null,
    rc.truncated ? h('p', { class: 'muted small' }, rc.truncatedReason === 'work budget'
      ? 'The analysis reached the server\'s work budget: the nearest runs are shown.'
      : 'The walk stopped at the server\'s node cap.') : null,
  ];
}
