"""Full garbage collections on a timer (plumbline.server.gc_schedule), in this process."""

from __future__ import annotations

import gc
import threading
import time
import weakref
from collections.abc import Callable, Iterator

import pytest

from plumbline.server.gc_schedule import schedule_full_collections, stop_full_collections


@pytest.fixture(autouse=True)
def no_other_schedule() -> Iterator[None]:
    """Tests of this file start with CPython's own thresholds (the demo, run in this process by
    other tests, may have scheduled collections); a schedule found is put back afterwards."""
    was_running = stop_full_collections()
    yield
    stop_full_collections()
    if was_running:
        schedule_full_collections()


class _Cycle:
    """An object in a reference cycle: only the cyclic collector frees it."""

    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def full_collections() -> Iterator[list[tuple[int, str]]]:
    """(generation, thread name) of every collection while the schedule runs every 50 ms."""
    seen: list[tuple[int, str]] = []

    def record(phase: str, info: dict[str, int]) -> None:
        if phase == "stop":
            seen.append((info["generation"], threading.current_thread().name))

    before = gc.get_threshold()
    gc.callbacks.append(record)
    stop = schedule_full_collections(interval=0.05)
    try:
        yield seen
    finally:
        stop()
        gc.callbacks.remove(record)
    assert gc.get_threshold() == before


def _wait_for(condition: Callable[[], bool], seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return False


def test_only_the_timer_collects_the_oldest_generation(
    full_collections: list[tuple[int, str]],
) -> None:
    young, middle, oldest = gc.get_threshold()
    assert oldest == 2**31 - 1
    assert _wait_for(lambda: (2, "plumbline-gc") in full_collections)
    assert all(
        thread == "plumbline-gc" for generation, thread in full_collections if generation == 2
    )


def test_old_cyclic_garbage_is_freed_by_the_timer(full_collections: list[tuple[int, str]]) -> None:
    cycle = _Cycle()
    freed = weakref.ref(cycle)
    gc.collect(1)  # it survives a collection of the young generations: now in the oldest one
    assert any(found is cycle for found in gc.get_objects(generation=2))
    del cycle  # only a full collection can free it, and only the timer makes them
    assert _wait_for(lambda: freed() is None)


def test_a_second_schedule_is_the_first() -> None:
    stop = schedule_full_collections(interval=0.05)
    try:
        assert schedule_full_collections(interval=0.05) is stop
        assert len([t for t in threading.enumerate() if t.name == "plumbline-gc"]) == 1
    finally:
        stop()


def test_stopping_restores_the_thresholds() -> None:
    before = gc.get_threshold()
    stop = schedule_full_collections(interval=0.05)
    assert gc.get_threshold() != before
    stop()
    assert gc.get_threshold() == before
    assert not [t for t in threading.enumerate() if t.name == "plumbline-gc"]
    assert stop_full_collections() is False  # nothing runs any more
    schedule_full_collections(interval=0.05)
    assert stop_full_collections() is True
    assert gc.get_threshold() == before


def test_an_old_stop_function_leaves_a_later_schedule_alone() -> None:
    before = gc.get_threshold()
    first = schedule_full_collections(interval=0.05)
    first()
    second = schedule_full_collections(interval=0.05)
    try:
        first()  # again: it has nothing left to stop
        assert gc.get_threshold()[2] == 2**31 - 1
        assert len([t for t in threading.enumerate() if t.name == "plumbline-gc"]) == 1
    finally:
        second()
    assert gc.get_threshold() == before
