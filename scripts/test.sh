#!/usr/bin/env bash
# One command for a fresh machine: set up everything the tests need, then run them all.
# Extra arguments go to pytest (e.g. scripts/test.sh -m "not slow").
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
exec .venv/bin/python -m pytest "$@"
