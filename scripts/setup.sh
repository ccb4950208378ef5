#!/usr/bin/env bash
# Set up plumbline on a fresh machine: Java (for Spark), a virtualenv in .venv, the package.
#   scripts/setup.sh          what `plumbline demo` needs
#   scripts/setup.sh --test   also what the tests need (Chromium, the PostgreSQL JDBC driver, PostgreSQL
#                             running, .venv-spark4 with the newest Spark line)
set -euo pipefail
cd "$(dirname "$0")/.."

want_test=0
[ "${1:-}" = "--test" ] && want_test=1

log() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

apt_install() {
  # Debian packages, only when missing; needs root (CI and the dev machines run as root).
  local missing=()
  for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    log "please install these Debian/Ubuntu packages: ${missing[*]}"; return 1
  fi
  log "installing ${missing[*]}"
  if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -1)" ]; then
    apt-get update -qq
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

python=${PYTHON:-python3}
"$python" - <<'PY' || { log "plumbline needs Python 3.11 or newer"; exit 1; }
import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)
PY

if ! command -v java >/dev/null 2>&1; then
  apt_install openjdk-17-jre-headless
fi

if [ ! -x .venv/bin/python ]; then
  log "creating virtualenv .venv"
  "$python" -m venv .venv
fi
stamp=".venv/.plumbline-setup$want_test"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  log "installing Python packages (first run downloads PySpark, ~300 MB)"
  .venv/bin/python -m pip install -q --upgrade pip
  if [ $want_test -eq 1 ]; then extras="spark,test"; else extras="spark"; fi
  .venv/bin/python -m pip install -q -e ".[$extras]"
  touch "$stamp"
fi

if [ $want_test -eq 1 ]; then
  # A second virtualenv with the newest Spark line (pyproject's tool.plumbline.spark4-test) and the
  # test extra less its pyspark pin: scripts/test.sh runs the Spark tests again there.
  if [ ! -x .venv-spark4/bin/python ]; then
    log "creating virtualenv .venv-spark4"
    "$python" -m venv .venv-spark4
  fi
  stamp=".venv-spark4/.plumbline-setup"
  if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    mapfile -t spark4_deps < <(.venv/bin/python - <<'PY'
import tomllib
project = tomllib.load(open("pyproject.toml", "rb"))
print("\n".join(project["tool"]["plumbline"]["spark4-test"]))
for requirement in project["project"]["optional-dependencies"]["test"]:
    if not requirement.startswith("pyspark"):
        print(requirement)
PY
)
    log "installing ${spark4_deps[0]} in .venv-spark4 (first run downloads it, ~450 MB)"
    .venv-spark4/bin/python -m pip install -q --upgrade pip
    .venv-spark4/bin/python -m pip install -q -e . "${spark4_deps[@]}"
    touch "$stamp"
  fi
  apt_install chromium chromium-driver libpostgresql-jdbc-java fonts-dejavu-core
  if command -v pg_isready >/dev/null && ! pg_isready -q -h 127.0.0.1 -p 5432; then
    log "starting PostgreSQL"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start
    for _ in $(seq 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
  fi
  pg_isready -h 127.0.0.1 -p 5432 || { log "PostgreSQL is not running at 127.0.0.1:5432"; exit 1; }
fi
log "ready"
