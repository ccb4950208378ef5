from __future__ import annotations

import pytest

from plumbline.openlineage.urls import lineage_endpoint, redact_url


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://127.0.0.1:5000", "http://127.0.0.1:5000/api/v1/lineage"),
        ("http://127.0.0.1:5000/", "http://127.0.0.1:5000/api/v1/lineage"),
        ("https://lineage.example.com", "https://lineage.example.com/api/v1/lineage"),
        ("  http://host:8080/  ", "http://host:8080/api/v1/lineage"),
        ("HTTP://Host:8080", "http://Host:8080/api/v1/lineage"),
        ("http://host?tenant=a", "http://host/api/v1/lineage?tenant=a"),
        ("http://host/api/v1/lineage", "http://host/api/v1/lineage"),
        ("http://host/custom/ingest", "http://host/custom/ingest"),
        ("http://host/custom/", "http://host/custom/"),
        ("http://host:5000/api/v1/namespaces/x", "http://host:5000/api/v1/namespaces/x"),
        ("https://user:pw@host/", "https://user:pw@host/api/v1/lineage"),
    ],
)
def test_lineage_endpoint_rule(url: str, expected: str) -> None:
    assert lineage_endpoint(url) == expected


@pytest.mark.parametrize(
    "url",
    [
        "ftp://host/",
        "file:///tmp/x",
        "host:5000",
        "127.0.0.1:5000",
        "",
        "http://",
        "http://[::1",
        "http://h:port/",
    ],
)
def test_lineage_endpoint_rejects_non_http_urls(url: str) -> None:
    with pytest.raises(ValueError):
        lineage_endpoint(url)


def test_lineage_endpoint_error_does_not_leak_credentials() -> None:
    with pytest.raises(ValueError) as info:
        lineage_endpoint("ftp://alice:s3cret@host/")
    assert "s3cret" not in str(info.value)
    assert "ftp://host/" in str(info.value)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://alice:s3cret@host:5000/api", "http://host:5000/api"),
        ("http://token@host/", "http://host/"),
        ("http://host/x?api_key=abc&ns=prod", "http://host/x?api_key=***&ns=prod"),
        (
            "http://host/x?access_token=abc&Signature=z&page=2",
            "http://host/x?access_token=***&Signature=***&page=2",
        ),
        ("http://host/x?password=p&user=bob", "http://host/x?password=***&user=bob"),
        ("http://host:5000", "http://host:5000"),
        ("http://[::1", "<invalid url>"),
    ],
)
def test_redact_url(url: str, expected: str) -> None:
    assert redact_url(url) == expected
