"""The rejected events of one `POST /api/v1/lineage`, as its answer lists them: bounded.

A body may hold a million rejected elements; the answer names the first
:data:`MAX_LISTED_REJECTED` by index (``rejected``), the reasons of the first ones
(``errors``: at most :data:`MAX_LISTED_ERRORS` items and :data:`MAX_ERRORS_BYTES` of text, each
message and field clipped), and counts the rest (``rejectedCount``, ``errorsOmitted``), so an
answer stays under 64 KiB however many elements were rejected (docs/reference.md, "Limits of a
request").
"""

from __future__ import annotations

from collections.abc import Iterable

from plumbline.server.errors import FieldError

MAX_LISTED_REJECTED = 1000  # indexes in ``rejected``
MAX_LISTED_ERRORS = 100  # items in ``errors``
MAX_ERRORS_BYTES = 32 * 1024  # their messages and fields, in all
MAX_MESSAGE = 1000  # characters of one message (longer: clipped, with "…")
MAX_FIELD = 300  # characters of one field path


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Rejections:
    """What one request rejected: every rejection counted, the first ones listed."""

    def __init__(self, is_batch: bool) -> None:
        self.is_batch = is_batch
        self.count = 0  # rejected elements
        self.refused = 0  # of them, rejected because the token may not write their namespaces
        self.indexes: list[int] = []  # the first MAX_LISTED_REJECTED
        self.errors: list[FieldError] = []
        self.omitted = 0  # rejected elements with reasons not (all) listed
        self._bytes = 0

    @property
    def wants_reasons(self) -> bool:
        """Whether another rejection's reasons would still be listed."""
        return len(self.errors) < MAX_LISTED_ERRORS and self._bytes < MAX_ERRORS_BYTES

    def add(
        self, index: int, reasons: Iterable[tuple[str | None, str]], refused: bool = False
    ) -> None:
        """Element ``index`` is rejected for ``reasons`` ((field, message) pairs)."""
        self.count += 1
        self.refused += refused
        if len(self.indexes) < MAX_LISTED_REJECTED:
            self.indexes.append(index)
        listed_all = True
        for field, message in reasons:
            if not self.wants_reasons:
                listed_all = False
                break
            field = None if field is None else _clip(field, MAX_FIELD)
            message = _clip(message, MAX_MESSAGE)
            self._bytes += len(message) + len(field or "") + 40  # the item's own JSON
            self.errors.append(FieldError(message, field, index if self.is_batch else None))
        if not listed_all:
            self.omitted += 1

    def add_unexplained(self, index: int) -> None:
        """Element ``index`` is rejected, its reasons not looked for (none would be listed)."""
        self.add(index, ())
        self.omitted += 1

    def summary(self) -> str:
        """What the listed errors leave out, for a message ("" when nothing)."""
        if not self.omitted and len(self.indexes) == self.count:
            return ""
        return (
            f" ({self.count:,} rejected; the answer lists the first {len(self.indexes):,} by "
            f"index and {len(self.errors)} reasons; {self.omitted:,} rejected events' reasons "
            "are not listed)"
        )
