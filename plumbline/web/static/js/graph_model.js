// The lineage graph as the explorer holds it: nodes by id and directed edges. Pure: no DOM.
//
// Built from the Marquez graph JSON ({graph: [{id, type, data, inEdges, outEdges}]}) and grown
// by merging more of it (expand one step upstream or downstream).

export class GraphModel {
  constructor() {
    this.nodes = new Map(); // id -> {id, type, data}
    this.edges = new Map(); // "from\0to" -> {from, to}
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
      for (const e of [...(n.inEdges || []), ...(n.outEdges || [])]) this.addEdge(e.origin, e.destination);
    }
    return added;
  }

  _known(id) {
    if (!this.known.has(id)) this.known.set(id, { in: new Set(), out: new Set() });
    return this.known.get(id);
  }

  addEdge(from, to) {
    if (!this.nodes.has(from) || !this.nodes.has(to) || from === to) return;
    this.edges.set(`${from}\u0000${to}`, { from, to });
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
