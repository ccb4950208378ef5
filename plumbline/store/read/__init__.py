"""The store's read path: Marquez-shaped documents and the lineage graph walks (recursive SQL).

One module per concern; every function takes an open SQLAlchemy ``Connection`` and returns plain
JSON-ready dicts in Marquez's shapes. Errors derive from :class:`errors.ReadError`.
"""

from plumbline.store.read.errors import InvalidArgumentError, NotFoundError, ReadError

__all__ = ["InvalidArgumentError", "NotFoundError", "ReadError"]
