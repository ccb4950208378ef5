// Run diff page (/runs/:id/diff[?against=RUN]): what changed between a run and another run of its
// job (by default the last COMPLETE run before it), most likely cause first.
import { api, links } from '../api.js';
import { badge, emptyState, errorState, h, mount, section, spinner, table } from '../dom.js';
import { fmtBytes, fmtDuration, fmtNumber, fmtShortTime, fmtTime, shortId } from '../format.js';
import { datasetName, jobName } from '../names.js';
import { navigate } from '../router.js';
import { header, kv, runState } from './common.js';

const SUSPECT = {
  jobChanged: 'Job changed', inputChanged: 'Input changed', runFacetsChanged: 'Run settings changed',
  outputChanged: 'Output changed', error: 'Error',
};

export async function renderRunDiff(root, { id }, query) {
  const against = query.get('against') || '';
  document.title = `Diff of run ${shortId(id)} · plumbline`;
  mount(root, h('div', { class: 'page' }, spinner('Comparing runs…')));
  let d;
  try {
    d = await api.runDiff(id, against || null);
  } catch (err) {
    mount(root, h('div', { class: 'page' }, header('Run diff', h('span', { class: 'mono' }, id), null,
      h('a', { class: 'btn', href: links.run(id), 'data-link': '' }, 'Back to the run')), errorState(err, () => renderRunDiff(root, { id }, query))));
    return null;
  }
  const job = d.run.job;
  const pickerEl = h('span', { class: 'diff-picker' });
  mount(root, h('div', { class: 'page', id: 'run-diff' },
    header('Run diff', h('span', null, 'Run ', h('a', { class: 'mono', href: links.run(d.run.id), 'data-link': '' }, shortId(d.run.id)),
      ' compared with ', d.against ? h('a', { class: 'mono', href: links.run(d.against.id), 'data-link': '', id: 'against-link' }, shortId(d.against.id)) : h('span', { class: 'muted' }, 'no run')),
    h('span', null, 'of job ', h('a', { href: links.job(job.namespace, job.name), 'data-link': '' }, jobName(job.name).short), h('span', { class: 'muted' }, ` · ${job.namespace}`)),
    pickerEl),
    againstNote(d),
    d.error ? errorBlock(d) : null,
    section('What changed, most likely cause first', suspects(d.suspects, 'diff-suspects')),
    (d.causedByFailure || []).length ? section('Caused by the failure (not a cause)', failureEffects(d.causedByFailure)) : null,
    section('Runs', runsTable(d)),
    section('Inputs', ioTable(d.inputs, 'diff-inputs', 'No inputs on either side.')),
    section('Outputs', ioTable(d.outputs, 'diff-outputs', 'No outputs on either side.')),
    h('div', { class: 'grid-2' },
      section('Job', kv([
        ['Job version', h('span', { id: 'job-version-changed' }, changedWord(d.jobVersionChanged))],
        ['Version', beforeAfter(d.jobVersion, shortId)],
        ['Spark', beforeAfter(d.sparkVersion)],
      ]), facetChanges(d.jobFacetChanges, 'job-facet-changes', 'No job facet changed.')),
      section('Run facets', facetChanges(d.runFacetChanges, 'run-facet-changes', 'No run facet changed.'))),
    section('Column lineage', columnLineage(d.columnLineage)),
    (d.prunedRuns || []).length ? h('p', { class: 'muted small', id: 'pruned-runs' },
      `Pruned runs of this job that could have been compared: ${d.prunedRuns.map((r) => `${shortId(r.id)} (pruned ${fmtTime(r.prunedAt)})`).join(', ')}.`) : null));
  fillPicker(pickerEl, d, against);
  return null;
}

/** The error: its summary (the innermost exception), the whole message folded under it. */
function errorBlock(d) {
  const error = String(d.error);
  const gist = d.errorSummary || error.split('\n')[0];
  return h('div', { class: 'alert alert-error', id: 'diff-error' }, h('strong', null, 'Error'),
    h('div', { class: 'alert-msg', id: 'error-summary' }, gist),
    error.trim() !== gist.trim() ? h('details', { class: 'stack', id: 'diff-error-full' },
      h('summary', null, `Full error (${error.split('\n').length} lines)`),
      h('pre', { class: 'stacktrace' }, error)) : null);
}

