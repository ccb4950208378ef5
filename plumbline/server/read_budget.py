"""The memory budget of analysis reads, shared by a server process's requests (issue 28 item 5).

An analysis read (lineage and column-lineage graphs, impact, rerun plan, run diff, root cause,
version lineage, upstream runs) walks up to the server's node cap and builds its answer in
memory: one root-cause read of a 4,950-node graph held 170-276 MiB (``bench/analysis_memory.py``).
Each reserves :data:`ANALYSIS_READ_BYTES` from a budget of :data:`ANALYSIS_MEMORY_BYTES` for as
long as it runs, so at most ``ANALYSIS_MEMORY_BYTES // ANALYSIS_READ_BYTES`` run at once; the next
waits, first come first served, up to 3 s, then is answered 503 with ``Retry-After``, as
ingestion's budget does (:mod:`plumbline.server.ingest_budget`, the same mechanism).
"""

from __future__ import annotations

from collections.abc import Iterator

from fastapi import Depends, Request

from plumbline.server.ingest_budget import IngestBudget
from plumbline.server.malloc import trim

MIB = 1024 * 1024
ANALYSIS_READ_BYTES = 256 * MIB  # what one analysis read may hold (bench/analysis_memory.py)
ANALYSIS_MEMORY_BYTES = 2 * ANALYSIS_READ_BYTES  # all analysis reads of a process at once


def analysis_budget() -> IngestBudget:
    """A server process's analysis read budget."""
    return IngestBudget(
        ANALYSIS_MEMORY_BYTES,
        standing=0,
        refusal="the server is answering as many analysis reads as its memory budget allows: "
        "retry in {seconds} s",
    )


def _hold_analysis_memory(request: Request) -> Iterator[None]:
    budget: IngestBudget = request.app.state.analysis_budget
    with budget.reservation() as held:
        held.reserve(ANALYSIS_READ_BYTES, wait=True)
        try:
            yield
        finally:
            trim()  # what the walk freed goes back to the system before the next one


AnalysisMemory = Depends(_hold_analysis_memory)
