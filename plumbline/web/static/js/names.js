// Short display names. Dataset names are paths or dotted table names; Spark action jobs are named
// <app>.<command>.<output> (DESIGN.md). The short part tells things apart; the rest is context.

/** {short, context} of a dataset name: the last path segment and its parent path. */
export function datasetName(name) {
  const t = String(name || '').replace(/\/+$/, '');
  const i = t.lastIndexOf('/');
  if (i >= 0 && i < t.length - 1) return { short: t.slice(i + 1), context: t.slice(0, i) || '/' };
  return { short: t, context: '' };
}

/** {short, context, app} of a job name: the output part of <app>.<command>.<output> and the
 * command as context; other names stay whole. */
export function jobName(name) {
  const t = String(name || '');
  const parts = t.split('.');
  if (parts.length < 3) return { short: t, context: '', app: '' };
  const command = parts.slice(1, -1).join('.').replace(/^execute_/, '').replace(/_command$/, '');
  return { short: parts[parts.length - 1], context: command, app: parts[0] };
}

/** One muted line of context: the name's context and the namespace (the app when it differs). */
export function contextLine(parts, namespace) {
  return [parts.context, parts.app && parts.app !== namespace ? parts.app : null, namespace].filter(Boolean).join(' · ');
}

/** A labeller that tells the jobs of `names` apart: a job's short name, and where several jobs
 * share it, the command too ("fact_orders (insert_into_hadoop_fs_relation)"), then the app. */
export function jobLabels(names) {
  const byShort = new Map();
  for (const n of new Set(names)) {
    const s = jobName(n).short;
    byShort.set(s, [...(byShort.get(s) || []), n]);
  }
  const labels = new Map();
  for (const [short, group] of byShort) {
    for (const n of group) {
      const p = jobName(n);
      if (group.length === 1 || !p.context) { labels.set(n, group.length === 1 ? short : n); continue; }
      const sameCommand = group.filter((o) => jobName(o).context === p.context).length > 1;
      labels.set(n, `${short} (${p.context}${sameCommand ? `, ${p.app}` : ''})`);
    }
  }
  return (name) => labels.get(name) || jobName(name).short;
}
