"""Keeps plumbline.transports.__all__ honest (the contract other packages code against)."""

from __future__ import annotations

import inspect

import plumbline.transports as transports

CONTRACT = {
    "AsyncEmitter",
    "EmitterStats",
    "Transport",
    "TransportConfig",
    "TransportConfigError",
    "TransportError",
    "create_transport",
}


def test_all_lists_the_contract_and_only_existing_public_names() -> None:
    assert CONTRACT <= set(transports.__all__)
    assert sorted(transports.__all__) == transports.__all__
    for name in transports.__all__:
        obj = getattr(transports, name)
        assert obj.__module__.startswith("plumbline.transports."), name


def test_contract_signatures() -> None:
    params = inspect.signature(transports.AsyncEmitter).parameters
    assert (
        params["max_queue"].default == 10_000
        and params["max_queue"].kind is params["max_queue"].KEYWORD_ONLY
    )
    assert params["spill_path"].default is None
    assert inspect.signature(transports.AsyncEmitter.close).parameters["timeout"].default == 10.0
    assert inspect.signature(transports.AsyncEmitter.flush).parameters["timeout"].default is None
    assert issubclass(transports.TransportConfigError, transports.TransportError)
    for cls in (transports.HttpTransport, transports.FileTransport, transports.ConsoleTransport):
        assert issubclass(cls, transports.Transport)  # runtime-checkable protocol: emit + close
