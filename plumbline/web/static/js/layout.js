// Layered (Sugiyama-style) graph layout, left to right (direction 'LR', the default) or top to
// bottom ('TB'). Pure: no DOM.
//
//   layout(nodes, edges, options) -> {nodes: Map(id -> {x, y, width, height, layer, order}),
//                                     edges: [{from, to, points: [[x, y], ...]}], width, height,
//                                     layers, direction}
//
// Steps: break cycles (reverse DFS back edges), longest-path layering, dummy nodes on long
// edges, barycenter ordering sweeps (keeping the order with the fewest crossings), placement
// across the layers pulled towards neighbours, and edge routes through the dummy positions.
// Top to bottom is the left-to-right layout of the transposed boxes, transposed back.

const DEFAULTS = { layerGap: 90, nodeGap: 18, sweeps: 6, marginX: 40, marginY: 40, dummyHeight: 8, direction: 'LR' };

export function layout(nodeList, edgeList, options = {}) {
  const opt = { ...DEFAULTS, ...options };
  if (opt.direction === 'TB') return transpose(layoutLR(nodeList.map((n) => ({ ...n, width: n.height, height: n.width })), edgeList,
    { ...opt, marginX: opt.marginY, marginY: opt.marginX }));
  return layoutLR(nodeList, edgeList, opt);
}

function transpose(r) {
  const nodes = new Map();
  for (const [id, p] of r.nodes) nodes.set(id, { ...p, x: p.y, y: p.x, width: p.height, height: p.width });
  const edges = r.edges.map((e) => ({ ...e, points: e.points.map(([x, y]) => [y, x]) }));
  return { nodes, edges, width: r.height, height: r.width, layers: r.layers, direction: 'TB' };
}

function layoutLR(nodeList, edgeList, opt) {
  const ids = nodeList.map((n) => n.id);
  const size = new Map(nodeList.map((n) => [n.id, { width: n.width, height: n.height }]));
  const edges = dedupeEdges(edgeList, size);
  const dag = breakCycles(ids, edges);
  const layer = assignLayers(ids, dag);
  const { order, chains } = buildLayers(ids, dag, layer, size, opt);
  orderLayers(order, opt.sweeps);
  const pos = placeNodes(order, size, opt);
  return route(nodeList, edges, chains, pos, order, opt);
}

