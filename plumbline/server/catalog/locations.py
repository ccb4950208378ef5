"""Dataset names <-> storage locations, in OpenLineage's naming convention.

Files: namespace ``file``, name the absolute path; ``hdfs://host:port`` and other URIs likewise;
object stores (``s3://bucket``, ``gs://``, ``wasbs://``, ``abfss://``) name the key without its
leading slash. The same rule as the Spark capture's ``plumbline.spark.datasets.from_location``
(not imported: the server never imports the capture).
"""

from __future__ import annotations

from urllib.parse import urlsplit

_OBJECT_STORES = ("s3", "gs", "wasbs", "abfss", "abfs")


def dataset_of_location(location: str) -> tuple[str, str]:
    """(namespace, name) of the dataset stored at ``location``."""
    parts = urlsplit(location.strip())
    scheme = parts.scheme.lower()
    path = parts.path.rstrip("/") or "/"
    if scheme in ("", "file", "local"):
        return "file", path
    if scheme in ("s3a", "s3n"):
        scheme = "s3"
    if scheme in _OBJECT_STORES:
        return f"{scheme}://{parts.hostname or ''}", path.lstrip("/") or "/"
    authority = parts.hostname or ""
    if parts.port:
        authority = f"{authority}:{parts.port}"
    return f"{scheme}://{authority}", path


def location_key(namespace: str, name: str) -> str:
    """A comparable form of a dataset's location: the dataset identity of it, as one string."""
    return f"{namespace}\x00{name}"


def key_of_location(location: str) -> str:
    """:func:`location_key` of the dataset stored at ``location``."""
    return location_key(*dataset_of_location(location))


def same_location(a: str, b: str) -> bool:
    """True when two URIs name the same place (``file:/x`` = ``file:///x/`` = ``/x``)."""
    return key_of_location(a) == key_of_location(b)


def relative_parts(location: str, root: str) -> list[str] | None:
    """The path segments of ``location`` below ``root``, or None when it is not below it."""
    ns, name = dataset_of_location(location)
    root_ns, root_name = dataset_of_location(root)
    if ns != root_ns:
        return None
    root_name = root_name.rstrip("/")
    if not (name + "/").startswith(root_name + "/") or name == root_name:
        return None
    return [part for part in name[len(root_name) :].split("/") if part]
