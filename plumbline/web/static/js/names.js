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
