// Client of the Marquez-compatible read API served under /api/v1.
import { askForToken, clearToken, getToken } from './auth.js';

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

const enc = encodeURIComponent;

/** GET /api/v1{path} with query params; asks for a token on 401 and retries. */
export async function get(path, params = {}, signal) {
  const url = new URL(`/api/v1${path}`, window.location.origin);
  for (const [k, v] of Object.entries(params)) {
    if (v !== null && v !== undefined && v !== '') url.searchParams.set(k, v);
  }
  return send(url, 'GET', signal);
}

/** POST /api/v1{path} (no body), as get() does. */
export async function post(path) {
  return send(new URL(`/api/v1${path}`, window.location.origin), 'POST');
}

async function send(url, method, signal) {
  let rejected = false;
  for (;;) {
    const headers = { Accept: 'application/json' };
    const token = getToken();
    if (token) headers.Authorization = `Bearer ${token}`;
    let res;
    try {
      res = await fetch(url, { method, headers, signal });
    } catch (err) {
      if (err.name === 'AbortError') throw err;
      throw new ApiError(0, `The server could not be reached (${err.message}).`);
    }
    if (res.status === 401) {
      if (token) { clearToken(); rejected = true; }
      await askForToken(rejected);
      continue;
    }
    if (!res.ok) throw new ApiError(res.status, await errorMessage(res));
    return res.json();
  }
}

async function errorMessage(res) {
  try {
    const body = await res.json();
    if (body && body.message) return body.message;
    if (body && body.detail) return typeof body.detail === 'string' ? body.detail : JSON.stringify(body.detail);
  } catch { /* not JSON */ }
  return `${res.status} ${res.statusText}`;
}

export const datasetPath = (ns, name) => `/namespaces/${enc(ns)}/datasets/${enc(name)}`;
export const jobPath = (ns, name) => `/namespaces/${enc(ns)}/jobs/${enc(name)}`;

export const api = {
  search: (q, filter, limit = 10, signal) => get('/search', { q, filter, limit }, signal),
  lineage: (nodeId, depth) => get('/lineage', { nodeId, depth }),
  columnLineage: (nodeId, depth) => get('/column-lineage', { nodeId, depth, withDownstream: 'true' }),
  namespaces: () => get('/namespaces'),
  datasets: (ns, limit = 100) => get(`/namespaces/${enc(ns)}/datasets`, { limit }),
  jobs: (ns, limit = 100) => get(`/namespaces/${enc(ns)}/jobs`, { limit }),
  dataset: (ns, name) => get(datasetPath(ns, name)),
  datasetVersions: (ns, name, limit = 50) => get(`${datasetPath(ns, name)}/versions`, { limit }),
  job: (ns, name) => get(jobPath(ns, name)),
  jobRuns: (ns, name, limit = 50) => get(`${jobPath(ns, name)}/runs`, { limit }),
  jobVersions: (ns, name, limit = 50) => get(`${jobPath(ns, name)}/versions`, { limit }),
  run: (id) => get(`/jobs/runs/${enc(id)}`),
  runFacets: (id, type) => get(`/jobs/runs/${enc(id)}/facets`, { type }),
  runBatches: (id, limit = 100, offset = 0) => get(`/jobs/runs/${enc(id)}/batches`, { limit, offset }),
  events: (params) => get('/events/lineage', params),
  impact: (nodeId, direction, depth) => get('/impact', { nodeId, direction, depth }),
  runDiff: (id, against) => get(`/jobs/runs/${enc(id)}/diff`, { against }),
  rootCause: (id) => get(`/jobs/runs/${enc(id)}/root-cause`),
  alerts: (params) => get('/alerts', params),
  ackAlert: (id) => post(`/alerts/${enc(id)}/ack`),
  coverage: (params) => get('/coverage', params),
  versionLineage: (ns, name, version, direction, depth) => get(`${datasetPath(ns, name)}/versions/${enc(version)}/lineage`, { direction, depth }),
};

/** The URL of an API answer (for export links): /api/v1{path}?params. */
export function apiUrl(path, params = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined && v !== '') q.set(k, v);
  const qs = q.toString();
  return `/api/v1${path}${qs ? `?${qs}` : ''}`;
}

/**
 * Save an API answer as a file. A plain link cannot send the session's token, so with a token the
 * answer is fetched here and handed to the browser as a blob.
 */
export async function download(url, filename) {
  const token = getToken();
  const res = await fetch(url, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  if (!res.ok) throw new ApiError(res.status, await errorMessage(res));
  const blob = await res.blob();
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  return true;
}

/** UI URLs (deep links). Names contain '/' and ':', so each part is one encoded segment. */
export const links = {
  dataset: (ns, name) => `/datasets/${enc(ns)}/${enc(name)}`,
  job: (ns, name) => `/jobs/${enc(ns)}/${enc(name)}`,
  run: (id) => `/runs/${enc(id)}`,
  runDiff: (id, against) => `/runs/${enc(id)}/diff${against ? `?against=${enc(against)}` : ''}`,
  impact: (node, direction = 'downstream', extra = {}) => `/impact?${new URLSearchParams({ node, direction, ...extra })}`,
  lineage: (node, extra = {}) => {
    const q = new URLSearchParams({ node, ...extra });
    return `/lineage?${q}`;
  },
  node: (nodeId) => {
    const p = parseNodeId(nodeId);
    if (!p) return null;
    return p.type === 'JOB' ? links.job(p.namespace, p.name) : links.dataset(p.namespace, p.name);
  },
};

/**
 * Split a node id "dataset:NS:NAME" / "job:NS:NAME" / "datasetField:NS:NAME:FIELD".
 * Namespaces may contain ':' (e.g. "postgres://host:5432"), so the namespace is matched
 * greedily only when the data of the node cannot tell; callers prefer node.data when present.
 */
export function parseNodeId(id) {
  const m = /^(dataset|job|datasetField):(.*)$/.exec(id || '');
  if (!m) return null;
  const type = m[1] === 'job' ? 'JOB' : m[1] === 'dataset' ? 'DATASET' : 'DATASET_FIELD';
  const rest = m[2];
  const i = splitNamespace(rest);
  const namespace = rest.slice(0, i);
  let name = rest.slice(i + 1);
  let field = null;
  if (type === 'DATASET_FIELD') {
    const j = name.lastIndexOf(':');
    field = name.slice(j + 1);
    name = name.slice(0, j);
  }
  return { type, namespace, name, field };
}

function splitNamespace(rest) {
  // A namespace URI like "s3://bucket" or "postgres://h:5432" has "://": its ':' are its own,
  // up to the first ':' after the authority.
  const scheme = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/:]*(:\d+)?/.exec(rest);
  if (scheme) {
    const after = rest.indexOf(':', scheme[0].length);
    if (after >= 0) return after;
  }
  return rest.indexOf(':');
}

export const nodeIds = {
  dataset: (ns, name) => `dataset:${ns}:${name}`,
  job: (ns, name) => `job:${ns}:${name}`,
  field: (ns, name, field) => `datasetField:${ns}:${name}:${field}`,
};
