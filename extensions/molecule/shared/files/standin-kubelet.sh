#!/bin/sh
# standin-kubelet.sh VERSION CONFIG_DIR [BINARY]: install the stand-in kubelet's files, one ssh round trip instead of
# a module per file (each costs seconds under TCG). Prints the path of each file it changed, nothing when all are in
# place. VERSION: what `kubelet --version` answers (the collection plans for the release the node's kubelet reports).
# CONFIG_DIR: true gives kubelet a --config-dir, as kubeadm's KUBELET_EXTRA_ARGS would.
# BINARY: stand-in (the default) writes the stand-in binary; real leaves /usr/local/bin/kubelet to the real kubelet
# (real_kubelet.yml) and gives it no kubeconfig: it runs standalone, its pods the static ones; joined leaves it too,
# with kubeadm's kubeconfig flags: `kubeadm join` gives it the cluster (tasks/join_cluster.yml).
set -eu
version="$1"
config_dir="$2"
binary="${3:-stand-in}"

# put MODE PATH: stdin becomes PATH (directories made) unless PATH already holds exactly that.
put() {
  tmp="$(mktemp)"
  cat > "$tmp"
  if [ -f "$2" ] && cmp -s "$tmp" "$2" && [ "$(stat -c %a "$2")" = "$1" ]; then
    rm -f "$tmp"
    return
  fi
  mkdir -p "$(dirname "$2")"
  install -m "$1" "$tmp" "$2"
  rm -f "$tmp"
  echo "$2"
}

# kubelet's healthz on 127.0.0.1:10248, for the role's health gate: "ok" to every request, from a bare socket
# loop (python3 -S, no http.server to import: under TCG that import took seconds, and the role polls healthz
# right after each restart).
[ "$binary" = stand-in ] && put 755 /usr/local/bin/kubelet <<SCRIPT
#!/bin/sh
case "\$1" in --version) echo "Kubernetes v$version"; exit 0;; esac
exec /usr/bin/python3 -S -c '
import socket
server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", 10248))
server.listen(16)
while True:
    client = server.accept()[0]
    client.recv(4096)
    client.sendall(b"HTTP/1.0 200 OK\\r\\nContent-Type: text/plain\\r\\nContent-Length: 2\\r\\n\\r\\nok")
    client.close()
'
SCRIPT

# No start limit, as kubeadm's packaged unit: a kubelet that exits while the runtime or the API server comes up after a
# boot is started again, not given up on after five quick failures.
put 644 /etc/systemd/system/kubelet.service <<'UNIT'
[Unit]
Description=kubelet (kubenode.cgroups tests)
After=containerd.service
StartLimitInterval=0
[Service]
ExecStart=/usr/local/bin/kubelet
Restart=always
[Install]
WantedBy=multi-user.target
UNIT

# Laid out as kubeadm lays out the real one: the flags come from 10-kubeadm.conf's Environment= and its
# environment files, where the collection must find --config (and --config-dir) itself.
if [ "$binary" = real ]; then
  kubeconfig_args=''
else
  kubeconfig_args='--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf --kubeconfig=/etc/kubernetes/kubelet.conf'
fi
put 644 /etc/systemd/system/kubelet.service.d/10-kubeadm.conf <<DROPIN
[Service]
Environment="KUBELET_KUBECONFIG_ARGS=$kubeconfig_args"
Environment="KUBELET_CONFIG_ARGS=--config=/var/lib/kubelet/config.yaml"
EnvironmentFile=-/var/lib/kubelet/kubeadm-flags.env
EnvironmentFile=-/etc/default/kubelet
ExecStart=
ExecStart=/usr/local/bin/kubelet \$KUBELET_KUBECONFIG_ARGS \$KUBELET_CONFIG_ARGS \$KUBELET_KUBEADM_ARGS \$KUBELET_EXTRA_ARGS
DROPIN

if [ "$config_dir" = true ]; then
  echo 'KUBELET_EXTRA_ARGS=--config-dir=/etc/kubernetes/kubelet.conf.d' | put 644 /etc/default/kubelet
else
  echo 'KUBELET_EXTRA_ARGS=' | put 644 /etc/default/kubelet
fi
