// The lineage graph as the explorer holds it: nodes by id and directed edges. Pure: no DOM.
//
// Built from the Marquez graph JSON ({graph: [{id, type, data, inEdges, outEdges}]}) and grown
// by merging more of it (expand one step upstream or downstream).

export class GraphModel {
  constructor() {
    this.nodes = new Map(); // id -> {id, type, data}
    this.edges = new Map(); // "from\0to" -> {from, to, known?}: known, how the edge is known
    this.known = new Map(); // id -> {in: Set, out: Set} of neighbour ids the server reported
  }

  /** Add every node and edge of a Marquez graph response. Returns the ids that were new. */
  merge(graph, keep = () => true) {
    const added = [];
    for (const n of graph.graph || []) {
      if (!keep(n.id)) continue;
      if (!this.nodes.has(n.id)) added.push(n.id);
      this.nodes.set(n.id, { id: n.id, type: n.type, data: n.data || {} });
    }
    for (const n of graph.graph || []) {
      const k = this._known(n.id);
      for (const e of n.inEdges || []) k.in.add(e.origin);
      for (const e of n.outEdges || []) k.out.add(e.destination);
      for (const e of [...(n.inEdges || []), ...(n.outEdges || [])]) this.addEdge(e.origin, e.destination, edgeConfidence(e));
    }
    return added;
  }

  _known(id) {
    if (!this.known.has(id)) this.known.set(id, { in: new Set(), out: new Set() });
    return this.known.get(id);
  }

  addEdge(from, to, known = null) {
    if (!this.nodes.has(from) || !this.nodes.has(to) || from === to) return;
    const key = `${from}\u0000${to}`;
    const kept = (this.edges.get(key) || {}).known || null;
    this.edges.set(key, { from, to, known: known || kept });
  }

  preds(id) {
    const out = [];
    for (const e of this.edges.values()) if (e.to === id) out.push(e.from);
    return out;
  }

  succs(id) {
    const out = [];
    for (const e of this.edges.values()) if (e.from === id) out.push(e.to);
    return out;
  }

  /** Neighbours the server knows of that are not shown yet, per direction. */
  hidden(id) {
    const k = this.known.get(id) || { in: new Set(), out: new Set() };
    return {
      up: [...k.in].filter((x) => !this.nodes.has(x)).length,
      down: [...k.out].filter((x) => !this.nodes.has(x)).length,
    };
  }

  /** Nodes reachable from id following edges forward (down) or backward (up), id included. */
  reach(id, direction) {
    const adj = new Map();
    for (const e of this.edges.values()) {
      const [a, b] = direction === 'down' ? [e.from, e.to] : [e.to, e.from];
      if (!adj.has(a)) adj.set(a, []);
      adj.get(a).push(b);
    }
    const seen = new Set([id]);
    const stack = [id];
    while (stack.length) {
      const v = stack.pop();
      for (const w of adj.get(v) || []) if (!seen.has(w)) { seen.add(w); stack.push(w); }
    }
    return seen;
  }

  /** Drop the edges for which drop(edge) is true, then every node that is neither upstream nor
   * downstream of keepId any more. */
  prune(drop, keepId) {
    for (const [k, e] of this.edges) if (drop(e)) this.edges.delete(k);
    const linked = new Set([...this.reach(keepId, 'up'), ...this.reach(keepId, 'down')]);
    for (const id of [...this.nodes.keys()]) if (!linked.has(id)) this.nodes.delete(id);
    for (const [k, e] of this.edges) if (!linked.has(e.from) || !linked.has(e.to)) this.edges.delete(k);
  }

  /**
   * Nodes and edges on any directed path between a and b (either direction).
   * Empty sets when neither reaches the other.
   */
  pathBetween(a, b) {
    const nodes = new Set();
    for (const [s, t] of [[a, b], [b, a]]) {
      const down = this.reach(s, 'down');
      if (!down.has(t)) continue;
      const up = this.reach(t, 'up');
      for (const v of down) if (up.has(v)) nodes.add(v);
    }
    const edges = new Set();
    for (const [k, e] of this.edges) if (nodes.has(e.from) && nodes.has(e.to)) edges.add(k);
    return { nodes, edges };
  }
}