function dedupeEdges(edgeList, size) {
  const seen = new Set();
  const out = [];
  for (const e of edgeList) {
    if (!size.has(e.from) || !size.has(e.to) || e.from === e.to) continue;
    const key = `${e.from}\u0000${e.to}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ from: e.from, to: e.to });
  }
  return out;
}

/** Edges of an acyclic version of the graph: DFS back edges reversed (marked reversed). */
export function breakCycles(ids, edges) {
  const out = new Map(ids.map((id) => [id, []]));
  for (const e of edges) out.get(e.from).push(e.to);
  const state = new Map(); // 1 = on stack, 2 = done
  const back = new Set();
  for (const root of ids) {
    if (state.has(root)) continue;
    // Iterative DFS: recursion would overflow on long chains of 1,000 nodes.
    const stack = [[root, 0]];
    state.set(root, 1);
    while (stack.length) {
      const top = stack[stack.length - 1];
      const [v, i] = top;
      const succ = out.get(v);
      if (i < succ.length) {
        top[1] += 1;
        const w = succ[i];
        const st = state.get(w);
        if (st === 1) back.add(`${v}\u0000${w}`);
        else if (!st) { state.set(w, 1); stack.push([w, 0]); }
      } else {
        state.set(v, 2);
        stack.pop();
      }
    }
  }
  const dag = [];
  const seen = new Set();
  for (const e of edges) {
    const rev = back.has(`${e.from}\u0000${e.to}`);
    const d = rev ? { from: e.to, to: e.from, reversed: true } : { from: e.from, to: e.to, reversed: false };
    const key = `${d.from}\u0000${d.to}`;
    if (seen.has(key)) continue; // a<->b pairs collapse into one layering constraint
    seen.add(key);
    dag.push(d);
  }
  return dag;
}

/** Longest-path layering from the sources; sources then move right next to their first successor. */
export function assignLayers(ids, dag) {
  const preds = new Map(ids.map((id) => [id, []]));
  const succs = new Map(ids.map((id) => [id, []]));
  const indeg = new Map(ids.map((id) => [id, 0]));
  for (const e of dag) {
    preds.get(e.to).push(e.from);
    succs.get(e.from).push(e.to);
    indeg.set(e.to, indeg.get(e.to) + 1);
  }
  const layer = new Map();
  const queue = ids.filter((id) => indeg.get(id) === 0);
  for (let qi = 0; qi < queue.length; qi += 1) {
    const v = queue[qi];
    let l = 0;
    for (const p of preds.get(v)) l = Math.max(l, layer.get(p) + 1);
    layer.set(v, l);
    for (const w of succs.get(v)) {
      indeg.set(w, indeg.get(w) - 1);
      if (indeg.get(w) === 0) queue.push(w);
    }
  }
  // Sources feeding only deep nodes: place them just before their nearest successor.
  for (const v of ids) {
    if (preds.get(v).length || !succs.get(v).length) continue;
    let m = Infinity;
    for (const w of succs.get(v)) m = Math.min(m, layer.get(w));
    layer.set(v, m - 1);
  }
  return layer;
}

/** Layers as arrays of vertices (real and dummy), with chains of dummies for long edges. */
function buildLayers(ids, dag, layer, size, opt) {
  const maxLayer = Math.max(0, ...ids.map((id) => layer.get(id)));
  const order = Array.from({ length: maxLayer + 1 }, () => []);
  const vertex = new Map();
  for (const id of ids) {
    const v = { id, dummy: false, layer: layer.get(id), up: [], down: [], pos: 0 };
    vertex.set(id, v);
  }
  // Initial order: BFS from sources so connected nodes start near each other.
  const succ = new Map(ids.map((id) => [id, []]));
  for (const e of dag) succ.get(e.from).push(e.to);
  const seen = new Set();
  const visit = [];
  const roots = ids.filter((id) => layer.get(id) === 0).concat(ids);
  for (const r of roots) {
    if (seen.has(r)) continue;
    seen.add(r);
    const q = [r];
    for (let i = 0; i < q.length; i += 1) {
      visit.push(q[i]);
      for (const w of succ.get(q[i])) if (!seen.has(w)) { seen.add(w); q.push(w); }
    }
  }
  for (const id of visit) order[layer.get(id)].push(vertex.get(id));
  const chains = new Map();
  let dummyCount = 0;
  for (const e of dag) {
    const a = vertex.get(e.from);
    const b = vertex.get(e.to);
    const chain = [];
    let prev = a;
    for (let l = a.layer + 1; l < b.layer; l += 1) {
      const d = { id: `\u0000d${dummyCount++}`, dummy: true, layer: l, up: [], down: [], pos: 0 };
      size.set(d.id, { width: 0, height: opt.dummyHeight });
      order[l].push(d);
      prev.down.push(d);
      d.up.push(prev);
      chain.push(d);
      prev = d;
    }
    prev.down.push(b);
    b.up.push(prev);
    chains.set(`${e.from}\u0000${e.to}`, chain);
  }
  order.forEach((row) => row.forEach((v, i) => { v.pos = i; }));
  return { order, chains };
}

/** Barycenter sweeps down and up; keeps the best ordering seen. */
function orderLayers(order, sweeps) {
  let best = order.map((row) => row.slice());
  let bestCross = countCrossings(order);
  for (let it = 0; it < sweeps && bestCross > 0; it += 1) {
    const down = it % 2 === 0;
    const range = down ? order.map((_, i) => i).slice(1) : order.map((_, i) => i).reverse().slice(1);
    for (const l of range) {
      const row = order[l];
      for (const v of row) {
        const nb = down ? v.up : v.down;
        v.bary = nb.length ? nb.reduce((acc, u) => acc + u.pos, 0) / nb.length : v.pos;
      }
      row.sort((a, b) => a.bary - b.bary || a.pos - b.pos);
      row.forEach((v, i) => { v.pos = i; });
    }
    const c = countCrossings(order);
    if (c < bestCross) {
      bestCross = c;
      best = order.map((row) => row.slice());
    }
  }
  best.forEach((row, l) => {
    order[l] = row;
    row.forEach((v, i) => { v.pos = i; });
  });
}

/** Edge crossings between adjacent layers, by counting inversions (Fenwick tree). */
export function countCrossings(order) {
  let total = 0;
  for (let l = 0; l + 1 < order.length; l += 1) {
    const pairs = [];
    for (const v of order[l]) for (const w of v.down) pairs.push([v.pos, w.pos]);
    pairs.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    const n = order[l + 1].length + 1;
    const tree = new Array(n + 1).fill(0);
    let seen = 0;
    for (const [, b] of pairs) {
      let greaterOrEqual = seen;
      for (let i = b + 1; i > 0; i -= i & -i) greaterOrEqual -= tree[i];
      total += greaterOrEqual;
      for (let i = b + 1; i <= n; i += i & -i) tree[i] += 1;
      seen += 1;
    }
  }
  return total;
}

/** x from the layer; y stacked in order, then pulled towards the neighbours' centres. */
function placeNodes(order, size, opt) {
  const layerWidth = order.map((row) => Math.max(0, ...row.map((v) => size.get(v.id).width)));
  const xs = [];
  let x = opt.marginX;
  for (let l = 0; l < order.length; l += 1) {
    xs.push(x);
    x += layerWidth[l] + opt.layerGap;
  }
  const y = new Map();
  const h = (v) => size.get(v.id).height;
  const gap = (a, b) => (a.dummy && b.dummy ? opt.nodeGap / 3 : opt.nodeGap);
  for (const row of order) {
    let acc = 0;
    for (const v of row) { y.set(v, acc + h(v) / 2); acc += h(v) + opt.nodeGap; }
  }
  const center = (v) => y.get(v);
  for (let it = 0; it < 8; it += 1) {
    const down = it % 2 === 0;
    const layers = down ? order.map((_, i) => i) : order.map((_, i) => i).reverse();
    for (const l of layers) {
      const row = order[l];
      const want = row.map((v) => {
        const nb = (down ? v.up : v.down).concat(it > 3 ? (down ? v.down : v.up) : []);
        return nb.length ? nb.reduce((a, u) => a + center(u), 0) / nb.length : center(v);
      });
      // Push overlapping nodes down (forward) and up (backward) from where they want to be,
      // then average: both keep the order and spacing, so their mean does too.
      const fwd = want.slice();
      for (let i = 1; i < row.length; i += 1) {
        const min = fwd[i - 1] + h(row[i - 1]) / 2 + gap(row[i - 1], row[i]) + h(row[i]) / 2;
        if (fwd[i] < min) fwd[i] = min;
      }
      const bwd = want.slice();
      for (let i = row.length - 2; i >= 0; i -= 1) {
        const max = bwd[i + 1] - h(row[i + 1]) / 2 - gap(row[i], row[i + 1]) - h(row[i]) / 2;
        if (bwd[i] > max) bwd[i] = max;
      }
      const out = fwd.map((f, i) => (f + bwd[i]) / 2);
      row.forEach((v, i) => y.set(v, out[i]));
    }
  }
  let minY = Infinity;
  for (const row of order) for (const v of row) minY = Math.min(minY, y.get(v) - h(v) / 2);
  const pos = new Map();
  order.forEach((row, l) => row.forEach((v) => {
    const sz = size.get(v.id);
    const cx = xs[l] + (layerWidth[l] - sz.width) / 2;
    pos.set(v.id, { x: cx, y: y.get(v) - sz.height / 2 - minY + opt.marginY, width: sz.width, height: sz.height, layer: l, order: v.pos });
  }));
  return pos;
}

function route(nodeList, edges, chains, pos, order, opt) {
  const nodes = new Map();
  let width = 0;
  let height = 0;
  for (const n of nodeList) {
    const p = pos.get(n.id);
    nodes.set(n.id, p);
    width = Math.max(width, p.x + p.width);
    height = Math.max(height, p.y + p.height);
  }
  const out = [];
  for (const e of edges) {
    const key = `${e.from}\u0000${e.to}`;
    const revKey = `${e.to}\u0000${e.from}`;
    const forward = chains.has(key);
    const chain = forward ? chains.get(key) : (chains.get(revKey) || []).slice().reverse();
    const a = nodes.get(e.from);
    const b = nodes.get(e.to);
    const mid = chain.map((d) => { const p = pos.get(d.id); return [p.x, p.y + p.height / 2]; });
    let points;
    if (forward) {
      points = [[a.x + a.width, a.y + a.height / 2], ...mid, [b.x, b.y + b.height / 2]];
    } else {
      // A reversed (cycle) edge runs right to left: leave from the left side, enter from the right.
      points = [[a.x, a.y + a.height / 2], ...mid, [b.x + b.width, b.y + b.height / 2]];
    }
    out.push({ from: e.from, to: e.to, points, reversed: !forward });
  }
  return { nodes, edges: out, width: width + opt.marginX, height: height + opt.marginY, layers: order.length, direction: 'LR' };
}

/** SVG path through points: cubic beziers between consecutive points, their tangents along the
 * layout's direction (horizontal for 'LR', vertical for 'TB'). */
export function edgePath(points, direction = 'LR') {
  let d = `M${points[0][0].toFixed(1)},${points[0][1].toFixed(1)}`;
  for (let i = 1; i < points.length; i += 1) {
    const [x0, y0] = points[i - 1];
    const [x1, y1] = points[i];
    if (direction === 'TB') {
      const dy = (y1 - y0) / 2;
      d += ` C${x0.toFixed(1)},${(y0 + dy).toFixed(1)} ${x1.toFixed(1)},${(y1 - dy).toFixed(1)} ${x1.toFixed(1)},${y1.toFixed(1)}`;
    } else {
      const dx = (x1 - x0) / 2;
      d += ` C${(x0 + dx).toFixed(1)},${y0.toFixed(1)} ${(x1 - dx).toFixed(1)},${y1.toFixed(1)} ${x1.toFixed(1)},${y1.toFixed(1)}`;
    }
  }
  return d;
}
