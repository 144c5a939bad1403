#!/usr/bin/env bash
# gen_mod.sh RELEASE [MODFILE]: a go.mod (default go.mod) that links k8s.io/kubernetes RELEASE (1.37.2), with a replace
# line for every staging module kubernetes requires at v0.0.0, pinned to the matching v0.Y.Z; then go mod tidy, run
# in a copy holding only the files this release builds (a plain `go mod tidy` here would see
# every release's files and raise shared dependencies above what that kubelet release ships with). A release that
# needs a newer Go than the machine's: GOTOOLCHAIN=go1.27.3 bash gen_mod.sh 1.38.0-beta.0 go.1.38.mod.
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
  # The judge's own code needs Go 1.26; a release whose kubernetes module asks for more (1.38: Go 1.27) gets its line.
  awk -v floor=1.26.0 '/^go /{print $2; print floor; exit}' "$gomod" | sort -V | tail -1 | sed 's/^/go /'
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
# (k8s.io/legacy-cloud-providers v0.29.6, which 1.29's cmd/kubelet/app imports too: release_129_app.go).
(cd "$work" && go mod tidy -e 2>&1 | tee "$work/tidy.log" >&2)
# A dependency the proxy refuses at the version kubernetes asks for (sigs.k8s.io/structured-merge-diff/v7 v7.0.1 for
# 1.38.0-beta.0: "403 Forbidden: This module version is not available"): linked at its newest served patch below it.
{ grep -o '[a-z0-9./-]*@v[0-9][^:]*: reading https://[^ ]*: 403' "$work/tidy.log" || true; } | sed 's/: reading.*//' | sort -u |
  while IFS=@ read -r module version; do
    patch="$( { (cd / && go list -m -versions "$module" 2>/dev/null) | tr ' ' '\n'; echo "$version"; } |
      grep "^${version%.*}\." | sort -V -u | awk -v v="$version" '$0 == v { print below; exit } { below = $0 }')" || true
    if [ -n "$patch" ]; then
      echo "gen_mod.sh: the proxy refuses $module@$version; $patch instead" >&2
      (cd "$work" && go mod edit -replace "$module=$module@$patch")
    elif [ -d "stub/$module" ]; then
      # Refused at every version (sigs.k8s.io/iptables-wrappers): the stub beside this script (its go.mod says why).
      echo "gen_mod.sh: the proxy refuses every version of $module; stub/$module instead" >&2
      mkdir -p "$work/stub/$module" && cp -r "stub/$module/." "$work/stub/$module/"
      (cd "$work" && go mod edit -replace "$module=./stub/$module")
    fi
  done
(cd "$work" && go mod tidy -e)
cp "$work/go.mod" "$modfile"
cp "$work/go.sum" "${modfile%.mod}.sum"
