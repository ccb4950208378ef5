"""The store's write path: validated OpenLineage events in, normalized rows out (upserts).

Other packages use the names and modules in ``__all__``; the other modules are internal to the
store."""

from plumbline.store.write.normalizer import MAX_GROUP_BYTES, NormalizeError
from plumbline.store.write.writer import StoreWriter, WriteResult, writer_for

__all__ = [
    "MAX_GROUP_BYTES",  # the events' JSON the normalizer writes in one transaction, at most
    "NormalizeError",
    "StoreWriter",
    "WriteResult",
    "writer_for",
    # modules
    "alert_rules",  # the thresholds of change alerts (AlertRules) and their kinds
    "alerts",  # store, complete and acknowledge change alerts
    "classification_rules",  # what classifications follow (ClassificationRules), per engine
    "classify",  # classifications spread along column lineage: incremental and full recompute
    "freshness",  # the periodic freshness check
    "conflicts",  # conflicts between events: kinds and per-process counts
    "hiding",  # soft delete (hide) namespaces, datasets and jobs
    "history_rebuild",  # column-lineage history of runs from before 0012, from raw events
    "input_versions",  # the version each run input read; rebuilt for stores from before 0010
    "tagging",  # tag and untag datasets, fields and jobs
]
