"""The live handlers of output commands, by the name `vocabulary.OUTPUT_COMMANDS` gives them.

Each command that writes or changes a dataset is one entry of `vocabulary.OUTPUT_COMMANDS`: its
kind, and the names of its live handler (here) and of its event-log handler
(`plumbline.eventlogs.outputs`). A live handler takes the extraction of the command's execution
(`extract._Extraction`: the session, the analyzed plan as a JVM object and as `plan.Node`, the
inputs read, the lineage walker, the capture's `TableMemory`) and returns the dataset the command
writes, or None. Handlers register with `@live_output("name")` in the module that knows the
command (`extract.py`: writes; `ddl.py`: DDL; `formats.py`: table formats' commands).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from plumbline.spark.facts import DatasetFacts

LiveHandler = Callable[[Any], "DatasetFacts | None"]
LIVE_OUTPUTS: dict[str, LiveHandler] = {}


def live_output(name: str) -> Callable[[LiveHandler], LiveHandler]:
    """Register the live handler `name` (the `live` of vocabulary.OUTPUT_COMMANDS entries)."""

    def register(handler: LiveHandler) -> LiveHandler:
        if name in LIVE_OUTPUTS:
            raise ValueError(f"two live handlers named {name}")
        LIVE_OUTPUTS[name] = handler
        return handler

    return register
