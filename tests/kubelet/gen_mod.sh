#!/usr/bin/env bash
# gen_mod.sh RELEASE [MODFILE]: a go.mod (default go.mod) that links k8s.io/kubernetes RELEASE (1.37.2), with a replace
# line for every staging module kubernetes requires at v0.0.0, pinned to the matching v0.Y.Z; then go mod tidy, run
# in a copy holding only the files this release builds (a plain `go mod tidy` here would see
# every release's files and raise shared dependencies above what that kubelet release ships with).
set -euo pipefail
release="$1"; modfile="${2:-go.mod}"
cd "$(dirname "$0")"
go mod download -json "k8s.io/kubernetes@v$release" >/dev/null
gomod="$(go env GOMODCACHE)/cache/download/k8s.io/kubernetes/@v/v$release.mod"
staging="v0.${release#1.}"
tmp="$(mktemp)"; trap 'rm -f "$tmp"' EXIT
{
  echo "module kubenode.example/kubelet-judge"
  echo
  echo "go 1.26.0"
  echo
  echo "require k8s.io/kubernetes v$release"
  echo
  echo "replace ("
  awk '/^replace \(/{r=1;next} r&&/^\)/{r=0} r&&/=>/{print $1}' "$gomod" | while read -r module; do
    if (cd / && GOFLAGS=-mod=mod go mod download "$module@$staging") >/dev/null 2>&1; then
      echo "	$module => $module $staging"
    else
      # A staging module the proxy refuses at this patch (k8s.io/kube-scheduler v0.31.14): its newest served patch.
      nearest="$( (cd / && go list -m -versions "$module" 2>/dev/null) | tr ' ' '\n' | grep "^${staging%.*}\." | sort -V | tail -1)" || true
      if [ -n "$nearest" ] && (cd / && GOFLAGS=-mod=mod go mod download "$module@$nearest") >/dev/null 2>&1; then
        echo "gen_mod.sh: the proxy refuses $module@$staging; $nearest instead" >&2
        echo "	$module => $module $nearest"
      fi
    fi
  done
  echo ")"
} > "$tmp"
work="$(mktemp -d)"; trap 'rm -rf "$tmp" "$work"' EXIT
minor="${release#1.}"; minor="${minor%%.*}"
# The files this release builds: those whose //go:build line holds with the tag k8s1XY (the others name releases).
for file in *.go; do
  if python3 - "$file" "k8s1$minor" <<'EOF_PY'
import re, sys
first = open(sys.argv[1]).readline()
if not first.startswith('//go:build'):
    sys.exit(0)
expression = re.sub(r'[A-Za-z_][A-Za-z0-9_]*', lambda tag: str(tag.group(0) == sys.argv[2]), first[len('//go:build'):])
sys.exit(0 if eval(expression.replace('||', ' or ').replace('&&', ' and ').replace('!', ' not ')) else 1)
EOF_PY
  then cp "$file" "$work/"; fi
done
cp "$tmp" "$work/go.mod"
sed -i '/^\/\/go:build/d' "$work"/release_*.go
# -e: a test of a kubernetes package may import a module the proxy does not serve at this release
# (k8s.io/legacy-cloud-providers v0.29.6); the judge builds without it, and a build that needs one fails.
(cd "$work" && go mod tidy -e)
cp "$work/go.mod" "$modfile"
cp "$work/go.sum" "${modfile%.mod}.sum"
