"""The store's handle: the one owner of its units of work (reads, writes, consistent snapshots).

Other packages hold a :class:`Store` and ask it for a unit of work, as datasette's
``Database.execute`` / ``execute_write_fn`` do; none of them opens a connection, begins a
transaction or branches on the database's dialect (``tests/test_store_units.py`` checks it).
Whatever differs between SQLite and PostgreSQL is decided here::

    store = Store.open(url)
    rows = store.read(lambda conn: read.datasets.list_datasets(conn, ...))
    store.write(lambda conn: write.tagging.tag_dataset(conn, ...))
    with store.snapshot() as conn:  # several reads that see one state of the store
        ...

The store's own functions that take the engine (``writer_for``, ``upgrade``, ``prune``, the
token functions) are handed :attr:`Store.engine`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from sqlalchemy.engine import Connection, Engine

from plumbline.store.engine import create_store_engine

T = TypeVar("T")


class Store:
    """A store (its engine and connection pool) and the units of work it runs."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    @classmethod
    def open(cls, url: str) -> Store:
        """The store at ``url`` (nothing connects yet; see :func:`create_store_engine`)."""
        return cls(create_store_engine(url))

    @property
    def is_sqlite(self) -> bool:
        """True when the store is an SQLite file (one writer process at a time)."""
        return self.engine.dialect.name == "sqlite"

    def dispose(self) -> None:
        """Close the pooled connections (a forked worker opens its own)."""
        self.engine.dispose()

    @contextmanager
    def connection(self) -> Iterator[Connection]:
        """A plain connection (no transaction begun by the store): for reads that need none,
        and for a check that the database answers."""
        with self.engine.connect() as conn:
            yield conn

    @contextmanager
    def reading(self) -> Iterator[Connection]:
        """A connection for reads. On PostgreSQL it runs in autocommit: at READ COMMITTED each
        statement takes its own snapshot anyway, so a transaction around the reads would only
        add its BEGIN and ROLLBACK round trips (SQLite's driver begins none for reads)."""
        with self.engine.connect() as conn:
            if conn.dialect.name == "postgresql":
                conn.execution_options(isolation_level="AUTOCOMMIT")
            yield conn

    @contextmanager
    def writing(self) -> Iterator[Connection]:
        """A connection in one transaction, committed when the block ends (rolled back when it
        raises): the change is visible to the next unit of work."""
        with self.engine.begin() as conn:
            yield conn

    @contextmanager
    def snapshot(self) -> Iterator[Connection]:
        """A connection whose reads see one state of the store: on PostgreSQL a REPEATABLE READ
        transaction (every statement sees the snapshot of the first); on SQLite a plain
        connection (writes to the file are one process's, serialized)."""
        with self.engine.connect() as conn:
            if conn.dialect.name == "postgresql":
                conn = conn.execution_options(isolation_level="REPEATABLE READ")
            yield conn

    def read(self, fn: Callable[[Connection], T]) -> T:
        """``fn(connection)`` in a :meth:`reading` connection; what it returns."""
        with self.reading() as conn:
            return fn(conn)

    def write(self, fn: Callable[[Connection], T]) -> T:
        """``fn(connection)`` in one committed transaction (:meth:`writing`); what it returns."""
        with self.writing() as conn:
            return fn(conn)
