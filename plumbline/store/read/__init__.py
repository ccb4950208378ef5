"""The store's read path: Marquez-shaped documents and the lineage graph walks (recursive SQL).

One module per concern; every function takes an open SQLAlchemy ``Connection`` and returns plain
JSON-ready dicts in Marquez's shapes, typed by :mod:`records`. Errors derive from
:class:`errors.ReadError`.

Other packages import the query modules listed in ``__all__`` (``from plumbline.store.read import
datasets``) and the errors; the other modules here (``common``, ``walks``, ``visibility``, …) are
internal to the store (the few of their names others need are re-exported by
:mod:`plumbline.store`).
"""

from plumbline.store.read.errors import InvalidArgumentError, NotFoundError, ReadError

__all__ = [
    "InvalidArgumentError",
    "NotFoundError",
    "ReadError",
    # query modules, one per kind of read
    "alerts",
    "baseline",  # a namespace's lineage for baselines and starter expectations
    "classifications",
    "column_lineage",
    "coverage",
    "datasets",
    "events",
    "export_reads",  # what `plumbline export` reads, in key order and batches
    "failed_runs",
    "impact",
    "jobs",
    "lineage",
    "namespaces",
    "pruned",
    "records",  # the typed records the queries return
    "rerun",
    "run_facts",
    "run_lineage",
    "runs",
    "search",
    "sql_tables",
    "stats",
    "stream_batches",
    "tags",
    "versions",
]
