#!/usr/bin/env bash
# stop-vm.sh NAME: stop the VM started by start-vm.sh NAME and delete its overlay.
# Kills only the qemu whose pid file we wrote and whose command line names this VM.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
name="${1:?usage: stop-vm.sh NAME}"
run_dir="${VM_RUN_DIR:-$here/../../.cache/vm/run}/$name"
if [ -f "$run_dir/pid" ]; then
  pid="$(cat "$run_dir/pid")"
  if [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q -- "-name $name "; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$pid" 2>/dev/null || true
  fi
fi
rm -rf "$run_dir"
