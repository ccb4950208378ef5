"""docs/reference.md documents every command option, HTTP route, setting and environment variable."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

import click
import pytest

from plumbline.cli import main
from plumbline.server.outbox.policy import OutboxPolicy

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = (ROOT / "docs" / "reference.md").read_text()


def _leaf_commands() -> list[tuple[list[str], click.Command]]:
    context = click.Context(main)
    found: list[tuple[list[str], click.Command]] = []

    def walk(command: click.Command, path: list[str]) -> None:
        if isinstance(command, click.Group):
            for name in command.list_commands(context):
                sub = command.get_command(context, name)
                assert sub is not None, f"`plumbline {' '.join(path + [name])}` does not load"
                walk(sub, path + [name])
        else:
            found.append((path, command))

    walk(main, [])
    return found


def _section(top_level: str) -> str:
    match = re.search(
        rf"^### `plumbline {re.escape(top_level)}\b.*?(?=^### |^## )", REFERENCE, re.S | re.M
    )
    assert match, f"docs/reference.md has no section for `plumbline {top_level}`"
    return match.group(0)


def test_every_command_and_option_is_documented() -> None:
    commands = _leaf_commands()
    assert {" ".join(path) for path, _ in commands} >= {
        "serve",
        "demo",
        "run",
        "replay",
        "db upgrade",
    }
    for path, command in commands:
        section = _section(path[0])
        assert " ".join(path) in section, f"`plumbline {' '.join(path)}` is not documented"
        for param in command.params:
            for option in getattr(param, "opts", []):
                if option.startswith("--"):
                    assert f"`{option}" in section, (
                        f"option {option} of `plumbline {' '.join(path)}` is not documented"
                    )


def test_every_http_route_is_documented(tmp_path: Path) -> None:
    from plumbline.server.app import create_app
    from plumbline.server.settings import ServerSettings

    app = create_app(ServerSettings(db_url=f"sqlite:///{tmp_path / 'routes.db'}"))
    paths = list(app.openapi()["paths"]) + ["/metrics", "/openapi.json"]
    assert len(paths) > 30
    missing = [path for path in paths if not re.search(rf"{re.escape(path)}(?=[`\s?,])", REFERENCE)]
    assert missing == []


def test_every_environment_variable_is_documented() -> None:
    names: set[str] = set()
    for source in (ROOT / "plumbline").rglob("*.py"):
        names |= set(re.findall(r"\bPLUMBLINE_[A-Z_]*[A-Z]\b", source.read_text()))
    names = {name for name in names if not name.endswith("_")}
    assert "PLUMBLINE_DB" in names
    missing = sorted(name for name in names if f"`{name}`" not in REFERENCE)
    assert missing == []


@pytest.mark.parametrize("name", [f.name for f in fields(OutboxPolicy)])
def test_every_outbox_setting_is_documented(name: str) -> None:
    assert re.search(rf"^{name} = ", REFERENCE, re.M), f"[outbox] {name} is not documented"
