"""The store's write path: validated OpenLineage events in, normalized rows out (upserts)."""

from plumbline.store.write.writer import StoreWriter, WriteResult, writer_for

__all__ = ["StoreWriter", "WriteResult", "writer_for"]
