#!/bin/sh
# setup-venv.sh PYTHON VENV_DIR: a virtual environment with the pinned
# packages the Python tests drive (hermes-agent, anthropic, pytest) and this
# package, installed as a user installs it (not editable). Quiet; running it
# again on the same folder reinstalls this package only.
set -eu
if [ "$#" -ne 2 ]; then
    echo "usage: $0 PYTHON VENV_DIR" >&2
    exit 2
fi
python=$1
venv=$2
here=$(cd "$(dirname "$0")" && pwd)
pins="hermes-agent==0.19.0 anthropic==2.16.0 pytest==9.2.0"

if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv "$venv"
fi
pip() { "$venv/bin/python" -m pip --disable-pip-version-check -q "$@"; }
# The pins once (a second run finds them satisfied and downloads nothing).
if ! "$venv/bin/python" - <<'PY' 2>/dev/null
import importlib.metadata as m
want = {"hermes-agent": "0.19.0", "anthropic": "2.16.0", "pytest": "9.2.0"}
raise SystemExit(any(m.version(k) != v for k, v in want.items()))
PY
then
    pip install $pins
fi
# This package as a user installs it (pip install ./python): its build
# backend builds out of tree, so the checkout is left as it was.
pip install --force-reinstall --no-deps "$here"
