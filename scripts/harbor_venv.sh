#!/usr/bin/env bash
# Prints the Python of a virtual environment holding Harbor (which needs Python 3.12 or newer), creating
# it under .cache/ on first use. Used by the test that loads exported tasks with Harbor's own loader.
set -euo pipefail
cd "$(dirname "$0")/.."
HARBOR_SPEC="${HARBOR_SPEC:-harbor==0.25.*}"
VENV=".cache/harbor-venv"
if [ ! -x "$VENV/bin/harbor" ]; then
  python=""
  for candidate in python3.13 python3.12 "$HOME"/.pyenv/versions/3.1[23]*/bin/python; do
    if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 12))'; then
      python="$(command -v "$candidate")"; break
    fi
  done
  if [ -z "$python" ]; then
    echo "error: Harbor needs Python 3.12 or newer; install one (pyenv install 3.12) and retry" >&2; exit 1
  fi
  "$python" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check "$HARBOR_SPEC" >&2
fi
echo "$PWD/$VENV/bin/python"
