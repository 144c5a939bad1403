#!/usr/bin/env bash
# Build the test VM image: Debian bookworm (debootstrap minbase) with systemd, sshd, python3 (with a bytecode
# cache for the modules ansible sends, kubenode_test_bytecode.py) and containerd; the kernel and initrd taken out
# for qemu -kernel/-initrd; an ext4 root made with mkfs.ext4 -d; a fresh ssh key per build. Cached in
# $VM_IMAGE_DIR and rebuilt only when this script or kubenode_test_bytecode.py changes. Needs root (debootstrap,
# chroot).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
image_dir="${VM_IMAGE_DIR:-$here/../../.cache/vm/image}"
stamp="$(cat "$0" "$here/kubenode_test_bytecode.py" | sha256sum | cut -c1-16)"
if [ -f "$image_dir/stamp" ] && [ "$(cat "$image_dir/stamp")" = "$stamp" ]; then
  echo "vm image up to date: $image_dir"
  exit 0
fi

# The mirror apt already uses (sources.list or deb822), never a hard-coded host.
# shellcheck disable=SC2016  # $(REPO_URI) etc. are apt's format placeholders, not shell
mirror="$(apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(IDENTIFIER)' 2>/dev/null \
  | awk '$2 == "bookworm" && $3 == "Packages" {print $1; exit}')"
