#!/usr/bin/env bash
# The performance run of issue 11, on the full generated corpus, in one go on
# one machine: the copy floors (the corpus, and the GLB folder the import
# reads), `mshconv batch` (to GLB, to OBJ, GLB back to MSH; 1 and 2 jobs), the
# same conversions in memory, Debian's assimp on the same geometry, the service
# under load (wrk, 1/8/32 connections) against the in-process rate and the HTTP
# floor (a bare axum/hyper server under the same load), and peak RSS.
# Prints a Markdown report (bench/RESULTS.md explains it) and keeps the raw
# logs in test-output/bench/.
#
#   bench/run.sh                 # everything (about 9 minutes on 2 cores)
#   BENCH_RUNS=5 bench/run.sh    # best of 5 instead of 3 for the timed steps
#   BENCH_SKIP_PEER=1 bench/run.sh   # without assimp (it is the slow part)
#   BENCH_ONLY=service bench/run.sh  # only (d), the service against its floor (~5 minutes)
#   BENCH_SERVER=PATH BENCH_ONLY=service bench/run.sh  # (d) for another build of the service
#   BENCH_ONLY=game bench/run.sh     # only (f), the game's look: bench/game.sh (~2 minutes)
#   BENCH_BEFORE="0447e4e^ 0447e4e" bench/run.sh   # and then (g): those builds against this one
#                                    # (bench/before_after.sh, ~6 minutes more)
#
# Work files go to /dev/shm when it exists (the corpus fits in memory, so the
# floor and the converter both run at memory speed), else to a temp dir.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
runs="${BENCH_RUNS:-3}"
only="${BENCH_ONLY:-}"
case "$only" in
  "" | service) ;;
  game) exec bash bench/game.sh ;;
  *) echo "bench/run.sh: BENCH_ONLY is empty (everything), service or game, not '$only'" >&2; exit 2 ;;
esac
logs="$root/test-output/bench"
mkdir -p "$logs"

need() { command -v "$1" >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq "$2" >/dev/null; }; }
need wrk wrk
[ -n "$only" ] || [ -n "${BENCH_SKIP_PEER:-}" ] || need assimp assimp-utils

if [ -z "$only" ]; then
  cargo build --release -q -p mshconv -p mshconv-server -p mshconv-fixtures
  cargo build --release -q -p mshconv-gltf --example throughput --example corpus
  cargo build --release -q -p mshconv --example io_floor
else
  cargo build --release -q -p mshconv-server -p mshconv-fixtures
  cargo build --release -q -p mshconv-gltf --example throughput
fi
cargo build --release -q -p mshconv-server --example http_floor
bin="$root/target/release"

if [ -d /dev/shm ] && [ -w /dev/shm ]; then base=$(mktemp -d /dev/shm/mshconv-bench.XXXXXX); else base=$(mktemp -d); fi
trap 'rm -rf "$base"; for p in ${server_pid:-} ${floor_pid[@]:-}; do kill "$p" 2>/dev/null; done; true' EXIT
corpus="$base/corpus"
"$bin/gen-fixtures" full --out "$corpus" >/dev/null
bytes=$(du -sb "$corpus" | cut -f1)
files=$(find "$corpus" -type f \( -name '*.msh' -o -name '*.rlb' \) | wc -l)

. bench/lib.sh

if [ -z "$only" ]; then
# (a) The floor: the same bytes read and written once.
floor=$(best_of cp "rm -rf '$base/copy'" cp -r "$corpus" "$base/copy")

# (b) mshconv batch. GLB -> MSH reads the GLB folder written by the 1-job run.
declare -A t io
for j in 1 2; do
  t[glb$j]=$(best_of "batch-glb-j$j" "rm -rf '$base/glb'" "$bin/mshconv" batch "$corpus" --to glb --out "$base/glb" --jobs "$j" --quiet)
  t[obj$j]=$(best_of "batch-obj-j$j" "rm -rf '$base/obj'" "$bin/mshconv" batch "$corpus" --to obj --out "$base/obj" --jobs "$j" --quiet)
