#!/usr/bin/env bash
# Print "kvm" if KVM really boots the test kernel here, else "tcg". Some hosts expose a
# /dev/kvm that hangs stock kernels (nested PVM), so the device alone proves nothing.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
image_dir="${VM_IMAGE_DIR:-$here/../../.cache/vm/image}"
cache="$image_dir/accel"
if [ -f "$cache" ]; then cat "$cache"; exit 0; fi
result=tcg
if [ -w /dev/kvm ]; then
  log="$(mktemp)"
  # A subshell, so that the shell's note of a qemu that aborted goes to /dev/null too.
  (timeout 20 qemu-system-x86_64 -accel kvm -cpu host -m 256 -kernel "$image_dir/vmlinuz" \
    -append "console=ttyS0 panic=-1" -no-reboot -display none -serial "file:$log") >/dev/null 2>&1
  grep -q "Linux version" "$log" && result=kvm
  rm -f "$log"
fi
echo "$result" | tee "$cache"
