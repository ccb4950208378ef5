"""Gateway settings: the auth default by bind address, forward targets and catalogs from flags and TOML."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from plumbline.server.config import ConfigError, build_settings
from plumbline.server.outbox.policy import OutboxPolicy
from plumbline.server.settings import ForwardTarget
from plumbline.store.write.alert_rules import AlertRules

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("127.0.0.1", "open"),
        ("localhost", "open"),
        ("::1", "open"),
        ("0.0.0.0", "required"),
        ("10.1.2.3", "required"),
    ],
)
def test_auth_default_depends_on_the_bind_address(host: str, expected: str) -> None:
    assert build_settings(db_url="sqlite://", host=host).auth == expected


def test_open_on_a_public_address_needs_allow_open_public() -> None:
    with pytest.raises(ConfigError, match="refusing to serve without auth on 0.0.0.0"):
        build_settings(db_url="sqlite://", host="0.0.0.0", auth="open")
    assert (
        build_settings(db_url="sqlite://", host="0.0.0.0", auth="open", allow_open_public=True).auth
        == "open"
    )


def test_serve_refuses_open_on_a_public_address() -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "plumbline",
            "serve",
            "--db",
            "sqlite://",
            "--host",
            "0.0.0.0",
            "--auth",
            "open",
            "--port",
            "0",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert "refusing to serve without auth on 0.0.0.0" in result.stderr
    assert "--allow-open-public" in result.stderr


def test_flags_and_config_file_merge(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text(
        """
auth = "required"
[[forward]]
url = "http://marquez:5000"
api_key = "k"
headers = { X-A = "1" }

