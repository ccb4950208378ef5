// Dataset page: schema, versions with schema differences, producers and consumers, facets, rows written.
import { api, links, nodeIds } from '../api.js';
import { badge, emptyState, errorState, facetList, h, mount, section, spinner, table } from '../dom.js';
import { fmtNumber, fmtShortTime, fmtTime, shortId, shownVersion } from '../format.js';
import { barChart } from '../charts.js';
import { header, kv, loadInto, runState, versionId } from './common.js';
import { contextLine, datasetName, jobName } from '../names.js';

export async function renderDataset(root, { namespace, name }) {
  document.title = `${datasetName(name).short} · plumbline`;
  mount(root, h('div', { class: 'page' }, spinner()));
  let ds;
  try {
    ds = await api.dataset(namespace, name);
  } catch (err) {
    mount(root, h('div', { class: 'page' }, errorState(err, () => renderDataset(root, { namespace, name }))));
    return null;
  }
  const nodeId = nodeIds.dataset(namespace, name);
  const fields = ds.fields || [];
  const versionsEl = h('div');
  const chartEl = h('div');
  const neighboursEl = h('div');
  mount(root, h('div', { class: 'page' },
    header('Dataset', datasetName(ds.name).short,
      [datasetName(ds.name).short !== ds.name ? [h('span', { class: 'mono', id: 'full-name' }, ds.name), ' · '] : null,
        `namespace ${ds.namespace}`, ds.sourceName && ds.sourceName !== ds.namespace ? ` · source ${ds.sourceName}` : null],
      h('a', { class: 'btn btn-primary', href: links.lineage(nodeId), 'data-link': '', id: 'open-lineage' }, 'Lineage'),
      h('a', { class: 'btn', href: links.lineage(nodeId, { column: '' }), 'data-link': '', id: 'open-columns' }, 'Column lineage'),
      h('a', { class: 'btn', href: links.impact(nodeId, 'downstream'), 'data-link': '', id: 'open-impact' }, 'Impact')),
    ds.description ? h('p', { class: 'lead' }, ds.description) : null,
    h('div', { class: 'grid-2' },
      section('Schema', fields.length ? table(['Column', 'Type', 'Description', ''], fields.map((f) => h('tr', null,
        h('td', null, h('a', { class: 'mono', href: links.lineage(nodeId, { column: f.name }), 'data-link': '', title: 'Column lineage' }, f.name)),
        h('td', { class: 'mono muted' }, f.type || '—'),
        h('td', { class: 'muted' }, f.description || ''),
        h('td', null, h('a', { class: 'small', href: links.impact(nodeIds.field(namespace, name, f.name), 'downstream'), 'data-link': '', title: `What ${f.name} feeds` }, 'impact')))), { id: 'schema-table' }) : emptyState('No schema', 'No event has described the columns of this dataset.')),
      section('About', kv([
        ['Type', ds.type], ['Physical name', ds.physicalName !== ds.name ? ds.physicalName : null],
        ['Created', fmtTime(ds.createdAt)], ['Updated', fmtTime(ds.updatedAt)],
        ['Last modified', ds.lastModifiedAt ? fmtTime(ds.lastModifiedAt) : null],
        ['Current version', ds.currentVersion ? h('span', { class: 'mono', id: 'current-version', title: ds.currentVersion }, shortId(ds.currentVersion)) : null],
        ['Tags', (ds.tags || []).length ? ds.tags.map((t) => (typeof t === 'string' ? t : t.name)).join(', ') : null],
      ]), h('h3', null, 'Producers and consumers'), neighboursEl)),
    section('Rows written per run', chartEl),
    section('Versions', versionsEl),
    section('Facets', facetList(ds.facets))));

  loadInto(neighboursEl, () => api.lineage(nodeId, 1), (g) => {
    const me = (g.graph || []).find((n) => n.id === nodeId);
    const byId = new Map((g.graph || []).map((n) => [n.id, n]));
    const jobs = (ids) => ids.map((id) => byId.get(id)).filter((n) => n && n.type === 'JOB');
    const producers = jobs((me?.inEdges || []).map((e) => e.origin));
    const consumers = jobs((me?.outEdges || []).map((e) => e.destination));
    const list = (ns, empty, id) => (ns.length ? h('ul', { class: 'plain', id }, ns.map((n) => {
      const parts = jobName(n.data.name);
      return h('li', { class: 'job-ref' },
        h('div', null,
          h('a', { href: links.job(n.data.namespace, n.data.name), 'data-link': '', title: n.data.name }, parts.short),
          h('div', { class: 'muted small break' }, contextLine(parts, n.data.namespace))),
        n.data.latestRun ? badge(n.data.latestRun.state) : null);
    })) : h('p', { class: 'muted' }, empty));
    return [h('h4', null, 'Written by'), list(producers, 'No known producer.', 'producers'),
      h('h4', null, 'Read by'), list(consumers, 'No known consumer.', 'consumers')];
  });

  loadInto(versionsEl, () => api.datasetVersions(namespace, name, 50), (res) => {
    const versions = res.versions || [];
    const current = versions.find((v) => v.version === ds.currentVersion);
    const currentEl = document.getElementById('current-version');
    if (current && currentEl) currentEl.textContent = shownVersion(current); // shown as the list shows it
    mount(chartEl, rowsChart(versions, name, namespace));
    if (!versions.length) return emptyState('No versions yet');
    // Versions come newest first; each is compared with the one before it in time.
    const all = (res.totalCount ?? versions.length) <= versions.length;
    return h('div', { class: 'versions', id: 'versions' }, versions.map((v, i) => versionRow(v, versions[i + 1], all, i < LINEAGE_NOW ? 'now' : 'ask', namespace, name, ds.currentVersion)),
      all ? null : h('p', { class: 'muted small' }, `Showing the newest ${versions.length} of ${res.totalCount} versions.`));
  });
  return null;
}

