#!/usr/bin/env bash
# One command for a fresh machine: set up, then run the demo pipeline and serve its lineage.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/plumbline demo "$@"
