#!/usr/bin/env bash
# matrix.sh CORE:CONTROLLER_PYTHON[:TARGET_PYTHON]...: the unit tests and every integration target
# (normal and check mode) under each ansible-core release, in a venv of its own on the given
# controller Python; with TARGET_PYTHON the modules run on that interpreter instead (a venv with
# PyYAML, as a node would have). Interpreters are found on PATH or in pyenv's versions directory.
set -euo pipefail
cache="${MATRIX_CACHE:?set MATRIX_CACHE}"
here="$(cd "$(dirname "$0")/.." && pwd)"
[ $# -gt 0 ] || { echo "usage: matrix.sh CORE:PYTHON[:TARGET_PYTHON]..." >&2; exit 2; }

find_python() {
  local version="$1" candidate
  for candidate in "python$version" "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$version".*/bin/"python$version"; do
    if "$candidate" -c 'import sys' >/dev/null 2>&1; then
      command -v "$candidate" || echo "$candidate"
      return 0
    fi
  done
  echo "matrix: no working python$version (on PATH or in pyenv)" >&2
  return 1
}

pins() {
  grep -E "^($1)==" "$here/requirements.txt"
}

for entry in "$@"; do
  IFS=: read -r core controller target <<< "$entry"
  venv="$cache/ansible-core-$core-py$controller"
  if [ ! -x "$venv/bin/ansible-playbook" ]; then
    "$(find_python "$controller")" -m venv "$venv"
    # shellcheck disable=SC2046 # one word per pinned requirement
    "$venv/bin/pip" install -q --disable-pip-version-check "ansible-core==$core" $(pins 'pytest|hypothesis|PyYAML')
  fi
  interpreter="$venv/bin/python"
  if [ -n "${target:-}" ]; then
    node="$cache/node-py$target"
    if [ ! -x "$node/bin/python" ]; then
      "$(find_python "$target")" -m venv "$node"
      # shellcheck disable=SC2046
      "$node/bin/pip" install -q --disable-pip-version-check $(pins 'PyYAML')
    fi
    interpreter="$node/bin/python"
  fi
  echo "=== matrix: ansible-core $core, controller Python $controller, modules on $("$interpreter" -c 'import platform; print(platform.python_version())')"
  "$venv/bin/python" -m pytest -q -p no:cacheprovider "$here/tests/unit"
  PATH="$venv/bin:$PATH" TARGET_PYTHON="$interpreter" "$here/tests/integration/run.sh"
done
echo "matrix: $# combination(s) passed"
