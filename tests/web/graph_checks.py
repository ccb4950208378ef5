"""What a lineage graph as first opened must be, measured in the browser: every node's box inside
the canvas, every text shown at least 11 px tall on screen (issue 27, "The first screens")."""

from __future__ import annotations

from typing import Any

MIN_TEXT_PX = 11

MEASURE = """() => {
  const svg = document.querySelector('svg.graph');
  const canvas = svg.getBoundingClientRect();
  const k = svg.querySelector('g.viewport').getCTM().a;
  const outside = [...svg.querySelectorAll('g.node')].filter((g) => {
    const b = g.querySelector('.node-box').getBoundingClientRect();
    return b.left < canvas.left - 0.5 || b.top < canvas.top - 0.5
      || b.right > canvas.right + 0.5 || b.bottom > canvas.bottom + 0.5;
  }).map((g) => g.dataset.id);
  const texts = [...svg.querySelectorAll('text')]
    .filter((t) => t.textContent.trim() && t.getClientRects().length && getComputedStyle(t).display !== 'none')
    .map((t) => ({ text: t.textContent, px: parseFloat(getComputedStyle(t).fontSize) * k }));
  return { nodes: svg.querySelectorAll('g.node').length, outside, texts, scale: k,
    clamped: svg.dataset.clamped, direction: svg.dataset.direction };
}"""


def measure_graph(page: Any) -> dict[str, Any]:
    """The drawn graph's nodes outside the canvas and its texts' on-screen sizes."""
    return page.evaluate(MEASURE)  # type: ignore[no-any-return]


def assert_whole_and_readable(page: Any, where: str) -> dict[str, Any]:
    """Every node in view, every shown text at least MIN_TEXT_PX; the measurement."""
    m = measure_graph(page)
    assert m["nodes"] > 0, where
    assert m["outside"] == [], f"{where}: cut off {m['outside']}"
    small = [t for t in m["texts"] if t["px"] < MIN_TEXT_PX - 0.01]
    assert small == [], f"{where}: texts under {MIN_TEXT_PX} px: {small[:5]}"
    assert m["texts"], where
    assert m["clamped"] == "false", where
    return m