// Versions whose "made from" / "used by" load with the page; older ones load on request.
const LINEAGE_NOW = 10;
// Versions listed per level of a walk before "+N more".
const PER_LEVEL = 12;

/** One version reached by a walk: its dataset, version, and how it is linked. */
function versionItem(x, direction) {
  return h('li', { 'data-dataset': x.name, 'data-version': x.version || '', 'data-distance': String(x.distance) },
    h('a', { href: links.dataset(x.namespace, x.name), 'data-link': '', title: `${x.namespace} ${x.name}` }, datasetName(x.name).short), ' ',
    h('span', { class: 'mono muted version-shown', title: x.datasetVersion || x.version || '' }, x.version ? shownVersion(x) : 'unknown version'),
    direction === 'downstream' && x.runId ? [' by ', h('a', { class: 'mono', href: links.run(x.runId), 'data-link': '' }, `run ${shortId(x.runId)}`)] : null,
    direction === 'upstream' && x.versionSource ? h('span', { class: 'muted small' }, ` · ${x.versionSource}`) : null,
    x.writerPruned ? h('span', { class: 'muted small' }, ` · its run was pruned ${fmtShortTime(x.writerPruned.prunedAt)}`) : null);
}

/** A walk's versions by distance: the direct ones, then those 2, 3… runs away. */
function versionLevels(versions, direction) {
  const byDistance = new Map();
  for (const x of versions) {
    if (!byDistance.has(x.distance)) byDistance.set(x.distance, []);
    byDistance.get(x.distance).push(x);
  }
  return [...byDistance.entries()].sort((a, b) => a[0] - b[0]).map(([distance, xs]) => {
    const label = distance === 1 ? null : h('div', { class: 'muted small version-level-label' }, `${distance} runs away`);
    const shown = xs.slice(0, PER_LEVEL);
    const list = h('ul', { class: 'plain' }, shown.map((x) => versionItem(x, direction)));
    const more = xs.length > shown.length ? h('button', {
      class: 'btn btn-small',
      onclick: (e) => { list.append(...xs.slice(PER_LEVEL).map((x) => versionItem(x, direction))); e.target.remove(); },
    }, `+${xs.length - shown.length} more`) : null;
    return h('div', { class: 'version-level', 'data-distance': String(distance) }, label, list, more);
  });
}

/** "Made from" (the exact input versions its run read, and theirs, transitively) and "used by"
 * (the versions made from it, and from those). */
function versionLineage(namespace, name, v, when) {
  const el = h('div', { class: 'version-links' });
  const side = (direction, title, empty) => {
    const box = h('div', { class: `version-${direction}` }, h('h5', null, title));
    const list = h('div');
    box.append(list);
    loadInto(list, () => api.versionLineage(namespace, name, v.version, direction), (res) => {
      const vs = (res.versions || []).filter((x) => x.distance > 0);
      const notes = [
        res.hiddenVersions ? h('div', { class: 'muted small' }, `${res.hiddenVersions} more your token may not read`) : null,
        res.truncated ? h('div', { class: 'muted small version-truncated' }, 'Cut at the server\'s limit of versions (nearest kept).') : null,
      ];
      if (!vs.length) return [h('span', { class: 'muted' }, empty), ...notes];
      return [...versionLevels(vs, direction), ...notes];
    });
    return box;
  };
  const fill = () => mount(el, side('upstream', 'Made from', 'no input versions known'), side('downstream', 'Used by', 'not read yet'));
  if (when === 'now') fill();
  else el.append(h('button', { class: 'btn btn-small', onclick: fill }, 'Made from / used by'));
  return el;
}

