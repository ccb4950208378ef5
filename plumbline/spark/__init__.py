"""plumbline.spark: lineage capture from PySpark's compiled plans, sent as OpenLineage events.

`enable(spark, url=..., namespace=..., api_key=..., transport=...)` switches it on for a session;
`plumbline run SCRIPT` does the same for every session a script creates.
`lineage_tables(spark, source)` registers the lineage SQL tables (an export folder or a
PostgreSQL store) in a Spark database, ``plumbline``.
"""

from plumbline.spark.capture import CaptureHandle, enable
from plumbline.spark.errors import CaptureError, PlanError, SettingsError
from plumbline.spark.tables import lineage_tables

__all__ = [
    "CaptureError",
    "CaptureHandle",
    "PlanError",
    "SettingsError",
    "enable",
    "lineage_tables",
]