/**
 * A copy of a graph response without the edges for which drop(originNode, destNode) is true;
 * both ends of every edge are in the response, so each edge is judged with both nodes' data.
 */
export function filterEdges(graph, drop) {
  const byId = new Map((graph.graph || []).map((n) => [n.id, n]));
  const dropped = (e) => byId.has(e.origin) && byId.has(e.destination) && drop(byId.get(e.origin), byId.get(e.destination));
  return {
    ...graph,
    graph: (graph.graph || []).map((n) => ({
      ...n,
      inEdges: (n.inEdges || []).filter((e) => !dropped(e)),
      outEdges: (n.outEdges || []).filter((e) => !dropped(e)),
    })),
  };
}

/**
 * The part of a depth-1 lineage response that is one step from id in one direction:
 * the direct neighbours on that side (and id itself).
 */
export function oneStep(graph, id, direction) {
  const me = (graph.graph || []).find((n) => n.id === id);
  if (!me) return new Set([id]);
  const list = direction === 'up' ? (me.inEdges || []).map((e) => e.origin) : (me.outEdges || []).map((e) => e.destination);
  return new Set([id, ...list]);
}

/** How an edge is known (issue 31 §2), from an edge or a column-lineage input field:
 * {completeness, source, reasons, lastSeen}, or null when the server said nothing. */
export function edgeConfidence(e) {
  if (!e || !e.completeness) return null;
  return { completeness: e.completeness, source: e.edgeSource || null, reasons: e.completenessReasons || [], lastSeen: e.lastSeen || null };
}

/** The confidence of the column edge origin -> dest, from dest's inputFields. */
export function columnConfidence(destNode, originNode) {
  const inputs = (destNode && destNode.data && destNode.data.inputFields) || [];
  const o = (originNode && originNode.data) || {};
  return edgeConfidence(inputs.find((f) => f.namespace === o.namespace && f.dataset === o.dataset && f.field === o.field));
}

/** What hovering an edge says of its confidence: completeness, source, reasons, last seen. */
export function confidenceText(known) {
  if (!known) return '';
  const lines = [`${known.completeness}${known.source ? ` · from ${known.source}` : ''}`];
  for (const r of known.reasons || []) lines.push(r);
  if (known.lastSeen) lines.push(`last seen ${known.lastSeen}`);
  return lines.join('\n');
}

/** Transformation on the column edge origin -> dest, from dest's inputFields. */
export function columnTransformation(destNode, originNode) {
  const inputs = (destNode && destNode.data && destNode.data.inputFields) || [];
  const o = (originNode && originNode.data) || {};
  const hit = inputs.find((f) => f.namespace === o.namespace && f.dataset === o.dataset && f.field === o.field);
  if (!hit) return null;
  const t = Array.isArray(hit.transformations) && hit.transformations.length ? hit.transformations[0] : null;
  const type = (t && t.type) || hit.transformationType || null;
  const subtype = (t && t.subtype) || hit.transformationSubtype || null;
  return type || subtype ? { type, subtype, description: (t && t.description) || hit.transformationDescription || null } : null;
}

/** Neighbours shown per node and direction before the rest fold into a "+K more" node. */
export const FANOUT_LIMIT = 8;

/**
 * What to draw of model so that no node fans out to more than `limit` neighbours on one side.
 * The walk starts at focusId and follows data flow: from a downstream node its readers (walked on)
 * and its other inputs (drawn, not walked: siblings such as a join's other side), mirrored
 * upstream. Each node keeps its first `limit` new neighbours per side, those with neighbours further
 * on that side first, then by id (plus what `shown`
 * grants: key "id\0in|out" -> count, which also walks that side on); the others fold into one node
 * of type MORE (id "more:out:<id>" or "more:in:<id>", data {parent, side, count}). Nodes in
 * `pinned` stay, with the nodes on their path from the focus. Pure: returns {nodes, edges, more,
 * hidden(id)}, the shape GraphView draws; hidden(id) counts neighbours, per direction, that are
 * known (to the server or the model) but not drawn and not folded: what "expand" would show.
 * `reach` folds long chains: the walk goes on from nodes fewer than `reach` steps from the focus
 * only (what lies further folds into the "+K more" node of the last node drawn, as a wide fan-out
 * does; `shown` grants go further); the result's `depth` is the most steps walked.
 */
