#!/usr/bin/env bash
# Builds vendor/three.bundle.js: three.js, OrbitControls and GLTFLoader (the
# exports vendor-entry.js names) as ONE minified ES module, with three.js's
# LICENSE beside it as vendor/three.LICENSE. Versions are pinned by
# package.json and package-lock.json (npm ci); the build is deterministic
# (same esbuild, same sources, no source map, no paths in the output).
#
#   server/web/vendor.sh           rebuild the committed files
#   server/web/vendor.sh --check   rebuild into a temporary folder and fail if
#                                  the result differs from the committed files
set -euo pipefail
cd "$(dirname "$0")"

check=false
case "${1:-}" in
  "") ;;
  --check) check=true ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

# Install exactly the locked versions. Install scripts are not needed:
# esbuild's binary comes in its platform package (@esbuild/<platform>).
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2

if $check; then
  out="$(mktemp -d)"
  trap 'rm -rf "$out"' EXIT
else
  out=vendor
  mkdir -p "$out"
fi

three_version="$(node -p 'require("./node_modules/three/package.json").version')"
node_modules/.bin/esbuild vendor-entry.js \
  --bundle --format=esm --minify --target=es2020 \
  --legal-comments=eof --charset=utf8 --log-level=warning \
  --banner:js="/* three.js ${three_version} (MIT License, see three.LICENSE): three, OrbitControls, GLTFLoader. Built by server/web/vendor.sh; do not edit. */" \
  --outfile="$out/three.bundle.js"
cp node_modules/three/LICENSE "$out/three.LICENSE"

if $check; then
  status=0
  for f in three.bundle.js three.LICENSE; do
    if ! cmp -s "$out/$f" "vendor/$f"; then
      echo "server/web/vendor/$f differs from what server/web/vendor.sh builds: run server/web/vendor.sh and commit the result" >&2
      status=1
    fi
  done
  [ "$status" = 0 ] && echo "server/web/vendor: up to date (three.js ${three_version})" >&2
  exit "$status"
fi
echo "built server/web/vendor/three.bundle.js ($(wc -c < vendor/three.bundle.js) bytes, three.js ${three_version})" >&2