done
for j in 1 2; do
  t[back$j]=$(best_of "batch-back-j$j" "rm -rf '$base/back'" "$bin/mshconv" batch "$base/glb" --to msh --out "$base/back" --jobs "$j" --quiet)
done
glb_bytes=$(du -sb "$base/glb" | cut -f1)
models=$(find "$base/glb" -name '*.glb' | wc -l)
# The floor of GLB -> MSH: its own input, the GLB folder, copied.
floor_glb=$(best_of cp-glb "rm -rf '$base/copy-glb'" cp -r "$base/glb" "$base/copy-glb")
# The batch's file-system work alone (no conversion): every input read, the
# GLB folder's files written as batch writes them; 1 and 2 threads.
for j in 1 2; do
  io[$j]=$("$bin/examples/io_floor" "$corpus" "$base/glb" "$base/io" "$j" "$runs" | sed 's/.*: \([0-9.]*\) s$/\1/')
done
# The conversions alone, in memory (no file system): where the CPU goes.
mem_glb=$("$bin/examples/corpus" glb "$corpus" "$runs")
mem_msh=$("$bin/examples/corpus" msh "$corpus" "$runs")

# (c) The peer: assimp converting our OBJ exports (the same geometry) to GLB,
# one process per file as a user runs it; our MSH -> GLB over the same models.
peer=""
if [ -z "${BENCH_SKIP_PEER:-}" ]; then
  objs="$base/objs.txt"
  find "$base/obj" -name '*.obj' | sort >"$objs"
  obj_count=$(wc -l <"$objs")
  mkdir -p "$base/peer"
  t0=$(now)
  while read -r o; do
    assimp export "$o" "$base/peer/$(basename "$o" .obj).glb" >>"$logs/assimp.log" 2>&1 || echo "assimp failed: $o" >>"$logs/assimp.log"
  done <"$objs"
  t1=$(now)
  peer=$(printf '%.2f' "$(echo "$t1 - $t0" | bc -l)")
  peer_ok=$(find "$base/peer" -name '*.glb' | wc -l)
fi
fi # [ -z "$only" ]: (a)-(c)

# (d) The service on loopback against the HTTP floor. A typical (median-size)
# model, wrk for 10 s at 1, 8 and 32 connections, and a large one (the 90th
# percentile by size, where the conversion is a larger part of a request) at
# 32; every connection gets a job slot (--max-jobs 32) so the numbers are
# conversions, not 503s. The floor is a bare axum/hyper server
# (server/examples/http_floor.rs) that reads the same body and answers as many
# bytes as the service's GLB of that model. If the service cost nothing beyond
# converting and bare HTTP, a request would take the in-process time of a
# conversion plus the floor's time of a request: the additive limit
# 1 / (1/in-process + 1/floor) requests/s. In-process is the same conversion
# on 2 threads, on 1 for the 1-connection row (requests come one at a time).
# This machine is shared, so the three are interleaved: every run is 5 s
# in-process, then 10 s of wrk on the service, then 10 s on the floor.
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
typical=$(find "$corpus/models" -name '*.msh' -printf '%s %p\n' | sort -n | awk '{a[NR]=$2} END {print a[int((NR+1)/2)]}')
large=$(find "$corpus/models" -name '*.msh' -printf '%s %p\n' | sort -n | awk '{a[NR]=$2} END {print a[int(NR*0.9)]}')
port=$((20000 + RANDOM % 20000))
service="http://127.0.0.1:$port/v1/convert?to=glb"
# BENCH_SERVER=PATH measures another build of the service (e.g. the base
# revision scripts/same-output.sh builds) against the same floor.
"${BENCH_SERVER:-$bin/mshconv-server}" --addr "127.0.0.1:$port" --max-jobs 32 >"$logs/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
# The GLBs the service answers for the two models: their sizes are the floors' answers.
curl -fsS --data-binary "@$typical" -o "$base/typical.glb" "$service"
curl -fsS --data-binary "@$large" -o "$base/large.glb" "$service"
# One floor per answer size, beside the service (an idle server costs nothing).
declare -A floor_pid floor_url
p=$port
for m in typical large; do
  p=$((p + 1))
  "$bin/examples/http_floor" "$p" "$(stat -c %s "$base/$m.glb")" >>"$logs/http_floor.log" 2>&1 &
  floor_pid[$m]=$!
  floor_url[$m]="http://127.0.0.1:$p/v1/convert?to=glb"
  for _ in $(seq 100); do curl -fs -o /dev/null --data-binary x "${floor_url[$m]}" && break; sleep 0.1; done
