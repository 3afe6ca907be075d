#!/usr/bin/env bash
# The check every commit passes before it is made (the part of .ci/run that
# needs no test run): formatting, clippy with warnings as errors, and the fuzz
# crate's build check, all with --locked so a stale Cargo.lock fails here.
#   scripts/check.sh          # from anywhere in a checkout or worktree
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all --check
cargo clippy --locked --workspace --all-targets -- -D warnings
cargo check --locked --manifest-path fuzz/Cargo.toml --bins
# Only glTF's meshopt feature builds C++ (issue 32): the core, OBJ, USD, the
# CLI without its compressed imports and the fuzz targets of the other
# formats must not pull it (or any C/C++ build) in.
cxx_free() {
  if cargo tree --locked -e normal,build "$@" 2>/dev/null | grep -E '(^|[ ─])(meshopt|cc) v'; then
    echo "check: cargo tree $* pulls in a C/C++ build" >&2
    exit 1
  fi
}
cxx_free -p mshconv-convert
cxx_free -p mshconv-obj
cxx_free -p mshconv-usd
cxx_free -p mshconv-gltf --no-default-features --features draco
cxx_free -p mshconv --no-default-features --features draco
# (libFuzzer itself is C++: left out.)
cxx_free --manifest-path fuzz/Cargo.toml --no-default-features --features obj --prune libfuzzer-sys
echo "check: fmt, clippy, the fuzz crate and the C++-free builds pass"
