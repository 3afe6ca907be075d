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
echo "check: fmt, clippy and the fuzz crate pass"
