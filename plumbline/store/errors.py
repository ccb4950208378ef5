"""Errors of the store package."""

from plumbline.errors import PlumblineError


class StoreError(PlumblineError):
    """Base class of the store's errors."""


class SchemaTooNewError(StoreError):
    """The database was migrated by a newer version of plumbline."""


class UnsupportedDatabaseURLError(StoreError):
    """A database URL the store cannot use (not a URL, another database, a missing driver)."""
