#!/usr/bin/env bash
# Runs every cargo-fuzz target for a bounded time, seeded from the committed
# fixtures. CI calls it with a short budget; for a long campaign:
#   FUZZ_SECONDS=3600 scripts/fuzz.sh
# FUZZ_TARGETS="msh_model obj_import" limits the run to those targets.
# Needs the nightly toolchain (libFuzzer instrumentation); installs cargo-fuzz.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-20}"

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  echo "fuzz: no nightly toolchain on this machine; cargo-fuzz needs it" >&2
  exit 1
fi
if ! command -v cargo-fuzz >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked --version 0.13.2
fi

# The C++ of meshopt is built with AddressSanitizer too (the cc crate follows
# rustc's -Zsanitizer=address). GCC's identical code folding (IPA-ICF) then
# merges two equal constant tables of meshopt's opacitymap.cpp into one while
# ASan still registers each, and rustc's (LLVM's) ASan runtime aborts every
# binary at start with an ODR violation. Built without that folding, the
# binaries start without ASAN_OPTIONS and the C++ stays instrumented. Clang
# does not fold them, and refuses the flag: it is given only where accepted.
if echo | "${CXX:-c++}" -fno-ipa-icf -x c++ -fsyntax-only - >/dev/null 2>&1; then
  export CXXFLAGS="${CXXFLAGS:+$CXXFLAGS }-fno-ipa-icf"
fi

targets=${FUZZ_TARGETS:-$(cd fuzz && cargo +nightly fuzz list)}
# Seeds for the glTF and OBJ targets: exports of the committed fixtures, and the
# committed foreign files (the CLI is built by the test run before this).
cli=target/debug/mshconv
[ -x "$cli" ] || cargo build -p mshconv
mkdir -p fuzz/corpus/gltf_import fuzz/corpus/obj_import
for m in fixtures/small/models/m0*.msh fixtures/small/models/m1*.msh fixtures/small/edge/anim_*.msh; do
  stem=$(basename "$m" .msh)
  [ -e "fuzz/corpus/gltf_import/$stem.glb" ] || "$cli" convert -q "$m" "fuzz/corpus/gltf_import/$stem.glb" || true
  [ -e "fuzz/corpus/gltf_import/$stem.gltf" ] || "$cli" convert -q "$m" "fuzz/corpus/gltf_import/$stem.gltf" || true
  [ -e "fuzz/corpus/obj_import/$stem.obj" ] || "$cli" convert -q "$m" "fuzz/corpus/obj_import/$stem.obj" || true
