from __future__ import annotations

import pytest

from plumbline.transports import TransportConfig, TransportConfigError, TransportError


def test_defaults_are_console() -> None:
    config = TransportConfig()
    assert (config.type, config.url, config.api_key, config.path) == ("console", None, None, None)
    assert config.timeout == 5.0 and dict(config.headers) == {} and config.compression is None


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (
            {"type": "http", "url": "http://h:5000"},
            TransportConfig(type="http", url="http://h:5000"),
        ),
        (
            {
                "type": "HTTP",
                "url": "http://h",
                "apiKey": "k",
                "timeout": "2.5",
                "compression": "gzip",
            },
            TransportConfig(
                type="http", url="http://h", api_key="k", timeout=2.5, compression="gzip"
            ),
        ),
        (
            {"type": "http", "url": "http://h", "auth": {"type": "api_key", "apiKey": "k2"}},
            TransportConfig(type="http", url="http://h", api_key="k2"),
        ),
        (
            {"type": "http", "url": "http://h", "compression": "none"},
            TransportConfig(type="http", url="http://h"),
        ),
        (
            {"type": "file", "path": "/tmp/x.jsonl"},
            TransportConfig(type="file", path="/tmp/x.jsonl"),
        ),
        ({"type": "console", "url": None}, TransportConfig()),
        (
            {"type": "http", "url": "http://h", "headers": {"X-A": "1"}},
            TransportConfig(type="http", url="http://h", headers={"X-A": "1"}),
        ),
    ],
)
def test_from_dict(data: dict, expected: TransportConfig) -> None:
    assert TransportConfig.from_dict(data) == expected


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"type": "kafka"}, "transport type must be one of http, file, console, got 'kafka'"),
        ({"type": "http"}, "the http transport needs a url"),
        ({"type": "http", "url": "ftp://h"}, "transport url: not an http(s) URL: 'ftp://h'"),
        ({"type": "file"}, "the file transport needs a path"),
        (
            {"type": "http", "url": "http://h", "timeout": "soon"},
            "transport timeout must be a number, got 'soon'",
        ),
        (
            {"type": "http", "url": "http://h", "timeout": 0},
            "transport timeout must be positive, got 0",
        ),
        (
            {"type": "http", "url": "http://h", "compression": "zstd"},
            "transport compression must be 'gzip' or none, got 'zstd'",
        ),
        (
            {"type": "http", "url": "http://h", "headers": ["X-A"]},
            "transport headers must be a mapping of names to values",
        ),
        (
            {"type": "http", "url": "http://h", "headers": {"X-A": 1}},
            "transport header names and values must be strings",
        ),
        (
            {"type": "http", "url": "http://h", "auth": "k"},
            "transport auth must be a mapping with an apiKey",
        ),
        ({"tpye": "http"}, "unknown transport setting 'tpye'"),
    ],
)
def test_from_dict_rejects_bad_input(data: dict, message: str) -> None:
    with pytest.raises(TransportConfigError) as info:
        TransportConfig.from_dict(data)
    assert str(info.value).startswith(message)


def test_config_error_is_a_transport_error_and_a_value_error() -> None:
    with pytest.raises(TransportError):
        TransportConfig(type="file")
    with pytest.raises(ValueError):
        TransportConfig.from_dict("type=http")  # type: ignore[arg-type]


def test_endpoint_and_immutability() -> None:
    config = TransportConfig(type="http", url="http://h:1/", headers={"X-A": "1"})
    assert config.endpoint == "http://h:1/api/v1/lineage"
    assert TransportConfig().endpoint is None
    with pytest.raises(TypeError):
        config.headers["X-B"] = "2"  # type: ignore[index]
    with pytest.raises(AttributeError):
        config.url = "http://other"  # type: ignore[misc]
