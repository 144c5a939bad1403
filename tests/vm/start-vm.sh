#!/usr/bin/env bash
# start-vm.sh NAME MODE: boot a throw-away VM (a qcow2 overlay on the cached image) with the
# cgroup MODE v2 | hybrid | v1, ssh forwarded from a free 127.0.0.1 port only, and wait for
# ssh. Prints "PORT" on success; on failure prints the serial console log and stops the VM.
# Env: VM_RUN_DIR, VM_IMAGE_DIR, VM_ACCEL (auto|kvm|tcg), VM_CPUS (1), VM_MEM (1024),
#      VM_BOOT_TIMEOUT (240 s), VM_NET (restrict|open: open lets the guest reach the apt mirror).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
name="${1:?usage: start-vm.sh NAME v2|hybrid|v1}"
mode="${2:?usage: start-vm.sh NAME v2|hybrid|v1}"
image_dir="${VM_IMAGE_DIR:-$here/../../.cache/vm/image}"
run_dir="${VM_RUN_DIR:-$here/../../.cache/vm/run}/$name"
case "$mode" in
  v2) cgroup_args="systemd.unified_cgroup_hierarchy=1" ;;
  hybrid) cgroup_args="systemd.unified_cgroup_hierarchy=0" ;;
  v1) cgroup_args="systemd.unified_cgroup_hierarchy=0 systemd.legacy_systemd_cgroup_controller=1" ;;
  *) echo "unknown cgroup mode '$mode' (v2, hybrid or v1)" >&2; exit 2 ;;
esac
[ -f "$image_dir/rootfs.ext4" ] || { echo "no VM image in $image_dir: run tests/vm/build-image.sh" >&2; exit 1; }
if [ -f "$run_dir/pid" ] && kill -0 "$(cat "$run_dir/pid")" 2>/dev/null; then
  echo "VM $name is already running" >&2
  exit 1
fi
rm -rf "$run_dir"
mkdir -p "$run_dir"
accel="${VM_ACCEL:-auto}"
[ "$accel" = auto ] && accel="$("$here/kvm-check.sh")"

qemu-img create -q -f qcow2 -F raw -b "$(realpath "$image_dir/rootfs.ext4")" "$run_dir/disk.qcow2"
net="restrict=on"
[ "${VM_NET:-restrict}" = open ] && net="restrict=off"

boot() {
  port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  qemu-system-x86_64 -name "$name" -machine q35 -accel "$accel" -cpu max -smp "${VM_CPUS:-1}" \
    -m "${VM_MEM:-1024}" -kernel "$image_dir/vmlinuz" -initrd "$image_dir/initrd.img" \
    -append "root=/dev/vda rw console=ttyS0 quiet $cgroup_args" \
    -drive "file=$run_dir/disk.qcow2,if=virtio,format=qcow2,cache=unsafe" \
    -netdev "user,id=net0,$net,hostfwd=tcp:127.0.0.1:$port-:22" -device virtio-net-pci,netdev=net0 \
    -serial "file:$run_dir/console.log" -display none -daemonize -pidfile "$run_dir/pid" \
    2> "$run_dir/qemu.log"
}
# Another run may take the port between probing and binding: try again with a new one.
for _ in 1 2 3; do
  if boot; then break; fi
  grep -q "Could not set up host forwarding" "$run_dir/qemu.log" || { cat "$run_dir/qemu.log" >&2; exit 1; }
done
[ -f "$run_dir/pid" ] || { cat "$run_dir/qemu.log" >&2; exit 1; }
echo "$port" > "$run_dir/port"
echo "$mode" > "$run_dir/mode"

deadline=$((SECONDS + ${VM_BOOT_TIMEOUT:-240}))
until ssh -q -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
    -o ConnectTimeout=5 -i "$image_dir/id_ed25519" -p "$port" root@127.0.0.1 true 2>/dev/null; do
  if [ $SECONDS -ge $deadline ] || ! kill -0 "$(cat "$run_dir/pid")" 2>/dev/null; then
    echo "VM $name did not answer ssh on 127.0.0.1:$port within ${VM_BOOT_TIMEOUT:-240}s; console log:" >&2
    tail -n 60 "$run_dir/console.log" >&2 || true
    "$here/stop-vm.sh" "$name" >/dev/null 2>&1 || true
    exit 1
  fi
  sleep 2
done
echo "$port"