done
rm -f fuzz/corpus/obj_import/*.mtl
# Seeds for look_import: textured exports of the fixture game folder's models
# (GLB with its PNGs, and the OBJ export's .mtl).
mkdir -p fuzz/corpus/look_import
for m in "fixtures/small/game/units.rlb:TANK.MSH" "fixtures/small/game/units.rlb:ROBOT.MSH" fixtures/small/game/models/wreck.msh; do
  stem=$(basename "${m//:/_}" .msh)
  [ -e "fuzz/corpus/look_import/$stem.glb" ] || "$cli" convert -q "$m" "fuzz/corpus/look_import/$stem.glb" --game-dir fixtures/small/game || true
  if [ ! -e "fuzz/corpus/look_import/$stem.mtl" ]; then
    tmp=$(mktemp -d)
    "$cli" convert -q "$m" "$tmp/$stem.obj" --game-dir fixtures/small/game && cp "$tmp/$stem.mtl" fuzz/corpus/look_import/ || true
    rm -rf "$tmp"
  fi
done
cp -n fixtures/foreign/obj/*.obj fuzz/corpus/obj_import/ 2>/dev/null || true
cp -n fixtures/foreign/gltf/*.gl* fuzz/corpus/gltf_import/ 2>/dev/null || true
cp -n fixtures/foreign/gltf/skins/*.glb fuzz/corpus/gltf_import/ 2>/dev/null || true
# Seeds for clips_parse (both forms) and, for gltf_import, the clip test files.
mkdir -p fuzz/corpus/clips_parse
printf 'idle=0..10:loop,walk=11..40:pingpong,die=41..41:once' > fuzz/corpus/clips_parse/spec.txt
printf '{"clips": [{"name": "idle", "first": 0, "last": 10, "mode": "loop"}, {"name": "walk", "first": 3, "last": 9}]}' > fuzz/corpus/clips_parse/list.json
cp -n crates/formats/gltf/tests/data/clips/*.gltf fuzz/corpus/gltf_import/ 2>/dev/null || true
# Seeds for txn_journal ($G and $V: the target's game and victim folders,
# whose files of id 0123456789abcdef it sets up): a journal as a transaction
# writes it, each state, and planted ones naming the victim folder.
mkdir -p fuzz/corpus/txn_journal
j='{"format":"mshconv-journal","version":1,"id":"0123456789abcdef","state":"STATE","folders":["$G"],"steps":[{"target":"$G/units.rlb","temp":"$G/.units.rlb.0123456789abcdef.tmp","old":"$G/.units.rlb.0123456789abcdef.old"},{"target":"$G/a.txt","temp":"$G/.a.txt.0123456789abcdef.tmp","old":"$G/.a.txt.0123456789abcdef.old"},{"target":"$G/b.txt","temp":"$G/.b.txt.0123456789abcdef.tmp","old":null},{"target":"$G/d.txt","temp":"$G/.d.txt.0123456789abcdef.tmp","old":null}]}'
for state in prepared committed rolling_back; do
  printf '%s' "${j//STATE/$state}" > "fuzz/corpus/txn_journal/$state.json"
done
printf '%s' '{"format":"mshconv-journal","version":1,"id":"0123456789abcdef","state":"rolling_back","folders":["$G","$V"],"steps":[{"target":"$V/keep.txt","temp":"$V/.keep.txt.0123456789abcdef.tmp","old":null}]}' > fuzz/corpus/txn_journal/planted.json
printf '%s' '{"format":"mshconv-journal","version":1,"id":"0123456789abcdef","state":"rolling_back","folders":["$G"],"steps":[{"target":"$G/keep.txt","temp":"$G/.keep.txt.0123456789abcdef.tmp","old":null}]}' > fuzz/corpus/txn_journal/planted_here.json
# Seeds for library_files: the fixture game folder's libraries as
# `mshconv materials/textures export` write them (first byte 0: the material
# file, 1: textures.json).
mkdir -p fuzz/corpus/library_files
lf=$(mktemp -d)
if cargo run -q --locked -p mshconv -- materials export fixtures/small/game/Material.lib "$lf/materials.json" >/dev/null 2>&1 &&
   cargo run -q --locked -p mshconv -- textures export fixtures/small/game/Textures.lib "$lf/textures" >/dev/null 2>&1; then
  { printf '\x00'; cat "$lf/materials.json"; } > fuzz/corpus/library_files/materials.json
  { printf '\x01'; cat "$lf/textures/textures.json"; } > fuzz/corpus/library_files/textures.json
fi
rm -rf "$lf"
# Seeds for gltf_import: quantized and meshopt-compressed exports, made by
# glTF-Transform when scripts/test.sh has installed it (meshopt_decode starts empty).
gt=tools/gltf-transform/node_modules/.bin/gltf-transform
for stem in m012_walker m127_tank; do
  for c in quantize meshopt draco; do
    seed="fuzz/corpus/gltf_import/$stem.$c.glb"
    [ ! -x "$gt" ] || [ -e "$seed" ] || "$gt" "$c" "fuzz/corpus/gltf_import/$stem.glb" "$seed" >/dev/null 2>&1 || true
  done
  # Draco's sequential connectivity, and speed 0's prediction schemes
  # (constrained multi-parallelogram, portable UVs, geometric normals).
  for m in "sequential:--method sequential" "speed0:--encode-speed 0 --decode-speed 0"; do
    seed="fuzz/corpus/gltf_import/$stem.${m%%:*}.draco.glb"
    [ ! -x "$gt" ] || [ -e "$seed" ] || "$gt" draco ${m#*:} "fuzz/corpus/gltf_import/$stem.glb" "$seed" >/dev/null 2>&1 || true
  done
done
# Seeds for draco_decode: the Draco bitstreams of those files' primitives.
mkdir -p fuzz/corpus/draco_decode
for glb in fuzz/corpus/gltf_import/*.draco.glb; do
  [ -e "$glb" ] || continue
  node -e '
    const fs = require("fs");
    const [glb, out] = process.argv.slice(1);
    const b = fs.readFileSync(glb);
    const n = b.readUInt32LE(12);
    const j = JSON.parse(b.subarray(20, 20 + n));
    const bin = b.subarray(20 + n + 8);
    (j.meshes || []).flatMap((m) => m.primitives).slice(0, 8).forEach((p, i) => {
      const d = p.extensions && p.extensions.KHR_draco_mesh_compression;
      if (!d) return;
      const v = j.bufferViews[d.bufferView];
      fs.writeFileSync(`${out}.${i}`, bin.subarray(v.byteOffset || 0, (v.byteOffset || 0) + v.byteLength));
    });
  ' "$glb" "fuzz/corpus/draco_decode/$(basename "$glb" .glb)" || true
done
# Seeds for the material targets (wear_parse, mat0_parse, texm_parse): the
# samples mshconv-material builds in code (there are no retail files here).
cargo run -q -p mshconv-material --example seeds -- fuzz/corpus
(cd fuzz && cargo +nightly fuzz build -O)
for target in $targets; do
  corpus="fuzz/corpus/$target"
  mkdir -p "$corpus"
  # Seeds for the MSH and NRes targets: every committed fixture (valid, edge and
  # damaged files, archives).
  case "$target" in
    nres_parse|msh_model|msh_gltf_roundtrip)
      cp -n fixtures/small/models/*.msh fixtures/small/edge/*.msh fixtures/small/damaged/*.msh \
        fixtures/small/archives/*.rlb "$corpus"/ 2>/dev/null || true ;;
  esac
  echo "fuzz: $target for ${seconds}s"
  log="fuzz/$target.log"
  status=0
  (cd fuzz && cargo +nightly fuzz run -O "$target" "corpus/$target" -- \
    -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1) >"$log" 2>&1 || status=$?
  grep -E "^(Done|stat::number_of_executed_units|stat::peak_rss_mb)|ERROR|panicked|SUMMARY|deadly|crash-" "$log" || true
  if [ "$status" -ne 0 ]; then
    tail -40 "$log" >&2
    echo "fuzz: $target found a problem (exit $status); the input is in fuzz/artifacts/$target" >&2
    exit 1
  fi
done