export function collapseFanouts(model, focusId, { limit = FANOUT_LIMIT, reach = Infinity, shown = new Map(), pinned = new Set() } = {}) {
  const outs = new Map();
  const ins = new Map();
  for (const e of model.edges.values()) {
    if (!outs.has(e.from)) outs.set(e.from, []);
    if (!ins.has(e.to)) ins.set(e.to, []);
    outs.get(e.from).push(e.to);
    ins.get(e.to).push(e.from);
  }
  const keep = new Set();
  for (const p of pinned) {
    if (!model.nodes.has(p)) continue;
    for (const id of model.pathBetween(focusId, p).nodes) keep.add(id);
    keep.add(p);
  }
  const start = model.nodes.has(focusId) ? focusId : model.nodes.keys().next().value;
  const mode = new Map(start === undefined ? [] : [[start, 'both']]);
  const steps = new Map(start === undefined ? [] : [[start, 0]]);
  let depth = 0;
  const queue = start === undefined ? [] : [start];
  const walked = new Set(); // "id\0side" whose neighbours were considered (and may be folded)
  while (queue.length) {
    const v = queue.shift();
    const m = mode.get(v);
    for (const [side, adj, onward] of [['out', outs, 'down'], ['in', ins, 'up']]) {
      const key = `${v}\u0000${side}`;
      const granted = shown.get(key) || 0;
      const along = m === 'both' || m === onward || granted > 0 || (m !== 'side' && keep.has(v));
      const beside = m === (onward === 'down' ? 'up' : 'down');
      if (!along && !beside) continue;
      walked.add(key);
      // Neighbours that lead further first (a table's writer before its DDL jobs), then by id.
      const leaf = (w) => ((adj.get(w) || []).length ? 0 : 1);
      const fresh = (adj.get(v) || []).filter((w) => !mode.has(w)).sort((a, b) => leaf(a) - leaf(b) || (a < b ? -1 : a > b ? 1 : 0));
      const far = along && !beside && granted === 0 && steps.get(v) >= reach;
      const room = far ? 0 : limit + granted;
      for (const [i, w] of fresh.entries()) {
        if (i >= room && !keep.has(w)) continue;
        mode.set(w, along || keep.has(w) ? onward : 'side');
        steps.set(w, steps.get(v) + 1);
        depth = Math.max(depth, steps.get(w));
        queue.push(w);
      }
    }
  }
  // Pinned nodes (and their paths) not reached through the folds are drawn too.
  for (const id of keep) if (!mode.has(id)) mode.set(id, 'side');
  const visible = new Set(mode.keys());
  const nodes = new Map();
  for (const id of visible) nodes.set(id, model.nodes.get(id));
  const edges = new Map();
  for (const [k, e] of model.edges) if (visible.has(e.from) && visible.has(e.to)) edges.set(k, e);
  const more = new Map();
  const folded = new Set();
  for (const key of walked) {
    const [id, side] = key.split('\u0000');
    const rest = ((side === 'out' ? outs : ins).get(id) || []).filter((w) => !visible.has(w));
    if (!rest.length) continue;
    const mid = `more:${side}:${id}`;
    for (const w of rest) folded.add(`${id}\u0000${w}`);
    more.set(mid, { parent: id, side, count: rest.length });
    nodes.set(mid, { id: mid, type: 'MORE', data: { parent: id, side, count: rest.length } });
    const [from, to] = side === 'out' ? [id, mid] : [mid, id];
    edges.set(`${from}\u0000${to}`, { from, to });
  }
  const hidden = (id) => {
    if (!model.nodes.has(id)) return { up: 0, down: 0 };
    const k = model.known.get(id) || { in: new Set(), out: new Set() };
    const count = (known, adj) => {
      let n = 0;
      for (const w of new Set([...known, ...(adj.get(id) || [])])) if (!visible.has(w) && !folded.has(`${id}\u0000${w}`)) n += 1;
      return n;
    };
    return { up: count(k.in, ins), down: count(k.out, outs) };
  };
  return { nodes, edges, more, hidden, depth };
}
