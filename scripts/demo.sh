#!/usr/bin/env bash
# One command for a fresh machine: set up .venv-demo (the demo's own virtualenv, the newest PySpark),
# then run the demo pipeline and serve its lineage.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv-demo/bin/plumbline demo "$@"
