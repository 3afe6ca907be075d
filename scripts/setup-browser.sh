#!/usr/bin/env bash
# Installs what the web page's browser test (server/tests/web_page.rs) needs:
# Debian's chromium (apt, when /usr/bin/chromium is missing; run as root) and
# playwright-core, pinned by tools/browser/package-lock.json. Then checks that
# the committed three.js bundle is what server/web/vendor.sh builds.
# Idempotent: what is installed already is kept.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x /usr/bin/chromium ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
fi
if [ ! -f tools/browser/node_modules/playwright-core/package.json ]; then
  npm ci --prefix tools/browser --no-audit --no-fund
fi
server/web/vendor.sh --check
