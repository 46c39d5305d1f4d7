#!/usr/bin/env bash
# Packs pkg/ with `npm pack` and installs the tarball into a fresh consumer folder, as a
# user would: every JavaScript test loads the package from there, never from the tree.
# Usage: scripts/consumer.sh [DIR]   (default target/consumer; prints DIR)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/target/consumer}
[[ -f $root/pkg/package.json ]] || { echo "consumer.sh: no pkg/: run make pkg first" >&2; exit 1; }
rm -rf "$dir"
mkdir -p "$dir"
tgz=$(cd "$root/pkg" && npm pack --silent --pack-destination "$dir" | tail -n 1)
cd "$dir"
printf '{ "name": "consumer", "private": true, "type": "module" }\n' > package.json
npm install --no-audit --no-fund --silent "./$tgz" >&2
echo "$dir"
