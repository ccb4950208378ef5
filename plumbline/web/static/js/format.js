// Formatting of times, durations and numbers for display.

export function fmtTime(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return d.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/** Month, day and time: for dense tables and chart axes. */
export function fmtShortTime(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return d.toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

export function fmtDuration(ms) {
  if (ms === null || ms === undefined || Number.isNaN(ms)) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(s < 10 ? 1 : 0)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${Math.round(s % 60)}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}

export function fmtNumber(n) {
  if (n === null || n === undefined) return '—';
  return Number(n).toLocaleString('en-US');
}

export function fmtBytes(n) {
  if (n === null || n === undefined) return '—';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = Number(n);
  let i = 0;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i += 1; }
  return `${v.toFixed(i ? 1 : 0)} ${units[i]}`;
}

/** The one short form of an id, as the CLI prints it and takes back (docs/reference.md, "Ids"):
 * a UUID's last 8 characters (random in v4 and time-ordered v7 ids alike); another id (a table
 * format's snapshot id) whole, up to 24. */
export function shortId(id) {
  if (!id) return '—';
  const t = String(id);
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(t)) return t.slice(-8);
  return t.length > 24 ? `${t.slice(0, 23)}…` : t;
}

/** The id a dataset version is shown by (docs/reference.md, "Ids"): its dataset version (the
 * producer's own id, else the id of the run that wrote it), in short form; its UUID (the API's
 * `version`) only when that is all there is. */
export function shownVersion(v) {
  return shortId(v && (v.datasetVersion || v.version));
}

/** Duration of a run: durationMs when the server gives it, else endedAt - startedAt. */
export function runDuration(run) {
  if (run.durationMs !== null && run.durationMs !== undefined) return run.durationMs;
  if (run.startedAt && run.endedAt) return new Date(run.endedAt) - new Date(run.startedAt);
  return null;
}

/** Shorten a long name in the middle: keeps its start and its (more telling) end. */
export function middleEllipsis(text, max) {
  const t = String(text);
  if (t.length <= max) return t;
  const tail = Math.ceil((max - 1) * 0.6);
  return `${t.slice(0, max - 1 - tail)}…${t.slice(t.length - tail)}`;
}
