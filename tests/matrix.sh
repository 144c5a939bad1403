#!/usr/bin/env bash
# matrix.sh CORE:CONTROLLER_PYTHON[:TARGET_PYTHON]...: under each ansible-core release, in a venv of
# its own on the given controller Python, the steps of MATRIX_STEPS (default "units integration"):
# units - the unit tests; integration - every integration target, normal and check mode (with
# TARGET_PYTHON the modules run on that interpreter, a venv with PyYAML as a node would have);
# sanity - ansible-test sanity from a copy of the collection. Interpreters are found on PATH or in
# pyenv's versions directory.
set -euo pipefail
cache="${MATRIX_CACHE:?set MATRIX_CACHE}"
here="$(cd "$(dirname "$0")/.." && pwd)"
[ $# -gt 0 ] || { echo "usage: matrix.sh CORE:PYTHON[:TARGET_PYTHON]..." >&2; exit 2; }

python_of() {
  local version="$1" candidate
  for candidate in "python$version" "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$version".*/bin/"python$version"; do
    if "$candidate" -c 'import sys' >/dev/null 2>&1; then
      command -v "$candidate" || echo "$candidate"
      return 0
    fi
  done
  return 1
}

# The Python asked for; where this machine has none, the newest one present of the same major version (said on
# stderr), so that the matrix still runs: it names the one it used in its header line.
find_python() {
  local version="$1" found minor
  if found="$(python_of "$version")"; then
    echo "$found"
    return 0
  fi
  for minor in $(seq 20 -1 9); do
    if found="$(python_of "3.$minor")"; then
      echo "matrix: no working python$version (on PATH or in pyenv): using python3.$minor, the newest present" >&2
      echo "$found"
      return 0
    fi
  done
  echo "matrix: no working python$version nor any python3 (on PATH or in pyenv)" >&2
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
  for step in ${MATRIX_STEPS:-units integration}; do
    case "$step" in
      units) "$venv/bin/python" -m pytest -q -p no:cacheprovider "$here/tests/unit" ;;
      integration) PATH="$venv/bin:$PATH" TARGET_PYTHON="$interpreter" "$here/tests/integration/run.sh" ;;
      sanity)
        copy="$(mktemp -d)"
        dest="$copy/ansible_collections/kubenode/cgroups"
        mkdir -p "$dest"
        (cd "$here" && git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -xf - -C "$dest")
        (cd "$dest" && HOME="${ANSIBLE_TEST_HOME:-$HOME}" PATH="$venv/bin:$PATH" "$venv/bin/ansible-test" sanity --requirements --python "$controller" \
          --color no --exclude hacking/) || { rm -rf "$copy"; exit 1; }
        rm -rf "$copy" ;;
      *) echo "matrix: unknown step $step" >&2; exit 2 ;;
    esac
  done
done
echo "matrix: $# combination(s) passed"