done
# CPU seconds process <pid> has used so far (utime + stime).
cpu_of() { awk -v tck="$(getconf CLK_TCK)" '{print ($14 + $15) / tck}' "/proc/$1/stat"; }
# wrk_run <key> <run> <model> <connections> <url> <pid>: wrk for 10 s; the
# run's "<requests/s> <run> <requests per CPU-second of pid>" goes to $base/runs-<key>.
wrk_run() {
  local key=$1 i=$2 model=$3 c=$4 url=$5 pid=$6 cpu0 out n
  cpu0=$(cpu_of "$pid")
  out=$(BENCH_MODEL="$model" wrk -t"$(( c < 2 ? c : 2 ))" -c"$c" -d10s --latency -s bench/wrk-post.lua "$url")
  n=$(echo "$out" | awk '/requests in/ {print $1}')
  echo "$out" >"$logs/wrk-$key-run$i.log"
  echo "$(echo "$out" | awk '/Requests\/sec/ {print $2}') $i $(printf '%.1f' "$(echo "$n / ($(cpu_of "$pid") - $cpu0)" | bc -l)")" >>"$base/runs-$key"
}
declare -A rps p50 p99 non2xx per_cpu inproc
# median <key>: of the key's runs, the one with the median requests/s is kept
# (a short stall of the shared machine can take one run's p99 on its own).
median() {
  local key=$1 i out
  read -r rps[$key] i per_cpu[$key] < <(sort -n "$base/runs-$key" | sed -n "$(( (runs + 1) / 2 ))p")
  out=$(cat "$logs/wrk-$key-run$i.log")
  p50[$key]=$(echo "$out" | awk '$1=="50%" {print $2}')
  p99[$key]=$(echo "$out" | awk '$1=="99%" {print $2}')
  non2xx[$key]=$(echo "$out" | awk '/Non-2xx/ {print $5}')
}
# load <key> <typical|large> <connections>: $runs rounds of in-process, service
# and floor; their medians under <key> (the service), floor-<key>, inproc[<key>].
load() {
  local key=$1 m=$2 c=$3 model i
  model=$([ "$m" = typical ] && echo "$typical" || echo "$large")
  for i in $(seq "$runs"); do
    "$bin/examples/throughput" "$model" "$(( c < 2 ? 1 : 2 ))" 5 >>"$base/inproc-$key"
    wrk_run "$key" "$i" "$model" "$c" "$service" "$server_pid"
    wrk_run "floor-$key" "$i" "$model" "$c" "${floor_url[$m]}" "${floor_pid[$m]}"
  done
  median "$key"; median "floor-$key"
  inproc[$key]=$(sort -n "$base/inproc-$key" | sed -n "$(( (runs + 1) / 2 ))p")
}
for c in 1 8 32; do load "$c" typical "$c"; done
load large large 32
server_rss=$(awk '/VmHWM/ {print $2}' "/proc/$server_pid/status")
kill "$server_pid" "${floor_pid[@]}"; wait "$server_pid" "${floor_pid[@]}" 2>/dev/null || true; server_pid="" floor_pid=()
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

