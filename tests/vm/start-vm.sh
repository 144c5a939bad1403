#!/usr/bin/env bash
# start-vm.sh NAME MODE: boot a throw-away VM (a qcow2 overlay on the cached image) with the
# cgroup MODE v2 | hybrid | v1, ssh forwarded from a free 127.0.0.1 port only, and wait until it is
# ready for ssh. Prints "PORT" on success.
#
# Ready is what the guest says, not a guess: kubenode-boot-status.service (build-image.sh) writes
# "kubenode-vm: ssh ready" (or "ssh not running") to the serial console once ssh.service has started,
# which for its Type=notify sshd means it listens. Then the first ssh login must answer. A boot whose
# guest says sshd is not running, that says nothing within VM_BOOT_TIMEOUT, or whose sshd does not
# answer, is stopped, its console log kept in VM_LOG_DIR and printed, and booted again once on a new
# overlay (VM_BOOT_RETRIES). Boots take turns (a lock in VM_RUN_DIR): under TCG every vCPU is a host
# thread, and two guests booting at once beside Molecule on two cores slowed each other past any fixed
# wait; a running VM's tests go on meanwhile. Each attempt appends a row to VM_LOG_DIR/boot-times.tsv:
# name, mode, attempt, outcome, seconds waiting for the lock, seconds from qemu's start to the guest's
# word, to the first ssh login, the guest's own uptime at its word, and the ssh tries that failed after it.
#
# Env: VM_RUN_DIR, VM_IMAGE_DIR, VM_LOG_DIR, VM_ACCEL (auto|kvm|tcg), VM_CPUS (1), VM_MEM (1024),
#      VM_BOOT_TIMEOUT (180 s a boot: see docs/testing.md for the measured times), VM_BOOT_RETRIES (1),
#      VM_NET (restrict|open: open lets the guest reach the apt mirror, and this machine's 127.0.0.1 as 10.0.2.2),
#      VM_FORWARDS (more TCP ports forwarded from this machine's 127.0.0.1 to the same port of the guest, space
#      separated: the cluster tests' kubelet port, which the API server on 127.0.0.1 proxies configz to),
#      VM_CPU_MODEL (qemu64 under TCG, max under KVM), VM_TCG_THREAD (single|multi: TCG's vCPU threads),
#      VM_TEST_HOLD_SSHD (tests only: "first" holds sshd back on the first boot, "always" on every boot).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
name="${1:?usage: start-vm.sh NAME v2|hybrid|v1}"
mode="${2:?usage: start-vm.sh NAME v2|hybrid|v1}"
image_dir="${VM_IMAGE_DIR:-$here/../../.cache/vm/image}"
run_root="${VM_RUN_DIR:-$here/../../.cache/vm/run}"
run_dir="$run_root/$name"
log_dir="${VM_LOG_DIR:-$run_root/../logs}"
timeout="${VM_BOOT_TIMEOUT:-180}"
retries="${VM_BOOT_RETRIES:-1}"
hold="${VM_TEST_HOLD_SSHD:-}"
case "$mode" in
  v2) cgroup_args="systemd.unified_cgroup_hierarchy=1" ;;
  hybrid) cgroup_args="systemd.unified_cgroup_hierarchy=0" ;;
  v1) cgroup_args="systemd.unified_cgroup_hierarchy=0 systemd.legacy_systemd_cgroup_controller=1" ;;
  *) echo "unknown cgroup mode '$mode' (v2, hybrid or v1)" >&2; exit 2 ;;
esac
case "$hold" in
  "" | first | always) ;;
  *) echo "VM_TEST_HOLD_SSHD is '$hold': give first, always or nothing" >&2; exit 2 ;;
esac
[ -f "$image_dir/rootfs.ext4" ] || { echo "no VM image in $image_dir: run tests/vm/build-image.sh" >&2; exit 1; }
if [ -f "$run_dir/pid" ] && kill -0 "$(cat "$run_dir/pid")" 2>/dev/null; then
  echo "VM $name is already running" >&2
  exit 1
fi
mkdir -p "$run_root" "$log_dir"
accel="${VM_ACCEL:-auto}"
[ "$accel" = auto ] && accel="$("$here/kvm-check.sh")"
# Under TCG every instruction is translated: qemu64 (no AVX) boots in 29 s where max (AVX2, emulated) takes 35 s,
# and a Go program of memmove and JSON runs 10% faster (measured on this project's image, 2026-11-28). Under
# KVM, max is the host's own CPU.
cpu_model="${VM_CPU_MODEL:-$([ "$accel" = kvm ] && echo max || echo qemu64)}"
# TCG's vCPUs: one host thread for all of a VM's vCPUs (single), or one each (multi). Two scenarios side by side
# with two vCPUs each put four vCPU threads on this machine's two cores; a guest vCPU that spins on a lock held by a
# descheduled one burns its slice, and such runs took three times as long (systemd_hybrid: 587 s alone, 2208 s
# beside role_systemd_v2). With single, the guest still sees its CPUs (kubelet's capacity) and each VM takes one core.
tcg_thread="${VM_TCG_THREAD:-single}"
[ "$accel" = tcg ] && accel="tcg,thread=$tcg_thread"
net="restrict=on"
[ "${VM_NET:-restrict}" = open ] && net="restrict=off"
ssh_opts=(-q -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null
  -o ConnectionAttempts=1 -i "$image_dir/id_ed25519")

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

