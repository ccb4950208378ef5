"""Errors of the store package."""

from plumbline.errors import PlumblineError


class StoreError(PlumblineError):
    """Base class of the store's errors."""


class SchemaTooNewError(StoreError):
    """The database was migrated by a newer version of plumbline."""