[catalog.lake]
type = "sql"
uri = "sqlite:////tmp/c.db"
"""
    )
    settings = build_settings(
        db_url="sqlite://",
        forward_urls=("http://marquez:5000", "http://other:9000/custom"),
        catalog_options=("wh:type=sql,uri=sqlite:////tmp/w.db,warehouse=file:///tmp/wh",),
        config_file=config,
    )
    assert settings.auth == "required"
    assert settings.forward == (
        ForwardTarget(url="http://marquez:5000", api_key="k", headers={"X-A": "1"}),
        ForwardTarget(url="http://other:9000/custom"),
    )
    assert settings.catalogs == {
        "lake": {"type": "sql", "uri": "sqlite:////tmp/c.db"},
        "wh": {"type": "sql", "uri": "sqlite:////tmp/w.db", "warehouse": "file:///tmp/wh"},
    }
    with pytest.raises(ConfigError, match="expected NAME:key=value"):
        build_settings(db_url="sqlite://", catalog_options=("no-colon",))


def test_outbox_policy_comes_from_the_config_file(tmp_path: Path) -> None:
    config = tmp_path / "plumbline.toml"
    config.write_text("[outbox]\nmax_attempts = 3\nbase_delay_s = 0.25\n")
    environ = {"PLUMBLINE_OUTBOX_MAX_ATTEMPTS": "7"}  # the file's table wins over the environment
    settings = build_settings(db_url="sqlite://", config_file=config, environ=environ)
    assert (settings.outbox.max_attempts, settings.outbox.base_delay_s) == (3, 0.25)
    assert settings.outbox.max_delay_s == 300.0  # untouched defaults stay
    assert build_settings(db_url="sqlite://", environ={}).outbox == OutboxPolicy()


def test_environment_settings_are_read_by_the_builder_only() -> None:
    environ = {
        "PLUMBLINE_OUTBOX_MAX_ATTEMPTS": "4",
        "PLUMBLINE_OUTBOX_BASE_DELAY": "0.5",
        "PLUMBLINE_WRITER_THREADS": "3",
    }
    settings = build_settings(db_url="sqlite://", environ=environ)
    assert (settings.outbox.max_attempts, settings.outbox.base_delay_s) == (4, 0.5)
    assert settings.writer_threads == 3
    assert build_settings(db_url="sqlite://", environ={}).writer_threads is None
    with pytest.raises(ConfigError, match="PLUMBLINE_WRITER_THREADS must be a whole number"):
        build_settings(db_url="sqlite://", environ={"PLUMBLINE_WRITER_THREADS": "0"})
    with pytest.raises(
        ConfigError, match="^PLUMBLINE_OUTBOX_MAX_ATTEMPTS must be a number, not 'many'$"
    ):
        build_settings(db_url="sqlite://", environ={"PLUMBLINE_OUTBOX_MAX_ATTEMPTS": "many"})
    with pytest.raises(ConfigError, match="PLUMBLINE_OUTBOX_\\* variables: need 0 <= base_delay_s"):
        build_settings(db_url="sqlite://", environ={"PLUMBLINE_OUTBOX_MAX_DELAY": "0.5"})


def test_bad_outbox_table_names_the_setting(tmp_path: Path) -> None:
    config = tmp_path / "plumbline.toml"
    config.write_text('[outbox]\nmax_attempts = "many"\n')
    with pytest.raises(ConfigError, match=r"\[outbox\] max_attempts must be a number"):
        build_settings(db_url="sqlite://", config_file=config)
    config.write_text("[outbox]\nretries = 3\n")
    with pytest.raises(ConfigError, match="unknown \\[outbox\\] settings: retries"):
        build_settings(db_url="sqlite://", config_file=config)


def test_allowed_hosts_and_auth_meta_from_flags_and_config_file(tmp_path: Path) -> None:
    config = tmp_path / "plumbline.toml"
    config.write_text('allowed_hosts = ["Lineage.Internal"]\nauth_meta = true\n')
    settings = build_settings(db_url="sqlite://", allowed_hosts=("[::1]", "gw"), config_file=config)
    assert settings.allowed_hosts == ("lineage.internal", "::1", "gw")
    assert settings.auth_meta is True
    assert build_settings(db_url="sqlite://").allowed_hosts == ()
    assert build_settings(db_url="sqlite://").auth_meta is False


@pytest.mark.parametrize("name", ["", "http://gw", "gw:8080", "a b", "user@gw"])
def test_an_allowed_host_that_is_not_a_bare_name_is_refused(name: str) -> None:
    with pytest.raises(ConfigError, match="without scheme or port"):
        build_settings(db_url="sqlite://", allowed_hosts=(name,))


def test_alerts_table_gives_the_thresholds_and_names_a_bad_key(tmp_path: Path) -> None:
    config = tmp_path / "plumbline.toml"
    config.write_text("[alerts]\nhistory_runs = 30\nmad_factor = 4\nenabled = false\n"
                      "check_seconds = 5\n")  # fmt: skip
    settings = build_settings(db_url="sqlite://", config_file=config)
    assert settings.alerts == AlertRules(history_runs=30, mad_factor=4, enabled=False)
    assert settings.alert_check_seconds == 5.0
    default = build_settings(db_url="sqlite://", environ={})
    assert (default.alerts, default.alert_check_seconds) == (AlertRules(), 60.0)
    for table, message in [
        ("retries = 3", r"^config file: unknown \[alerts\] key\(s\) retries \(known: "
                        r"check_seconds, enabled, failure_after_successes, "),
        ('history_runs = "many"', r"^config file: \[alerts\] history_runs must be a int$"),
        ("history_runs = true", r"^config file: \[alerts\] history_runs must be a int$"),
        ("enabled = 1", r"^config file: \[alerts\] enabled must be a bool$"),
        ('check_seconds = "soon"', r"^config file: \[alerts\] check_seconds must be a number$"),
        ("check_seconds = 0", r"^config file: \[alerts\] check_seconds must be from 0.1 to"),
        ("history_runs = 1", r"^config file: \[alerts\] history_runs must be from 2 to 1000"),
    ]:  # fmt: skip
        config.write_text(f"[alerts]\n{table}\n")
        with pytest.raises(ConfigError, match=message):
            build_settings(db_url="sqlite://", config_file=config)
    config.write_text("alerts = 3\n")
    with pytest.raises(ConfigError, match=r"^config file: \[alerts\] must be a table$"):
        build_settings(db_url="sqlite://", config_file=config)