function againstNote(d) {
  if (d.againstReason === 'noEarlierCompleteRun') {
    return h('div', { class: 'alert', id: 'no-against' }, 'No earlier COMPLETE run of this job to compare with: pick another run above.');
  }
  if (d.againstReason === 'lastCompleteBefore') return h('p', { class: 'muted small', id: 'against-reason' }, 'Compared with the last COMPLETE run of the job before it.');
  return null;
}

async function fillPicker(el, d, against) {
  try {
    const res = await api.jobRuns(d.run.job.namespace, d.run.job.name, 100);
    const others = (res.runs || []).filter((r) => r.id !== d.run.id);
    mount(el, h('label', { class: 'toolbar-group' }, 'Compare with',
      h('select', { class: 'select', id: 'against-select', onchange: (ev) => navigate(links.runDiff(d.run.id, ev.target.value)) },
        h('option', { value: '', selected: !against }, 'the last COMPLETE run before'),
        others.map((r) => h('option', { value: r.id, selected: r.id === against },
          `${shortId(r.id)} · ${r.state} · ${fmtShortTime(r.startedAt || r.createdAt)}`)))));
  } catch (err) {
    mount(el, h('span', { class: 'muted small' }, `Runs could not be listed: ${err.message}`));
  }
}

export function suspects(list, id) {
  if (!(list || []).length) return h('p', { class: 'muted', id }, 'Nothing differs.');
  return h('ol', { class: 'suspects', id }, list.map((s) => h('li', { 'data-kind': s.kind },
    h('span', { class: `tag ${s.kind === 'error' ? 'tag-indirect' : 'tag-direct'}` }, SUSPECT[s.kind] || s.kind), ' ',
    h('span', { class: 'mono' }, s.subject), s.detail ? h('span', { class: 'muted' }, ` · ${s.detail}`) : null)));
}

/** What a failed run's failure itself caused: reads and writes it emptied, outputs not written. */
function failureEffects(list) {
  const word = { inputRead: 'Read', outputWritten: 'Written' };
  return h('ul', { class: 'suspects', id: 'diff-failure-effects' }, list.map((s) => h('li', { 'data-kind': s.kind },
    h('span', { class: 'tag' }, word[s.kind] || s.kind), ' ',
    h('span', { class: 'mono' }, s.subject), s.detail ? h('span', { class: 'muted' }, ` · ${s.detail}`) : null)));
}

/** A statistic's before → after, marked when the run's failure emptied it (a symptom). */
function statistic(io, key, fmt) {
  const pair = beforeAfter(io[key], fmt);
  if (!(io.causedByFailure || []).includes(key)) return h('td', null, pair);
  return h('td', { class: 'failure-effect', 'data-caused-by-failure': 'true', title: 'Emptied by the failure, not a change before the run' },
    pair, h('div', { class: 'muted small' }, 'caused by the failure'));
}

function runsTable(d) {
  const side = (r) => (r ? [
    h('td', null, h('a', { class: 'mono', href: links.run(r.id), 'data-link': '' }, shortId(r.id))),
    h('td', null, badge(runState(r.state))),
    h('td', { class: 'muted nowrap' }, fmtTime(r.startedAt)),
    h('td', { class: 'num' }, fmtDuration(r.durationMs)),
    h('td', { class: 'mono muted', title: r.jobVersion || '' }, shortId(r.jobVersion)),
  ] : h('td', { class: 'muted', colspan: 5 }, 'none'));
  return table(['', 'Run', 'State', 'Started', 'Duration#', 'Job version'], [
    h('tr', null, h('th', null, 'Compared with'), side(d.against)),
    h('tr', null, h('th', null, 'This run'), side(d.run)),
  ], { id: 'diff-runs' });
}

/** "before → after" of a {before, after} pair; one value when equal. */
function beforeAfter(pair, fmt = (x) => (x === null || x === undefined ? '—' : String(x))) {
  if (!pair) return '—';
  const { before, after } = pair;
  if (before === after) return h('span', { class: 'before-after' }, fmt(after));
  return h('span', { class: 'before-after changed' }, fmt(before), h('span', { class: 'arrow' }, ' → '), fmt(after));
}

