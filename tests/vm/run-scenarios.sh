#!/usr/bin/env bash
# run-scenarios.sh SCENARIO...: `molecule test` for each scenario, in MOLECULE_LANES lanes that run
# side by side (default: one per core, at most 2; each vCPU is a TCG thread). The scenarios form one
# queue: a lane that finishes takes the next one, so list the longest first. A lane stops at its first
# failure (the others finish what they run). Each scenario's output goes to MOLECULE_LOG_DIR/SCENARIO.log
# and is printed whole when it fails. VMs boot one at a time (start-vm.sh's lock), and the end says
# where the time went: each scenario's seconds, and every boot's seconds to ssh (VM_LOG_DIR/boot-times.tsv).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cores="$(nproc)"
lanes="${MOLECULE_LANES:-$((cores < 2 ? 1 : 2))}"
logs="${MOLECULE_LOG_DIR:?set MOLECULE_LOG_DIR}"
boot_times="${VM_LOG_DIR:-$here/../../.cache/vm/logs}/boot-times.tsv"
[ $# -gt 0 ] || { echo "usage: run-scenarios.sh SCENARIO..." >&2; exit 2; }
mkdir -p "$logs" "$(dirname "$boot_times")"
: > "$boot_times"
echo "molecule: $# scenarios in $lanes lane(s) on $cores core(s)"
queue="$logs/.queue"
# Each task's seconds (extensions/molecule/shared/callback_plugins/task_times.py), summed up at the end: molecule
# prints a playbook's output only when it ends, so the logs carry no time of their own.
export ANSIBLE_CALLBACK_PLUGINS="$here/../../extensions/molecule/shared/callback_plugins"
export ANSIBLE_CALLBACKS_ENABLED=task_times
printf '%s\n' "$@" > "$queue"

# The next scenario of the queue, taken under a lock so that two lanes never take the same one.
next_scenario() {
  (
    flock 9
    head -n 1 "$queue"
    sed -i '1d' "$queue"
  ) 9>"$queue.lock"
}

run_lane() {
  local scenario start
  while scenario="$(next_scenario)" && [ -n "$scenario" ]; do
    start=$SECONDS
    rm -f "$logs/$scenario.times.tsv"
    # Molecule looks for a "default" scenario first and logs its absence as CRITICAL, then goes on:
    # that line says nothing about the run, so it is left out of the log.
    if KUBENODE_TASK_TIMES="$logs/$scenario.times.tsv" molecule test -s "$scenario" 2>&1 | grep -v "default/molecule.yml' glob failed" > "$logs/$scenario.log"; then
      echo "molecule $scenario: passed in $((SECONDS - start)) s"
    else
      echo "molecule $scenario: FAILED after $((SECONDS - start)) s; its output:"
      cat "$logs/$scenario.log"
      return 1
    fi
  done
}

pids=()
for ((lane = 0; lane < lanes && lane < $#; lane++)); do
  run_lane &
  pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do
  wait "$pid" || failed=1
done
rm -f "$queue" "$queue.lock"
python3 "$here/boot_times.py" "$boot_times"
times=()
for scenario in "$@"; do times+=("$logs/$scenario.times.tsv"); done
python3 "$here/task_times.py" --top 12 "${times[@]}" || echo "task_times.py could not sum the times up"
if [ "$failed" -ne 0 ]; then
  echo "molecule: failed (logs in $logs)"
  exit 1
fi
echo "molecule: $# passed, 0 failed"