if [ -z "$only" ]; then
# (e) Peak RSS of the CLI: the largest model both ways, and the largest archive.
largest=$(find "$corpus" -name '*.msh' -printf '%s %p\n' | sort -n | tail -1 | cut -d' ' -f2)
archive=$(find "$corpus" -name '*.rlb' -printf '%s %p\n' | sort -n | tail -1 | cut -d' ' -f2)
rss() { /usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -1; }
rss_glb=$(rss "$bin/mshconv" convert -q "$largest" "$base/largest.glb")
rss_back=$(rss "$bin/mshconv" convert -q "$base/largest.glb" "$base/largest.msh")
rss_archive=$(rss "$bin/mshconv" batch "$archive" --to glb --out "$base/archive" --jobs 1 --quiet)
# The OBJ imports that need the most memory per input byte: 65,000 one-face
# materials none of which the MTL defines (a note each), and 65,000 one-face
# objects (each a node: 17 bytes of text make ~240 bytes of MSH).
awk 'BEGIN { print "mtllib materials.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0"; for (i = 0; i < 65000; i++) printf "usemtl m_%d\nf 1 2 3\n", i }' >"$base/materials.obj"
awk 'BEGIN { for (i = 0; i < 65000; i++) printf "newmtl unused_%d\n", i }' >"$base/materials.mtl"
awk 'BEGIN { print "v 0 0 0\nv 1 0 0\nv 0 1 0"; for (i = 0; i < 65000; i++) printf "o n%d\nf 1 2 3\n", i }' >"$base/objects.obj"
rss_materials=$(rss "$bin/mshconv" convert -q "$base/materials.obj" "$base/materials.msh")
rss_objects=$(rss "$bin/mshconv" convert -q "$base/objects.obj" "$base/objects.msh")
fi # [ -z "$only" ]: (e)
size_of() { stat -c %s "$1"; }

# Latency values from wrk carry units (us, ms, s): to milliseconds.
ms() { echo "$1" | awk '{v=$1; if (v ~ /us$/) {sub(/us/,"",v); v/=1000} else if (v ~ /ms$/) {sub(/ms/,"",v)} else if (v ~ /s$/) {sub(/s/,"",v); v*=1000}; printf "%.3f", v}'; }

if [ -n "$only" ]; then
cat <<EOF
## Run of $(date -u +%Y-%m-%d) on $(nproc) cores ($(uname -m)); the service part only (BENCH_ONLY=service), median of $runs
EOF
else
cat <<EOF
## Run of $(date -u +%Y-%m-%d) on $(nproc) cores ($(uname -m)); best of $runs

Corpus: $files files, $(echo "scale=1; $bytes / 1048576" | bc -l) MiB ($models models once archives are unpacked); GLB output $(echo "scale=1; $glb_bytes / 1048576" | bc -l) MiB.

