"""The thresholds change alerts use (issue 19), one value object shared by detection and the
freshness check; the server builds it from its settings (``[alerts]`` in the config file)."""

from __future__ import annotations

from dataclasses import dataclass

KINDS = (
    "new-edge",
    "stopped-edge",
    "schema-drift",
    "volume-anomaly",
    "duration-anomaly",
    "freshness",
    "failure-after-success",
    "observed-deviation",
)


@dataclass(frozen=True)
class AlertRules:
    """When an alert speaks. ``enabled`` False: no detection at all (the write path is as it was
    before alerts; benchmarks compare the two)."""

    enabled: bool = True
    # stopped-edge: an input the job's runs always read (at least this many runs in a row) that
    # its last this-many COMPLETE runs did not read
    stopped_after_runs: int = 3
    # failure-after-success: a FAIL right after at least this many COMPLETE runs
    failure_after_successes: int = 3
    # volume/duration anomalies: the job's last ``history_runs`` COMPLETE runs, at least
    # ``min_history`` of them; outside median +- mad_factor * max(1.4826 * MAD, rel_floor * median,
    # the absolute floor: 1 row, 1 second)
    history_runs: int = 20
    min_history: int = 5
    mad_factor: float = 5.0
    rel_floor: float = 0.1
    # freshness: not written for freshness_factor times its median interval between writes
    # (learned from its last history_runs writes, at least min_history of them)
    freshness_factor: float = 3.0

    def __post_init__(self) -> None:
        for name in ("stopped_after_runs", "failure_after_successes", "min_history"):
            if not 1 <= getattr(self, name) <= 1000:
                raise ValueError(f"{name} must be from 1 to 1000, got {getattr(self, name)}")
        if not 2 <= self.history_runs <= 1000:
            raise ValueError(f"history_runs must be from 2 to 1000, got {self.history_runs}")
        if self.history_runs < 2 * self.stopped_after_runs:
            raise ValueError("history_runs must be at least twice stopped_after_runs")
        for name in ("mad_factor", "freshness_factor"):
            if not 1.0 <= getattr(self, name) <= 1000.0:
                raise ValueError(f"{name} must be from 1 to 1000, got {getattr(self, name)}")
        if not 0.0 <= self.rel_floor <= 10.0:
            raise ValueError(f"rel_floor must be from 0 to 10, got {self.rel_floor}")
