"""The collector pause around graph building: off inside, restored after, reentrant across threads."""

from __future__ import annotations

import gc
import threading

from plumbline.store.read.gcpause import gc_paused


def test_pause_restores_the_collector_only_when_the_last_builder_leaves() -> None:
    assert gc.isenabled()
    inside = threading.Event()
    release = threading.Event()

    def other_builder() -> None:
        with gc_paused():
            inside.set()
            release.wait(10)

    thread = threading.Thread(target=other_builder)
    with gc_paused():
        assert not gc.isenabled()
        thread.start()
        assert inside.wait(10)
    assert not gc.isenabled()  # the other thread is still building
    release.set()
    thread.join(10)
    assert gc.isenabled()


def test_pause_leaves_a_disabled_collector_disabled() -> None:
    gc.disable()
    try:
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