/** What a version is to a reader: the current one, or one whose run did not complete (it may be
 * partial or empty: the dataset's current version is still the one before). */
function versionStatus(v, current) {
  if (current && v.version === current) return h('span', { class: 'tag tag-direct version-current', title: 'The dataset\'s current version' }, 'current');
  const state = v.createdByRun ? runState(v.createdByRun.state) : null;
  if (state && state !== 'COMPLETED') {
    const why = state === 'RUNNING' ? 'its run has not completed' : `its run ${state.toLowerCase()}`;
    return h('span', { class: 'tag tag-indirect version-incomplete', title: `Never current: ${why}; what it holds may be partial` }, `not current: ${why}`);
  }
  return null;
}

/** A version's schema changes since the version before it, as the server computed them (one
 * rule with drift alerts and run diff: nested fields, types compared without case). */
function schemaChanges(diff) {
  if (!diff) return null;
  const { added = [], removed = [], retyped = [] } = diff;
  if (!added.length && !removed.length && !retyped.length) return h('div', { class: 'muted small' }, 'Same schema as the previous version');
  return h('div', { class: 'diff' },
    added.map((f) => h('div', { class: 'diff-add' }, '+ ', h('span', { class: 'mono' }, f.name), h('span', { class: 'muted' }, ` ${f.type || ''}`))),
    removed.map((f) => h('div', { class: 'diff-del' }, '− ', h('span', { class: 'mono' }, f.name), h('span', { class: 'muted' }, ` ${f.type || ''}`))),
    retyped.map((c) => h('div', { class: 'diff-chg' }, '~ ', h('span', { class: 'mono' }, c.name), h('span', { class: 'muted' }, ` ${c.before || '?'} → ${c.after || '?'}`))));
}

function versionRow(v, prev, all, when, namespace, name, current) {
  const run = v.createdByRun;
  return h('div', { class: 'version', 'data-version': v.version },
    h('div', { class: 'version-head' },
      h('span', { class: 'mono version-id', title: `${v.datasetVersion || v.version} (version ${v.version})` }, shownVersion(v)),
      h('span', { class: 'muted' }, fmtTime(v.createdAt)),
      versionStatus(v, current),
      v.lifecycleState ? h('span', { class: 'tag' }, v.lifecycleState) : null,
      h('span', { class: 'muted' }, `${(v.fields || []).length} columns`),
      h('span', { class: 'spacer' }),
      run ? [badge(runState(run.state)), ' ', h('a', { href: links.run(run.id), 'data-link': '', class: 'mono' }, `run ${shortId(run.id)}`)] : h('span', { class: 'muted' }, 'no run')),
    v.schemaChanges ? schemaChanges(v.schemaChanges)
      : !prev && all ? h('div', { class: 'muted small' }, 'First version') : null,
    versionLineage(namespace, name, v, when));
}

/** Rows written by the run that produced each version, oldest first. */
export function rowsOfVersion(v, name, namespace) {
  const stats = v.facets && v.facets.outputStatistics;
  if (stats && stats.rowCount !== undefined) return stats.rowCount;
  const outs = (v.createdByRun && v.createdByRun.outputDatasetVersions) || [];
  for (const o of outs) {
    const id = versionId(o);
    if (id.name === name && id.namespace === namespace) {
      const st = o.facets && o.facets.outputStatistics;
      if (st && st.rowCount !== undefined) return st.rowCount;
    }
  }
  return null;
}

function rowsChart(versions, name, namespace) {
  const items = versions.slice().reverse().map((v) => ({
    label: fmtShortTime(v.createdAt),
    value: rowsOfVersion(v, name, namespace),
    state: v.createdByRun ? v.createdByRun.state : null,
    href: v.createdByRun ? links.run(v.createdByRun.id) : null,
    title: `version ${shownVersion(v)}`,
  }));
  return barChart(items, { format: (x) => fmtNumber(Math.round(x)), emptyText: 'No run reported how many rows it wrote.', ariaLabel: 'Rows written per run' });
}

