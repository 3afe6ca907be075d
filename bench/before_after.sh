#!/usr/bin/env bash
# Earlier builds against this one, in one run on one corpus (issue 41): the
# main job (`batch --to glb`, 2 jobs), the bytes of every GLB and glTF it
# writes, and the service under wrk, each build's runs interleaved with the
# others' (A B C A B C ...) so a drift of the machine's speed touches all
# alike. Prints a Markdown report (bench/RESULTS.md holds its figures).
#
#   bench/before_after.sh                  # 0447e4e^ and 0447e4e against the working tree
#   bench/before_after.sh REV [REV ...]    # other earlier revisions
#   BENCH_RUNS=7 bench/before_after.sh     # 7 rounds instead of 5 (the median is quoted)
#   BENCH_BUILD_ONLY=1 bench/before_after.sh   # only the builds (to measure later on an idle machine)
#
# 0447e4e is the commit that made every glTF export carry the original MSH;
# 0447e4e^ is the export before it. Each revision is built in release mode
# from a `git worktree` at target/before-after/SHA (its own target folder,
# reused while the revision is the same). The corpus is this tree's
# `gen-fixtures full`, so every build converts the same files. Work files go
# to /dev/shm when it exists. Raw logs: test-output/bench/before-after-*.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
runs="${BENCH_RUNS:-5}"
revs=("$@")
[ ${#revs[@]} -gt 0 ] || revs=("0447e4e^" "0447e4e")
logs="$root/test-output/bench"
mkdir -p "$logs"
command -v wrk >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
[ -x /usr/bin/time ] || { apt-get update -qq && apt-get install -y -qq time >/dev/null; }

# The builds: labels[i] names bins[i], a release folder with mshconv and mshconv-server.
labels=() bins=()
ba="$root/target/before-after"
for rev in "${revs[@]}"; do
  sha=$(git rev-parse --verify --quiet "$rev^{commit}") || { echo "before_after.sh: no such revision: $rev" >&2; exit 2; }
  dir="$ba/${sha:0:12}"
  if [ ! -f "$dir/target/.rev" ] || [ "$(cat "$dir/target/.rev")" != "$sha" ]; then
    if [ ! -e "$dir/.git" ]; then
      rm -rf "$dir"
      git worktree prune
      git worktree add --quiet --detach "$dir" "$sha"
    fi
    echo "before_after.sh: building $rev (${sha:0:10}), release" >&2
    (cd "$dir" && CARGO_TARGET_DIR="$dir/target" cargo build --release --locked -q -p mshconv -p mshconv-server)
    echo "$sha" >"$dir/target/.rev"
  fi
  labels+=("$rev (${sha:0:10})")
  bins+=("$dir/target/release")
done
cargo build --release --locked -q -p mshconv -p mshconv-server -p mshconv-fixtures
dirty=$(git diff --quiet HEAD -- . ':!bench' 2>/dev/null || echo " + edits")
labels+=("this tree ($(git rev-parse --short=10 HEAD)$dirty)")
bins+=("$root/target/release")
[ -z "${BENCH_BUILD_ONLY:-}" ] || exit 0
n=${#bins[@]}
last=$((n - 1))

if [ -d /dev/shm ] && [ -w /dev/shm ]; then base=$(mktemp -d /dev/shm/mshconv-before-after.XXXXXX); else base=$(mktemp -d); fi
server_pids=()
trap 'for p in "${server_pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$base"' EXIT
corpus="$base/corpus"
"$root/target/release/gen-fixtures" full --out "$corpus" >/dev/null
in_bytes=$(du -sb "$corpus" | cut -f1)

# timed <file> <command...>: appends "<wall> <user+sys> <peak KiB>" to file.
timed() {
  local file=$1; shift
  /usr/bin/time -f '%e %U %S %M' -o "$base/time.txt" "$@" >>"$logs/before-after-run.log" 2>&1 || true
  # (its last line: a failing command's status line comes first; the batch
  # exits 1 for the corpus's damaged inputs)
  tail -n 1 "$base/time.txt" | awk '{printf "%.3f %.3f %d\n", $1, $2 + $3, $4}' >>"$file"
}
# median_of <file> <column>: the median of a column.
median_of() { sort -n -k"$2","$2" "$1" | sed -n "$(( ($(wc -l <"$1") + 1) / 2 ))p" | cut -d' ' -f"$2"; }

# (a) The batch, interleaved with the copy of the same corpus.
for _ in $(seq "$runs"); do
  rm -rf "$base/copy"; timed "$base/cp" cp -r "$corpus" "$base/copy"
  for i in $(seq 0 "$last"); do
    rm -rf "$base/glb$i"
    timed "$base/batch$i" "${bins[$i]}/mshconv" batch "$corpus" --to glb --out "$base/glb$i" --jobs 2 --quiet
  done
done
# The bytes: every GLB of the last run, and every glTF (written once).
for i in $(seq 0 "$last"); do
  "${bins[$i]}/mshconv" batch "$corpus" --to gltf --out "$base/gltf$i" --jobs 2 --quiet >>"$logs/before-after-run.log" 2>&1 || true
done
count() { find "$1" -type f -name "*.$2" | wc -l; }
bytes() { find "$1" -type f \( -name '*.gltf' -o -name '*.glb' -o -name '*.bin' \) -printf '%s\n' | awk '{s += $1} END {print s + 0}'; }

# (b) The service: each build's server on loopback, wrk for 10 s on the
# typical (median-size) model at 8 connections and on the large one (90th
# percentile) at 32, the builds in turn in every round.
typical=$(find "$corpus/models" -name '*.msh' -printf '%s %p\n' | sort -n | awk '{a[NR]=$2} END {print a[int((NR+1)/2)]}')
large=$(find "$corpus/models" -name '*.msh' -printf '%s %p\n' | sort -n | awk '{a[NR]=$2} END {print a[int(NR*0.9)]}')
ports=()
for i in $(seq 0 "$last"); do
  port=$((20000 + RANDOM % 20000 + i))
  "${bins[$i]}/mshconv-server" --addr "127.0.0.1:$port" --max-jobs 32 >"$logs/before-after-server$i.log" 2>&1 &
  server_pids+=($!)
  ports+=("$port")
  for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
done
service_round() {
  local key=$1 model=$2 c=$3 i out
  for i in $(seq 0 "$last"); do
    out=$(BENCH_MODEL="$model" wrk -t2 -c"$c" -d10s -s bench/wrk-post.lua "http://127.0.0.1:${ports[$i]}/v1/convert?to=glb")
    echo "$out" >>"$logs/before-after-wrk-$key-$i.log"
    echo "$(echo "$out" | awk '/Requests\/sec/ {print $2}') $(echo "$out" | awk '/Non-2xx/ {print $5}')" >>"$base/wrk-$key-$i"
  done
}
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for _ in $(seq "$runs"); do
  service_round typical "$typical" 8
  service_round large "$large" 32
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

ratio() { printf '%.2f' "$(echo "$1 / $2" | bc -l)"; }
cat <<EOF
## Before and after: run of $(date -u +%Y-%m-%d) on $(nproc) cores ($(uname -m)); median of $runs interleaved rounds

Corpus: \`gen-fixtures full\` of this tree, $(find "$corpus" -type f | wc -l) files, $(printf '%.1f' "$(echo "$in_bytes / 1048576" | bc -l)") MiB.
\`cp -r\` of the corpus in the same rounds: $(median_of "$base/cp" 1) s wall (median).
Load average (1/5/15 min) before the service part: $load_before; after: $load_after.

\`batch CORPUS --to glb --jobs 2\` (whole process: wall, user + system, peak memory) and the bytes it writes:

| build | wall s | vs \`cp -r\` | CPU s | peak MiB | GLB files | GLB bytes | vs this tree | glTF files (+ .bin) bytes | vs this tree |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|
EOF
for i in $(seq 0 "$last"); do
  w=$(median_of "$base/batch$i" 1)
  echo "| ${labels[$i]} | $w | $(ratio "$(median_of "$base/cp" 1)" "$w")x | $(median_of "$base/batch$i" 2) | $(( $(median_of "$base/batch$i" 3) / 1024 )) | $(count "$base/glb$i" glb) | $(bytes "$base/glb$i") | $(ratio "$(bytes "$base/glb$i")" "$(bytes "$base/glb$last")") | $(bytes "$base/gltf$i") | $(ratio "$(bytes "$base/gltf$i")" "$(bytes "$base/gltf$last")") |"
done
cat <<EOF

The service (\`/v1/convert?to=glb\` over loopback, wrk 2 threads, 10 s a run, requests/s, median):
\`$(basename "$typical")\` ($(stat -c %s "$typical") bytes) at 8 connections, \`$(basename "$large")\` ($(stat -c %s "$large") bytes) at 32.

| build | typical req/s | vs this tree | large req/s | vs this tree | non-2xx |
|---|---:|---:|---:|---:|---:|
EOF
for i in $(seq 0 "$last"); do
  t=$(median_of "$base/wrk-typical-$i" 1) l=$(median_of "$base/wrk-large-$i" 1)
  t_now=$(median_of "$base/wrk-typical-$last" 1) l_now=$(median_of "$base/wrk-large-$last" 1)
  bad=$(cat "$base/wrk-typical-$i" "$base/wrk-large-$i" | awk '{s += $2} END {print s + 0}')
  echo "| ${labels[$i]} | $t | $(ratio "$t" "$t_now") | $l | $(ratio "$l" "$l_now") | $bad |"
done