function changedWord(v) {
  if (v === null || v === undefined) return h('span', { class: 'muted' }, 'unknown');
  return v ? h('span', { class: 'diff-chg' }, 'changed') : 'same';
}

function ioTable(list, id, empty) {
  if (!(list || []).length) return h('p', { class: 'muted', id }, empty);
  return table(['Dataset', 'Status', 'Version', 'Schema', 'Rows', 'Size'], list.map((io) => h('tr', { 'data-dataset': io.name, 'data-status': io.status },
    h('td', null, h('a', { href: links.dataset(io.namespace, io.name), 'data-link': '', title: io.name }, datasetName(io.name).short), h('div', { class: 'muted small break' }, io.namespace)),
    h('td', null, io.status === 'kept' ? h('span', { class: 'muted' }, 'kept') : h('span', { class: `tag diff-${io.status === 'added' ? 'add' : 'del'}` }, io.status)),
    h('td', { class: 'version-cell' }, changedWord(io.versionChanged), ' ', beforeAfter(io.version, shortId)),
    h('td', { class: 'schema-cell' }, schemaChanges(io)),
    statistic(io, 'rowCount', fmtNumber),
    statistic(io, 'byteCount', fmtBytes))), { id });
}

function schemaChanges(io) {
  if (!io.schemaKnown && !(io.schemaChanges || []).length) return h('span', { class: 'muted' }, 'unknown');
  if (!(io.schemaChanges || []).length) return h('span', { class: 'muted' }, 'same');
  const cls = { added: 'diff-add', removed: 'diff-del', typeChanged: 'diff-chg' };
  const word = { added: 'added', removed: 'removed', typeChanged: 'type changed' };
  return h('div', { class: 'diff' }, io.schemaChanges.map((c) => h('div', { class: `schema-change ${cls[c.change] || ''}`, 'data-field': c.field, 'data-change': c.change },
    `${word[c.change] || c.change} `, h('span', { class: 'mono' }, c.field),
    h('span', { class: 'muted' }, c.change === 'typeChanged' ? ` ${c.typeBefore || '?'} → ${c.typeAfter || '?'}` : ` ${c.typeBefore || c.typeAfter || ''}`))));
}

function facetChanges(list, id, empty) {
  if (!(list || []).length) return h('p', { class: 'muted', id }, empty);
  const val = (v) => (v === null || v === undefined ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v));
  return h('div', { id }, list.map((f) => h('div', { class: 'facet-change', 'data-facet': f.facet },
    h('div', null, h('span', { class: 'mono' }, f.facet), ' ', h('span', { class: 'tag' }, f.change)),
    (f.keys || []).length ? table(['Key', 'Before', 'After'], f.keys.map((k) => h('tr', null,
      h('td', { class: 'mono' }, k.key), h('td', { class: 'mono muted break' }, val(k.before)), h('td', { class: 'mono break' }, val(k.after))))) : null)));
}

function columnLineage(cl) {
  if (!cl) return emptyState('No column lineage');
  if (!cl.available) return h('p', { class: 'muted', id: 'column-lineage' }, `Not comparable: ${cl.reason || 'a run\'s raw events are gone'}.`);
  if (!cl.added.length && !cl.removed.length) return h('p', { class: 'muted', id: 'column-lineage' }, 'The same column lineage edges.');
  const edge = (e, sign, cls) => h('div', { class: `${cls} column-edge` }, `${sign} `,
    h('span', { class: 'mono' }, `${datasetName(e.input.name).short}.${e.input.field}`), ' → ',
    h('span', { class: 'mono' }, `${datasetName(e.output.name).short}.${e.output.field}`),
    h('span', { class: 'muted' }, ` ${[e.type, e.subtype].filter(Boolean).join(' · ')}`));
  return h('div', { class: 'diff', id: 'column-lineage' },
    cl.added.map((e) => edge(e, '+', 'diff-add')), cl.removed.map((e) => edge(e, '−', 'diff-del')));
}
