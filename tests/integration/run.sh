#!/usr/bin/env bash
# Run every integration target against localhost, once normally and once in check mode
# (MODES="check" for check mode only: `make integration` has ansible-test run the normal one).
# Targets are role-shaped (tasks/main.yml) as ansible-test expects; only read-only modules
# and fake roots are used, so nothing on this machine is changed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export ANSIBLE_ROLES_PATH="$here/targets"
export ANSIBLE_STDOUT_CALLBACK=default
export ANSIBLE_RETRY_FILES_ENABLED=0
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(find "$here/targets" -mindepth 1 -maxdepth 1 -type d ! -name 'setup_*' -printf '%f\n' | sort)
fi
[ ${#targets[@]} -gt 0 ] || { echo "no integration targets found" >&2; exit 1; }
# The modules run on the controller's Python unless TARGET_PYTHON names a node's interpreter.
interpreter="${TARGET_PYTHON:-}"
[ -n "$interpreter" ] || interpreter='{{ ansible_playbook_python }}'
passed=0
for target in "${targets[@]}"; do
  for mode in ${MODES:-normal check}; do
    extra=()
    [ "$mode" = check ] && extra=(--check)
    echo "=== integration: $target ($mode)"
    ansible-playbook -i localhost, -c local "${extra[@]}" -e "target=$target" \
      -e "ansible_python_interpreter=$interpreter" "$here/target.yml"
    passed=$((passed + 1))
  done
done
echo "integration: $passed passed, 0 failed"
