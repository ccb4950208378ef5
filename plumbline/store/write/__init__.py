"""The store's write path: validated OpenLineage events in, normalized rows out (upserts)."""

from plumbline.store.write.normalizer import NormalizeError
from plumbline.store.write.writer import StoreWriter, WriteResult, writer_for

__all__ = ["NormalizeError", "StoreWriter", "WriteResult", "writer_for"]
