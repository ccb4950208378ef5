"""The code checks CI runs with the tests: ``mypy --strict plumbline`` and ruff (lint and format),
each from this virtualenv, so that ``scripts/test.sh`` (the README's test command) covers them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


@pytest.mark.slow
def test_mypy_strict_passes() -> None:
    result = _run("mypy", "--strict", "plumbline")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_check_passes() -> None:
    result = _run("ruff", "check", "plumbline", "tests", "bench", "scripts")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_clean() -> None:
    result = _run("ruff", "format", "--check", "plumbline", "tests", "bench", "scripts")
    assert result.returncode == 0, result.stdout + result.stderr