boot() {  # boot ATTEMPT: a new overlay and qemu; sets $port and $held
  local append="root=/dev/vda rw console=ttyS0 quiet $cgroup_args"
  held=""
  if [ "$hold" = always ] || { [ "$hold" = first ] && [ "$1" -eq 1 ]; }; then
    append="$append kubenode.test_hold_sshd"
    held=" (sshd held back by the test)"
  fi
  rm -rf "$run_dir"
  mkdir -p "$run_dir"
  local forwards="" extra
  for extra in ${VM_FORWARDS:-}; do
    forwards="$forwards,hostfwd=tcp:127.0.0.1:$extra-:$extra"
  done
  qemu-img create -q -f qcow2 -F raw -b "$(realpath "$image_dir/rootfs.ext4")" "$run_dir/disk.qcow2"
  # Another run may take the port between probing and binding: try again with a new one. qemu stays
  # in the background: it must not inherit the boot lock (9>&-).
  for _ in 1 2 3; do
    port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    if qemu-system-x86_64 -name "$name" -machine q35 -accel "$accel" -cpu "$cpu_model" -smp "${VM_CPUS:-1}" \
        -m "${VM_MEM:-1024}" -kernel "$image_dir/vmlinuz" -initrd "$image_dir/initrd.img" \
        -append "$append" \
        -drive "file=$run_dir/disk.qcow2,if=virtio,format=qcow2,cache=unsafe" \
        -netdev "user,id=net0,$net,hostfwd=tcp:127.0.0.1:$port-:22$forwards" -device virtio-net-pci,netdev=net0 \
        -serial "file:$run_dir/console.log" -display none -daemonize -pidfile "$run_dir/pid" \
        2> "$run_dir/qemu.log" 9>&-; then
      break
    fi
    grep -q "Could not set up host forwarding" "$run_dir/qemu.log" || { cat "$run_dir/qemu.log" >&2; exit 1; }
  done
  [ -f "$run_dir/pid" ] || { cat "$run_dir/qemu.log" >&2; exit 1; }
  echo "$port" > "$run_dir/port"
  echo "$mode" > "$run_dir/mode"
}

running() { kill -0 "$(cat "$run_dir/pid")" 2>/dev/null; }

# wait_ready: until the guest's word and then a login; sets $outcome, $to_word, $to_ssh, $guest_uptime,
# $failed_logins.
wait_ready() {
  local started deadline word probe_error=""
  started="$(now)"
  deadline=$((SECONDS + timeout))
  to_word=- to_ssh=- guest_uptime=- failed_logins=0
  until word="$(grep -a -m1 -o 'kubenode-vm: ssh [a-z ]*[0-9.]*s after boot.*' "$run_dir/console.log" 2>/dev/null)"; do
    if ! running; then outcome="qemu exited"; return 1; fi
    if [ $SECONDS -ge $deadline ]; then outcome="no word from the guest within ${timeout}s"; return 1; fi
    sleep 1
  done
  to_word="$(since "$started")"
  word="${word%$'\r'}"
  guest_uptime="$(sed -n 's/.* \([0-9.]*\)s after boot.*/\1/p' <<< "$word")"
  case "$word" in
    "kubenode-vm: ssh ready"*) ;;
    *) outcome="the guest says: ${word#kubenode-vm: }"; return 1 ;;
  esac
  # sshd listens: the first login execs sshd anew, slow under TCG, so each try may take 30 s.
  until probe_error="$(ssh "${ssh_opts[@]}" -o ConnectTimeout=30 -p "$port" root@127.0.0.1 true 2>&1)"; do
    failed_logins=$((failed_logins + 1))
    if ! running; then outcome="qemu exited"; return 1; fi
    if [ $SECONDS -ge $deadline ]; then
      outcome="sshd listens but no login within ${timeout}s (last: ${probe_error:-no message})"
      return 1
    fi
    sleep 2
  done
  to_ssh="$(since "$started")"
  outcome=ready
}

# Boots take turns; the lock is dropped when this script ends (the descriptor closes with it).
lock_start="$(now)"
exec 9>"$run_root/.boot.lock"
flock 9
lock_wait="$(since "$lock_start")"

record() {  # record OUTCOME: a row of boot-times.tsv for this attempt
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$mode" "$attempt" "$1" "$lock_wait" "$to_word" "$to_ssh" \
    "$guest_uptime" "$failed_logins" >> "$log_dir/boot-times.tsv"
}

attempt=1
while :; do
  boot "$attempt"
  if wait_ready; then
    record ready
    echo "VM $name ($mode) ready for ssh in ${to_ssh}s (the guest's word after ${to_word}s, its uptime ${guest_uptime}s; boot $attempt)" >&2
    echo "$port"
    exit 0
  fi
  kept="$log_dir/$name.boot-$attempt.console.log"
  cp "$run_dir/console.log" "$kept" 2>/dev/null || : > "$kept"
  record "failed$held: $outcome"
  echo "VM $name ($mode), boot $attempt, on 127.0.0.1:$port: not ready: $outcome; its console log ($kept) ends:" >&2
  tail -n 60 "$kept" >&2 || true
  "$here/stop-vm.sh" "$name" >/dev/null 2>&1 || true
  if [ "$attempt" -gt "$retries" ]; then
    echo "VM $name did not become ready for ssh in $attempt boots" >&2
    exit 1
  fi
  echo "VM $name: booting again on a new overlay" >&2
  attempt=$((attempt + 1))
done
