"""`plumbline serve` as a real subprocess: started, health-checked, SIGKILLed, restarted."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]


class Gateway:
    """`plumbline serve` as a subprocess (on the port its arguments give), restartable."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.args = args
        self.env = env
        self.process: subprocess.Popen[str] | None = None
        self.url = ""

    def start(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "plumbline", "serve", *self.args],
            cwd=REPO,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.process.stdout is not None
        first = self.process.stdout.readline().strip()
        assert first.startswith("plumbline serving on http://"), first
        self.url = first.removeprefix("plumbline serving on ")
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{self.url}/api/v1/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the server did not become healthy"
            time.sleep(0.05)

    def kill(self) -> None:
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