Throughput is input bytes per second: the corpus for the exports, the GLB
folder for the import. "vs floor" divides it by the copy's throughput on the
same input (\`cp -r\` of the corpus for the exports, of the GLB folder for the
import); the last column puts every step against the corpus copy.

| step | seconds | input MiB | MiB/s of input | vs floor | vs corpus copy |
|---|---:|---:|---:|---:|---:|
| floor: \`cp -r\` of the corpus | $floor | $(mibs "$bytes" 1) | $(mibs "$bytes" "$floor") | 1.00 | 1.00 |
| floor: \`cp -r\` of the GLB folder | $floor_glb | $(mibs "$glb_bytes" 1) | $(mibs "$glb_bytes" "$floor_glb") | 1.00 | $(ratio "$(mibs "$glb_bytes" "$floor_glb")" "$(mibs "$bytes" "$floor")") |
| \`batch --to glb\`, 1 job | ${t[glb1]} | $(mibs "$bytes" 1) | $(mibs "$bytes" "${t[glb1]}") | $(ratio "$floor" "${t[glb1]}") | $(ratio "$floor" "${t[glb1]}") |
| \`batch --to glb\`, 2 jobs | ${t[glb2]} | $(mibs "$bytes" 1) | $(mibs "$bytes" "${t[glb2]}") | $(ratio "$floor" "${t[glb2]}") | $(ratio "$floor" "${t[glb2]}") |
| \`batch --to obj\`, 1 job | ${t[obj1]} | $(mibs "$bytes" 1) | $(mibs "$bytes" "${t[obj1]}") | $(ratio "$floor" "${t[obj1]}") | $(ratio "$floor" "${t[obj1]}") |
| \`batch --to obj\`, 2 jobs | ${t[obj2]} | $(mibs "$bytes" 1) | $(mibs "$bytes" "${t[obj2]}") | $(ratio "$floor" "${t[obj2]}") | $(ratio "$floor" "${t[obj2]}") |
| GLB folder \`batch --to msh\`, 1 job | ${t[back1]} | $(mibs "$glb_bytes" 1) | $(mibs "$glb_bytes" "${t[back1]}") | $(ratio "$floor_glb" "${t[back1]}") | $(ratio "$(mibs "$glb_bytes" "${t[back1]}")" "$(mibs "$bytes" "$floor")") |
| GLB folder \`batch --to msh\`, 2 jobs | ${t[back2]} | $(mibs "$glb_bytes" 1) | $(mibs "$glb_bytes" "${t[back2]}") | $(ratio "$floor_glb" "${t[back2]}") | $(ratio "$(mibs "$glb_bytes" "${t[back2]}")" "$(mibs "$bytes" "$floor")") |

In memory, one thread, no file system (\`cargo run --release -p mshconv-gltf --example corpus -- glb|msh CORPUS $runs\`):
MSH -> GLB: $mem_glb. GLB -> MSH: $mem_msh.

The batch to GLB without its conversion (\`cargo run --release -p mshconv --example io_floor -- CORPUS GLB_FOLDER DEST JOBS $runs\`:
every input read, every GLB written as \`batch\` writes it): ${io[1]} s on 1 thread, ${io[2]} s on 2.
Of the $(printf '%.3f' "$(echo "2 * $floor" | bc -l)") s that 0.5x the floor allows the 2-job batch, that leaves $(printf '%.3f' "$(echo "2 * $floor - ${io[2]}" | bc -l)") s
for the conversion over two cores: $(printf '%.3f' "$(echo "2 * (2 * $floor - ${io[2]})" | bc -l)") CPU-seconds, against the $(echo "$mem_glb" | sed 's/.*: \([0-9.]*\) s,.*/\1/') s it takes in memory on one.
EOF
if [ -n "$peer" ]; then
cat <<EOF

Peer: \`assimp export\` of our $obj_count OBJ exports to GLB ($peer_ok written): $peer s, one file at a time.
Ours, MSH -> GLB of the same models and more, 1 job: ${t[glb1]} s. **Ours is $(ratio "$peer" "${t[glb1]}")x faster.**
EOF
fi
fi # [ -z "$only" ]: report of (a)-(c)
cat <<EOF

Service: \`$(basename "$typical")\` ($(size_of "$typical") bytes) to GLB over loopback, wrk (2 threads, 1 at 1 connection) on the same cores, 10 s each, the median of $runs runs by requests/s.
In-process: the same conversion on 2 threads (1 thread at 1 connection), 5 s before each run, the median.
Load average (1/5/15 min) before the service part: $load_before; after: $load_after.

| connections | requests/s | in-process | vs in-process | per server CPU-second | vs in-process per CPU-second | p50 ms | p99 ms | p99 / p50 | non-2xx |
|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
EOF
# service_row <key> <connections>: a row of the table above.
service_row() {
  local a b t
  a=$(ms "${p50[$1]}"); b=$(ms "${p99[$1]}"); t=$([ "$2" = 1 ] && echo 1 || echo 2)
  echo "| $2 | ${rps[$1]} | ${inproc[$1]} | $(ratio "${rps[$1]}" "${inproc[$1]}") | ${per_cpu[$1]} | $(ratio "${per_cpu[$1]}" "$(echo "${inproc[$1]} / $t" | bc -l)") | $a | $b | $(ratio "$b" "$a") | ${non2xx[$1]:-0} |"
}
for c in 1 8 32; do service_row "$c" "$c"; done
cat <<EOF

A large model, \`$(basename "$large")\` ($(size_of "$large") bytes, the 90th percentile), 32 connections:

| connections | requests/s | in-process | vs in-process | per server CPU-second | vs in-process per CPU-second | p50 ms | p99 ms | p99 / p50 | non-2xx |
|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
EOF
service_row large 32
cat <<EOF

Service peak RSS after the load: $((server_rss / 1024)) MiB.

The HTTP floor: \`server/examples/http_floor.rs\` (a bare axum/hyper server on
the same runtime that reads the body and answers as many bytes as the service's
GLB: $(size_of "$base/typical.glb") bytes for the typical model, $(size_of "$base/large.glb") for the large one), each run right after the
service's under the same load, and the additive limit 1 / (1/in-process + 1/floor):
the service's rate if it cost nothing beyond converting and bare HTTP.

| model | connections | floor requests/s | floor per CPU-second | floor p50 ms | floor p99 ms | floor p99 / p50 | in-process | additive limit | service requests/s | service / limit | service p99 / p50 |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
EOF
# against <key> <model name> <connections>: a row of the table above.
against() {
  local fa fb sa sb lim f="floor-$1"
  fa=$(ms "${p50[$f]}"); fb=$(ms "${p99[$f]}"); sa=$(ms "${p50[$1]}"); sb=$(ms "${p99[$1]}")
  lim=$(printf '%.1f' "$(echo "1 / (1 / ${inproc[$1]} + 1 / ${rps[$f]})" | bc -l)")
  echo "| $2 | $3 | ${rps[$f]} | ${per_cpu[$f]} | $fa | $fb | $(ratio "$fb" "$fa") | ${inproc[$1]} | $lim | ${rps[$1]} | **$(ratio "${rps[$1]}" "$lim")** | $(ratio "$sb" "$sa") |"
}
for c in 1 8 32; do against "$c" "\`$(basename "$typical")\`" "$c"; done
against large "\`$(basename "$large")\`" 32
if [ -n "${non2xx[floor-1]}${non2xx[floor-8]}${non2xx[floor-32]}${non2xx[floor-large]}" ]; then
  echo; echo "The floor answered non-2xx: ${non2xx[floor-1]:-0} / ${non2xx[floor-8]:-0} / ${non2xx[floor-32]:-0} / ${non2xx[floor-large]:-0}."
fi
if [ -z "$only" ]; then
cat <<EOF

Peak RSS of the CLI (limit: 64 MiB + 4x the bytes converted at once):

| run | input bytes | peak RSS MiB | limit MiB |
|---|---:|---:|---:|
| \`convert\` $(basename "$largest") -> GLB | $(size_of "$largest") | $((rss_glb / 1024)) | $(( 64 + 4 * $(size_of "$largest") / 1048576 )) |
| \`convert\` its GLB -> MSH | $(size_of "$base/largest.glb") | $((rss_back / 1024)) | $(( 64 + 4 * $(size_of "$base/largest.glb") / 1048576 )) |
| \`batch\` $(basename "$archive") -> GLB, 1 job | $(size_of "$archive") | $((rss_archive / 1024)) | $(( 64 + 4 * $(size_of "$archive") / 1048576 )) |
| \`convert\` OBJ of 65,000 one-face materials, with its MTL -> MSH ($(size_of "$base/materials.msh") bytes) | $(( $(size_of "$base/materials.obj") + $(size_of "$base/materials.mtl") )) | $((rss_materials / 1024)) | $(( 64 + 4 * ($(size_of "$base/materials.obj") + $(size_of "$base/materials.mtl")) / 1048576 )) |
| \`convert\` OBJ of 65,000 one-face objects -> MSH ($(size_of "$base/objects.msh") bytes) | $(size_of "$base/objects.obj") | $((rss_objects / 1024)) | $(( 64 + 4 * $(size_of "$base/objects.obj") / 1048576 )) |
EOF
fi
if [ -z "$only" ]; then
  # (f) The game's look: batch --game-dir against the plain batch, and peak RSS.
  echo
  bash bench/game.sh
fi
if [ -n "${BENCH_BEFORE:-}" ]; then
  # (g) Earlier builds against this one, interleaved (bench/before_after.sh).
  echo
  # shellcheck disable=SC2086 # a list of revisions
  bash bench/before_after.sh $BENCH_BEFORE
fi
