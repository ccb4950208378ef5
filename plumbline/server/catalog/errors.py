"""Errors of catalog enrichment."""

from plumbline.errors import PlumblineError


class CatalogError(PlumblineError):
    """Base class: a catalog cannot be used or asked."""


class UnknownCatalogError(CatalogError):
    """No catalog of that name is configured."""


class UnknownTableError(CatalogError):
    """The catalog has no such table (or namespace)."""


class CatalogUnavailableError(CatalogError):
    """The catalog is configured but could not be opened or queried."""
