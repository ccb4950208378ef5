// Difference between two schemas (lists of {name, type}). Pure.

/** Fields added, removed and whose type changed going from before to after. */
export function schemaDiff(before, after) {
  const a = new Map((before || []).map((f) => [f.name, f]));
  const b = new Map((after || []).map((f) => [f.name, f]));
  const added = [...b.values()].filter((f) => !a.has(f.name));
  const removed = [...a.values()].filter((f) => !b.has(f.name));
  const changed = [...b.values()]
    .filter((f) => a.has(f.name) && (a.get(f.name).type || null) !== (f.type || null))
    .map((f) => ({ name: f.name, from: a.get(f.name).type || null, to: f.type || null }));
  return { added, removed, changed, same: !added.length && !removed.length && !changed.length };
}
