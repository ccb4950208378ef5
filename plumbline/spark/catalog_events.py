"""Which tables each SQL execution created, dropped or renamed, from Spark's catalog events.

Spark's session catalog posts an event for every table it creates, drops or renames
(`ExternalCatalogWithListener`), synchronously on the thread that runs the statement, where the
SQL execution id is a local property. Recording them per execution tells an `IF [NOT] EXISTS`
statement that changed nothing from one that did, which neither its plan nor a later look at the
catalog can, and which tables a statement the capture does not model changed (so that its memory
of them is dropped). Only DDL (and table statistics updates) fire these events, so the py4j
call-back costs two round trips per DDL.
"""

from __future__ import annotations

import logging
import re
import threading
from typing import Any

log = logging.getLogger(__name__)

_EVENT = re.compile(
    r"^(CreateTableEvent|DropTableEvent|RenameTableEvent|AlterTableEvent)\((.*)\)$", re.S
)
_EXECUTION_ID = "spark.sql.execution.id"

Change = tuple[str, str, str]  # (event class, database, table), lower case


class CatalogEventRecorder:
    """py4j ExternalCatalogEventListener recording table changes by SQL execution id (bounded)."""

    class Java:
        implements = ["org.apache.spark.sql.catalyst.catalog.ExternalCatalogEventListener"]

    def __init__(self, spark_context: Any, limit: int = 1000) -> None:
        self._context = spark_context  # the JVM SparkContext
        self._limit = limit
        self._lock = threading.Lock()
        self._changes: dict[int, set[Change]] = {}
        self.active = True
        self.calls = 0  # every call Spark made into this listener

    def onEvent(self, event: Any) -> None:  # noqa: N802 - Java interface name
        """Called by Spark on the statement's thread; never raises into Spark."""
        self.calls += 1
        try:
            if not self.active:
                return
            match = _EVENT.match(str(event.toString()))  # e.g. "CreateTableEvent(default,t)"
            if match is None:
                return
            execution = self._context.getLocalProperty(_EXECUTION_ID)
            if execution is None:
                return
            database, table = (p.strip().lower() for p in match.group(2).split(",")[:2])
            with self._lock:
                self._changes.setdefault(int(execution), set()).add(
                    (match.group(1), database, table)
                )
                while len(self._changes) > self._limit:
                    self._changes.pop(next(iter(self._changes)))
        except Exception:
            log.debug("plumbline could not record a catalog event", exc_info=True)

    def equals(self, other: Any) -> bool:
        """Java's `Object.equals` on the proxy, asked while Spark removes a listener: the JVM
        compares identity first, so whatever reaches this method is another object."""
        return False

    def hashCode(self) -> int:  # noqa: N802 - Java method name
        """Java's `Object.hashCode` on the proxy (identity-based, like Java's)."""
        return id(self) & 0x7FFFFFFF

    def take(self, execution_id: int) -> set[Change]:
        """The changes recorded for an execution (forgotten afterwards)."""
        with self._lock:
            return self._changes.pop(execution_id, set())


class Attached:
    """A recorder listening to a catalog; `detach()` stops it."""

    def __init__(self, recorder: CatalogEventRecorder, catalog: Any, proxy: Any) -> None:
        self.recorder, self._catalog, self._proxy = recorder, catalog, proxy

    def take(self, execution_id: int) -> set[Change]:
        """The changes recorded for an execution (forgotten afterwards)."""
        return self.recorder.take(execution_id)

    def detach(self) -> None:
        """Stop recording and remove the listener from the catalog (errors logged)."""
        self.recorder.active = False
        try:
            self._catalog.removeListener(self._proxy)
        except Exception:
            log.debug("could not remove the catalog listener", exc_info=True)


def attach(session: Any, jvm_view: Any) -> Attached | None:
    """Record the catalog events of `session`'s shared catalog; None if that is not possible."""
    try:
        recorder = CatalogEventRecorder(session.sparkContext())
        # one JVM proxy, kept: passing the Python object again would make a new proxy that the
        # catalog could not remove
        proxy = jvm_view.java.util.Collections.singletonList(recorder).get(0)
        catalog = session.sharedState().externalCatalog()
        catalog.addListener(proxy)
        return Attached(recorder, catalog, proxy)
    except Exception:
        log.warning(
            "plumbline cannot follow Spark's catalog events; IF [NOT] EXISTS statements will "
            "be reported as changes",
            exc_info=True,
        )
        return None