if [ -z "$mirror" ]; then
  echo "no bookworm Packages index in apt's configuration; run 'apt-get update' first" >&2
  exit 1
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/kubenode-vm-build.XXXXXX")"
cleanup() {
  for mount in proc sys dev/pts dev; do umount -l "$work/rootfs/$mount" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
rootfs="$work/rootfs"

echo "debootstrap bookworm from $mirror"
debootstrap --variant=minbase \
  --include=systemd,systemd-sysv,dbus,udev,kmod,iproute2,openssh-server,python3,python3-yaml,sudo,procps,less,containerd \
  bookworm "$rootfs" "$mirror" > "$work/debootstrap.log" 2>&1 || { tail -30 "$work/debootstrap.log"; exit 1; }

# Only the modules needed to find the root disk go into the initramfs.
mkdir -p "$rootfs/etc/initramfs-tools/conf.d"
echo "MODULES=list" > "$rootfs/etc/initramfs-tools/conf.d/kubenode.conf"
printf '%s\n' virtio_pci virtio_blk ext4 > "$rootfs/etc/initramfs-tools/modules"
mount -t proc proc "$rootfs/proc"
mount -t sysfs sys "$rootfs/sys"
mount --bind /dev "$rootfs/dev"
chroot "$rootfs" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  linux-image-amd64 initramfs-tools zstd > "$work/kernel.log" 2>&1 || { tail -30 "$work/kernel.log"; exit 1; }
umount -l "$rootfs/dev" "$rootfs/sys" "$rootfs/proc"

# Boot quickly and reach ssh: DHCP on the virtio NIC, root by key only, no timers that apt-get.
cat > "$rootfs/etc/systemd/network/80-dhcp.network" <<'NET'
[Match]
Name=en* eth*

[Network]
DHCP=yes
NET
chroot "$rootfs" systemctl enable systemd-networkd.service >/dev/null 2>&1
chroot "$rootfs" systemctl mask apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer \
  fstrim.timer systemd-networkd-wait-online.service >/dev/null 2>&1 || true
echo "/dev/vda / ext4 defaults,noatime 0 1" > "$rootfs/etc/fstab"
echo kubenode-vm > "$rootfs/etc/hostname"
mkdir -p "$rootfs/etc/systemd/system/serial-getty@ttyS0.service.d"
cat > "$rootfs/etc/systemd/system/serial-getty@ttyS0.service.d/autologin.conf" <<'GETTY'
[Service]
ExecStart=
ExecStart=-/sbin/agetty --autologin root --noclear %I 115200 linux
GETTY
echo "UseDNS no" > "$rootfs/etc/ssh/sshd_config.d/kubenode.conf"
# A process that did not end at shutdown (a container's "runc:[2:INIT]", 2026-11-29) held a reboot for 170 s:
# systemd-shutdown waits for such a process, and for a unit that will not stop, DefaultTimeoutStopSec (90 s by
# default) each time. 20 s is plenty for what the VMs run (kubelet, containerd, their pods).
mkdir -p "$rootfs/etc/systemd/system.conf.d"
printf '[Manager]\nDefaultTimeoutStopSec=20s\n' > "$rootfs/etc/systemd/system.conf.d/kubenode-test.conf"

# The guest's word to the test host (tests/vm/start-vm.sh waits for it on the serial console): once
# ssh.service has started (Type=notify: sshd listens) or given up. It goes through the kernel's log (at error
# level, which the quiet console still prints) rather than a write to /dev/ttyS0: agetty's vhangup() of ttyS0 at
# the same moment revokes such a write, and a boot whose word was lost that way waited its whole timeout (a
# console log that ends at the autologin prompt, no word). The host keys were made when
# openssh-server was installed above, so nothing is generated at boot. kubenode.test_hold_sshd on the
# kernel command line keeps sshd from starting, for the test of start-vm.sh's retry.
cat > "$rootfs/usr/local/sbin/kubenode-boot-status" <<'STATUS'
#!/bin/sh
uptime="$(cut -d' ' -f1 /proc/uptime)"
state="$(systemctl show -p ActiveState --value ssh.service)"
if [ "$state" = active ]; then
  echo "<3>kubenode-vm: ssh ready ${uptime}s after boot"
elif [ "$(systemctl show -p ConditionResult --value ssh.service)" = no ]; then
  echo "<3>kubenode-vm: ssh not running ${uptime}s after boot (ssh.service $state: a start condition failed)"
else
  echo "<3>kubenode-vm: ssh not running ${uptime}s after boot (ssh.service $state, $(systemctl show -p Result --value ssh.service))"
fi > /dev/kmsg
STATUS
chmod 755 "$rootfs/usr/local/sbin/kubenode-boot-status"
cat > "$rootfs/etc/systemd/system/kubenode-boot-status.service" <<'UNIT'
[Unit]
Description=Tell the test host on the serial console whether sshd is up
After=ssh.service

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/kubenode-boot-status

[Install]
WantedBy=multi-user.target
UNIT
chroot "$rootfs" systemctl enable kubenode-boot-status.service >/dev/null 2>&1
mkdir -p "$rootfs/etc/systemd/system/ssh.service.d"
printf '[Unit]\nConditionKernelCommandLine=!kubenode.test_hold_sshd\n' > "$rootfs/etc/systemd/system/ssh.service.d/test-hold.conf"

# The bytecode cache for the modules ansible sends (tests/vm/kubenode_test_bytecode.py says why and what it does):
# Python loads it at every start through a .pth file in the system's site-packages.
install -m 644 "$here/kubenode_test_bytecode.py" "$rootfs/usr/lib/python3/dist-packages/kubenode_test_bytecode.py"
echo "import kubenode_test_bytecode" > "$rootfs/usr/lib/python3/dist-packages/kubenode_test_bytecode.pth"

mkdir -p "$image_dir.new"
ssh-keygen -q -t ed25519 -N '' -C kubenode-test-vm -f "$image_dir.new/id_ed25519"
install -d -m 700 "$rootfs/root/.ssh"
install -m 600 "$image_dir.new/id_ed25519.pub" "$rootfs/root/.ssh/authorized_keys"

# Take the kernel out; drop modules no test VM needs (sound, GPUs, wireless, ...).
cp -L "$rootfs/vmlinuz" "$image_dir.new/vmlinuz"
cp -L "$rootfs/initrd.img" "$image_dir.new/initrd.img"
for dir in "$rootfs"/lib/modules/*/kernel; do
  rm -rf "$dir/sound" "$dir/drivers/gpu" "$dir/drivers/net/wireless" "$dir/drivers/media" \
    "$dir/drivers/infiniband" "$dir/drivers/bluetooth" "$dir/drivers/staging"
done
rm -rf "$rootfs/var/cache/apt/archives"/*.deb "$rootfs/usr/share/doc" "$rootfs/usr/share/man"

mkfs.ext4 -q -F -L kubenode-root -d "$rootfs" "$image_dir.new/rootfs.ext4" 2G
echo "$stamp" > "$image_dir.new/stamp"
rm -rf "$image_dir"
mv "$image_dir.new" "$image_dir"
echo "vm image built: $image_dir"
