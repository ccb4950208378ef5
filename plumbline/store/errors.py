"""Errors of the store package."""


class StoreError(Exception):
    """Base class of the store's errors."""


class SchemaTooNewError(StoreError):
    """The database was migrated by a newer version of plumbline."""
