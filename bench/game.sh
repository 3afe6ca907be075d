#!/usr/bin/env bash
# (f) of bench/run.sh, the game's look (issue 23): `mshconv batch --game-dir`
# over a textured corpus against the same batch without it, and the peak RSS
# of the textured batch and of the service with --game-dir. Prints a Markdown
# section (bench/RESULTS.md explains it); raw logs in test-output/bench/.
#
#   bench/game.sh                    # or BENCH_ONLY=game bench/run.sh
#   BENCH_RUNS=5 bench/game.sh       # best of 5 instead of 3
#
# The corpus is `gen-fixtures textured`: the full generated corpus made into a
# game folder (the fixture game's Material.lib, Textures.lib and LightMap.lib
# at its root, a WEAR beside or inside the archive beside every model).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
runs="${BENCH_RUNS:-3}"
logs="$root/test-output/bench"
mkdir -p "$logs"
. bench/lib.sh

cargo build --release -q -p mshconv -p mshconv-server -p mshconv-fixtures
bin="$root/target/release"
if [ -d /dev/shm ] && [ -w /dev/shm ]; then base=$(mktemp -d /dev/shm/mshconv-game.XXXXXX); else base=$(mktemp -d); fi
trap 'rm -rf "$base"; [ -z "${server_pid:-}" ] || kill "$server_pid" 2>/dev/null; true' EXIT
game="$base/game"
"$bin/gen-fixtures" textured --out "$game" >/dev/null
bytes=$(find "$game" -type f \( -name '*.msh' -o -name '*.rlb' \) -printf '%s\n' | awk '{s += $1} END {print s}')
libs=$(cat "$game/Material.lib" "$game/Textures.lib" | wc -c)
size_of() { stat -c %s "$1"; }

# The batch to GLB and to OBJ (PNGs beside), 1 and 2 jobs, with and without the game folder.
declare -A t
for to in glb obj; do
  for j in 1 2; do
    t[plain-$to-$j]=$(best_of "game-plain-$to-j$j" "rm -rf '$base/out'" "$bin/mshconv" batch "$game" --to "$to" --out "$base/out" --jobs "$j" --quiet)
    t[tex-$to-$j]=$(best_of "game-tex-$to-j$j" "rm -rf '$base/out'" "$bin/mshconv" batch "$game" --to "$to" --out "$base/out" --jobs "$j" --quiet --game-dir "$game")
  done
done
# The last textured OBJ run's output: how many models got a texture.
pngs=$(find "$base/out" -name '*.png' | wc -l)
mtl_textured=$( (grep -rl '^map_Kd' "$base/out" --include='*.mtl' || true) | wc -l)
rm -rf "$base/out"
"$bin/mshconv" batch "$game" --to glb --out "$base/out" --jobs 2 --quiet --game-dir "$game" >>"$logs/game-tex-glb-check.log" 2>&1 || true
glbs=$(find "$base/out" -name '*.glb' | wc -l)
glb_textured=$( (grep -l '"images"' -r "$base/out" --include='*.glb' || true) | wc -l)

# Peak RSS of the textured batch: the bytes converted at once are a job's
# input per job (at most the largest input) plus the libraries read.
largest=$(find "$game" -type f \( -name '*.msh' -o -name '*.rlb' \) -printf '%s %p\n' | sort -n | tail -1 | cut -d' ' -f2)
# (The batch exits 1: the corpus's damaged files fail, as they should.)
rss() { { /usr/bin/time -f '%M' "$@" 2>&1 >/dev/null || true; } | tail -1; }
declare -A rss_batch
for j in 1 2; do
  rm -rf "$base/out"
  rss_batch[$j]=$(rss "$bin/mshconv" batch "$game" --to glb --out "$base/out" --jobs "$j" --quiet --game-dir "$game")
done
limit() { echo $(( 64 + 4 * ($1) / 1048576 )); }

# The service with --game-dir: every archive of the corpus through
# /v1/archive/convert, then every loose model with its WEAR through
# /v1/convert, one request at a time; its peak RSS after them.
port=$((20000 + RANDOM % 20000))
"$bin/mshconv-server" --addr "127.0.0.1:$port" --game-dir "$game" >"$logs/game-server.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
requests=0 failed=0 biggest=0
for a in "$game"/archives/*.rlb; do
  curl -fsS -o /dev/null -F "file=@$a" "http://127.0.0.1:$port/v1/archive/convert?to=glb" || failed=$((failed + 1))
  requests=$((requests + 1)); s=$(size_of "$a"); [ "$s" -le "$biggest" ] || biggest=$s
done
t0=$(now)
for m in "$game"/models/*.msh; do
  curl -fsS -o /dev/null -F "file=@$m" -F "wear=@${m%.msh}.wea" "http://127.0.0.1:$port/v1/convert?to=glb" || failed=$((failed + 1))
  requests=$((requests + 1)); s=$(( $(size_of "$m") + $(size_of "${m%.msh}.wea") )); [ "$s" -le "$biggest" ] || biggest=$s
done
t1=$(now)
loose=$(find "$game/models" -name '*.msh' | wc -l)
server_rss=$(awk '/VmHWM/ {print $2}' "/proc/$server_pid/status")
kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""

cat <<EOF
## The game's look: run of $(date -u +%Y-%m-%d) on $(nproc) cores ($(uname -m)); best of $runs

Corpus: \`gen-fixtures textured\`, $(echo "scale=1; $bytes / 1048576" | bc -l) MiB of models and archives, Material.lib + Textures.lib $libs bytes.
With \`--game-dir\`, $glb_textured of $glbs GLBs have images; the OBJ run wrote $pngs PNG files, $mtl_textured of its .mtl files have \`map_Kd\`.

| batch | jobs | plain s | \`--game-dir\` s | textured / plain |
|---|---:|---:|---:|---:|
| to glb | 1 | ${t[plain-glb-1]} | ${t[tex-glb-1]} | **$(ratio "${t[tex-glb-1]}" "${t[plain-glb-1]}")** |
| to glb | 2 | ${t[plain-glb-2]} | ${t[tex-glb-2]} | **$(ratio "${t[tex-glb-2]}" "${t[plain-glb-2]}")** |
| to obj (PNGs beside) | 1 | ${t[plain-obj-1]} | ${t[tex-obj-1]} | **$(ratio "${t[tex-obj-1]}" "${t[plain-obj-1]}")** |
| to obj (PNGs beside) | 2 | ${t[plain-obj-2]} | ${t[tex-obj-2]} | **$(ratio "${t[tex-obj-2]}" "${t[plain-obj-2]}")** |

Peak RSS (limit: 64 MiB + 4x the bytes converted at once, counting the libraries read):

| run | bytes at once | peak RSS MiB | limit MiB |
|---|---:|---:|---:|
| \`batch --to glb --game-dir\`, 1 job (largest input $(basename "$largest")) | $(( $(size_of "$largest") + libs )) | $((rss_batch[1] / 1024)) | $(limit "$(size_of "$largest") + $libs") |
| \`batch --to glb --game-dir\`, 2 jobs | $(( 2 * $(size_of "$largest") + libs )) | $((rss_batch[2] / 1024)) | $(limit "2 * $(size_of "$largest") + $libs") |
| \`mshconv-server --game-dir\`: $requests requests one at a time ($failed failed), the largest body $biggest bytes | $(( biggest + libs )) | $((server_rss / 1024)) | $(limit "$biggest + $libs") |

The service's $loose loose models with their WEAR (\`-F file -F wear\`, curl one at a time): $(printf '%.2f' "$(echo "$t1 - $t0" | bc -l)") s.
EOF
