"""Errors of the read path (a branch of the store's :class:`StoreError` hierarchy)."""

from __future__ import annotations

from plumbline.store.errors import StoreError


class ReadError(StoreError):
    """Base class of the read path's errors."""


class NotFoundError(ReadError):
    """The namespace, dataset, job, run, version or node asked for does not exist (or is hidden)."""


class InvalidArgumentError(ReadError):
    """A parameter cannot be understood (a malformed node id, an unknown period, a bad time zone)."""
