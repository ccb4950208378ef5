"""The options that several commands share are declared once, in plumbline/cli/options.py
(issue 29: `--url` and `--api-key` had three copies). A command declaring its own is a new copy."""

from __future__ import annotations

import ast
from pathlib import Path

import plumbline.cli

CLI = Path(plumbline.cli.__file__).parent
SHARED = {"--url", "--api-key", "--transport"}


def test_shared_options_are_declared_only_in_options_py() -> None:
    copies = []
    for path in sorted(CLI.glob("*.py")):
        if path.name == "options.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("option", "Option")
                and any(isinstance(arg, ast.Constant) and arg.value in SHARED for arg in node.args)
            ):
                copies.append(f"{path.name}:{node.lineno}")
    assert copies == [], "use url_option / api_key_option / capture_options"
