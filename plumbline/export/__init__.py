"""Export of the lineage SQL tables to files (``plumbline export``): Parquet, JSON Lines or CSV,
history tables partitioned by ``event_date``, incremental when run again, every file atomic.

Reads go through the store (:mod:`plumbline.store.read.sql_tables`); this package only writes
files. ``run.export_tables`` is the entry point; ``writers`` holds one writer per format.
"""

from plumbline.export.errors import ExportError
from plumbline.export.run import ExportResult, export_tables

__all__ = ["ExportError", "ExportResult", "export_tables"]
