#!/usr/bin/env bash
# same-output.sh: shows that every output of `mshconv` and `mshconv-server` is
# byte-identical to a base revision's, over the whole generated corpus and the
# option combinations the tests use (the acceptance check of a refactor that
# must not change what the tools write).
#
# Run from anywhere in the checkout:
#   scripts/same-output.sh                  # base c23d875 against the working tree
#   scripts/same-output.sh REV              # another base revision
#   scripts/same-output.sh REV --new REV2   # against a committed revision instead of
#                                           # the working tree (built from a clean worktree)
#   scripts/same-output.sh REV --mask-original   # issue 41's check: every glTF/GLB (also
#                                           # inside zips and answers) compared without
#                                           # scenes[*].extras.msh.original and
#                                           # original_fingerprint, report.json without
#                                           # its byte counts; MSH and the rest byte for byte
# Exit code: 0 when everything is identical, 1 when something differs, 2 when
# the script itself could not run (a build failed, a server did not start).
#
# How: the base is built in release mode from a `git worktree` at
# target/same-output/base with CARGO_TARGET_DIR=target/same-output/base-target
# (reused while its revision matches); the working tree with a plain
# `cargo build --release`. Both get the same inputs: the full corpus from the
# base's fixture generator (`gen-fixtures full`) and the base's fixtures/small
# and fixtures/foreign. Every command runs once per binary, in the same folder
# with the same relative paths, and the results land in
# target/same-output/run/{base,new}/GROUP/ITEM/ (kept until the next run).
#
# Compared:
# - CLI: `batch` of the corpus to glb/gltf/obj (+ --report) and of those
#   outputs back --to msh, and batches with options; `convert` (sample: every
#   20th corpus model, every small model and edge case) to glb/gltf/obj and
#   back, under the tests' options (--lod 0/1/2, --group 0..4, --fps 30/12.5,
#   --axis z-up, --rotation stored, --animation none/0, --entry, stdin/stdout),
#   foreign glTF/OBJ imports; `validate [--tolerant] --json`, `inspect
#   [--json] [--tolerant]`, `pose --time T [--json]` (T = 0, 2.5, -0.5, 1e9),
#   `nres list [--json]`, `nres extract/pack/repack`, `completions bash`, over
#   fixtures/small and the corpus's damaged/ and archives/. For each command:
#   every output file
#   byte for byte, stdout byte for byte, the exit code, and from stderr the
#   sequence of `error[CODE]` / `warning[CODE]` / `note[CODE]` codes.
# - Service (both servers on 127.0.0.1, free ports): /v1/convert (to=glb,
#   gltf, obj, msh; lod, group, fps, axis, rotation, animation, entry, part,
#   name, raw and multipart uploads), /v1/validate, /v1/inspect, /v1/pose,
#   /v1/archive/list, /v1/archive/convert, error requests, /openapi.json and
#   the web page. For each: the status, the body byte for byte, and the
#   headers content-type, content-disposition, x-mshconv-from,
#   x-mshconv-notes-count and the codes of x-mshconv-notes.
#
# Deliberately not compared: stderr messages and the batch summary line (only
# their codes: messages may be reworded on purpose); the report's run-dependent
# `ms` and `seconds`; for error responses (application/problem+json) anything
# but `status` and `code` (`instance` is a random request id, `detail` may be
# reworded); the order of batch stderr lines (--jobs 2; sorted); /metrics
# (timings); logs; timing and parallelism behaviour; the batch progress bar;
# help texts (--help, and completions other than bash, which carry them).
#
# Deliberate changes, by issue (none shows in what is compared above unless
# said):
# - issue 29, the exact trip through Blender (docs/BLENDER.md, "What comes
#   back"): every glTF/GLB export (and what holds one: zips, /v1 answers,
#   batch reports' bytes_in) carries the original MSH in
#   scenes[0].extras.msh.original, so it is larger and differs from byte 8 on;
#   extras with integers of 2^31 or more write them as text, and a payload's
#   filler as {"after", "bytes"}; imports of files Blender rewrote are the
#   original (or it edited in place) with note[import.original_kept|edited|
#   rebuilt], and an export saved without Custom Properties gets
#   note[import.custom_properties_missing]. Every MSH written from our own
#   exports is unchanged (against a07d832, at dff7d78: 627 identical, 416
#   differ, all of the kinds listed here).
# - issue 30, foreign glTF: threejs_morph.glb imports with its default morph
#   weight applied (note[import.morph_weights_applied]); notes come once with a
#   count (import.keys_reduced, normals computed, UVs zero, ...).
# - issue 31, writing the user's files (docs/ROBUSTNESS.md, "Writing your
#   files"): file bytes unchanged (against a07d832: 1043 identical, 0 differ).
#   A replaced archive, library or output keeps its mode and group (was the
#   umask's); a read-only (`io.read_only`) or hard-linked (`io.hard_linked`)
#   file to replace is refused; a full disk is `io.no_space` (was `io.error`);
#   `note[txn.rolled_back]` / `note[txn.rolled_forward]` after an interrupted
#   run, `txn.recovery_failed` / `txn.journal_unknown` errors; the stderr line
#   `waiting for another mshconv writing DIR...` while another writer holds a
#   folder's lock; `batch --to msh --game-dir` writes Textures.lib before
#   Material.lib; a write into a folder whose parent cannot be resolved says
#   `cannot write OUT: DIR: ...` (the same `io.*` code).
# Deliberate changes since c23d875, expected to differ (issue 31, archive puts
# and the service under memory pressure):
# - /openapi.json (archive/put's `add`, `--max-buffered` in the descriptions)
#   and the web page (the "Add it as a new model" box; the look line cleared
#   for each new model), and the bash completions (the new flags `--add`);
# - putting a model into an entry the archive lacks (`convert IN
#   ARCHIVE:ENTRY`, `batch --into`, /v1/archive/put) is refused with
#   archive.no_such_entry unless --add / add=true, and `convert --dry-run`
#   and `batch --into --dry-run` end a put's line with `: replace` or `: add
#   (a new entry)`
#   (with --game-dir, a line `would replace ...`/`would add ...` after the
#   plan; neither is among the commands compared here);
# - an entry name with /, \, : or .., or starting with ., is archive.bad_name
#   for /v1/archive/put and for ARCHIVE:ENTRY (was written as a path).
# Deliberate changes of issue 32 (one FORMATS and one OPTIONS table):
# - every zip answer (to=obj, a textured to=gltf/usda, /v1/archive/convert,
#   an archive/put with libraries) is deflated (PNG files stored): other
#   bytes, the same files (README.md, "Zips", has the sizes);
# - the query: a parameter the endpoint does not take is 400
#   request.unknown_parameter (was request.query); an option value that is
#   not a number (lod=abc) is option.invalid in the CLI's words (was
#   request.query); the missing to=/time= and bad tolerant=/add=/time= values
#   stay request.query, reworded;
# - /openapi.json (request.unknown_parameter) and the web page (a "Download
#   .usda" button, .usda in "Convert every model to");
# - mshconv-server's usage errors and --help are clap's (exit code 2 kept).
# - batch --include/--exclude are globset's: `**` inside a segment is `*`
#   (was across segments), `{a,b}` is either, a reversed range `[z-a]` is
#   refused (matched nothing).
# - issue 32's other parts: a new texture the look import resizes to powers
#   of two is resampled by fast_image_resize's Catmull-Rom (was bilinear): its
#   bytes differ (docs/MATERIALS.md); USD's refusal of --clips without an
#   animated node says glTF's words (code unchanged); the error codes and
#   messages are otherwise the same (the registries changed no text).
# - issue 33: `mshconv --version` names the commit; `--help` lists the
#   `textures` and `materials` commands (help texts are not compared) and
#   `completions bash` completes them.
# Against d18a12d (the base of issue 32), at 2d3760a: 898 identical, 145
# differ, all of the kinds above: 138 zip answers (deflated), the query
# refusals lod=abc (option.invalid) and an unknown key
# (request.unknown_parameter), /openapi.json, the web page, `completions
# bash`; every CLI conversion, report and archive output is identical.
# - issue 32's plug-ins (session 12): the web page is served as ES modules
#   (/app.js imports /app/*.js; openapi.json's page description names them);
#   a .usda or .obj written to stdout with PNGs beside says
#   note[convert.textures_not_written] (was .gltf only), an .obj written to
#   stdout note[convert.mtl_not_written] (its .mtl is not written); --clips
#   (or clips=) with an OBJ export says note[export.clips_ignored]; an upload's
#   gltf.missing_buffer detail reads "... is not available. The service ..."
#   (the detail is not compared). Against b45a602 (session 11's end), at
#   3f9c666: 1043 identical, 0 differ; against d18a12d at 7c6bc30: 898
#   identical, 145 differ, the same items as at 2d3760a.
# - issue 41 (session 14): every glTF/GLB export records the original's
#   fingerprint (scenes[0].extras.msh.original_fingerprint) instead of the
#   original; `--mask-original` compares without both.
# - issue 40 (session 15): a slot node's name stays within 59 bytes, and an
#   owner's name cut to fit keeps `#<node index>` before `|L<lod>G<group>`
#   (docs/GLTF.md, "Names"): glTF/GLB and USD exports of models with node
#   names over 54 bytes differ there; imports of files Blender rewrote come
#   back as the original in more cases (docs/BLENDER.md, "Soak").
# Against a55817b (session 14's start, every export embedding the original)
# with --mask-original, at ed46887: 1010 identical, 33 differ, all of the
# kinds listed: every other glTF/GLB (also in answers and zips) differs only
# by the original, every MSH written back is identical; the differences are
# edge/node_names_odd (the slot names above), foreign imports' notes
# (issue 42: import.material_assigned once, with a count), /openapi.json,
# the web page and `completions bash` (embed_original, issue 41), and the
# batch report's messages of damaged files, which had their code twice
# (session 14's move of batch into the application layer; fixed after that
# run: the message without the code, as before).
set -euo pipefail

BASE_REV=c23d875
NEW_REV=
MASK_ORIGINAL=
while [ $# -gt 0 ]; do
  case "$1" in
    --new) NEW_REV=${2:?--new needs a revision}; shift 2 ;;
    --mask-original) MASK_ORIGINAL=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "same-output: unknown option $1" >&2; exit 2 ;;
    *) BASE_REV=$1; shift ;;
  esac
done

ROOT=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
cd "$ROOT"
SO=$ROOT/target/same-output
RUN=$SO/run
WORK=$RUN/work
RES=$RUN
T0=$(date +%s)
die() { echo "same-output: $*" >&2; exit 2; }
log() { echo "same-output: [$(( $(date +%s) - T0 ))s] $*" >&2; }
mkdir -p "$SO"

# ---- builds ---------------------------------------------------------------

# build_worktree REV DIR TARGET: release binaries of REV from a worktree at DIR
# into TARGET, skipped when TARGET/.same-output-rev already names REV's commit.
build_worktree() {
  local rev=$1 dir=$2 target=$3 sha
  sha=$(git rev-parse --verify --quiet "$rev^{commit}") || die "no such revision: $rev"
  if [ -f "$target/.same-output-rev" ] && [ "$(cat "$target/.same-output-rev")" = "$sha" ] &&
     [ -x "$target/release/mshconv" ] && [ -x "$target/release/mshconv-server" ] &&
     [ -x "$target/release/gen-fixtures" ]; then
    log "reusing the build of $rev (${sha:0:10}) in ${target#"$ROOT"/}"
    return
  fi
  if [ -e "$dir/.git" ]; then
    git -C "$dir" checkout --quiet --detach "$sha"
  else
    rm -rf "$dir"
    git worktree prune
    git worktree add --quiet --detach "$dir" "$sha"
  fi
  log "building $rev (${sha:0:10}) in ${dir#"$ROOT"/} (release, -j 2)"
  rm -f "$target/.same-output-rev"
  (cd "$dir" && CARGO_TARGET_DIR=$target cargo build --release --locked -j 2 --quiet \
      -p mshconv -p mshconv-server -p mshconv-fixtures) || die "the build of $rev failed"
  echo "$sha" >"$target/.same-output-rev"
}

build_worktree "$BASE_REV" "$SO/base" "$SO/base-target"
BASE_SHA=$(cat "$SO/base-target/.same-output-rev")
BASE_SRC=$SO/base
if [ -n "$NEW_REV" ]; then
  build_worktree "$NEW_REV" "$SO/new" "$SO/new-target"
  NEW_TARGET=$SO/new-target
  NEW_SHA=$(cat "$SO/new-target/.same-output-rev")
  NEW_DESC="$NEW_REV (${NEW_SHA:0:10}, clean worktree)"
  # Its target dir stays for the next build; the worktree is not kept.
  if [ -e "$SO/new/.git" ]; then git worktree remove --force "$SO/new"; fi
else
  # What is built: HEAD plus the edits; noted before and after the build, as
  # others may commit or edit while it runs.
  tree_state() { git rev-parse HEAD; git status --porcelain; git diff HEAD | cksum; }
  STATE_BEFORE=$(tree_state)
  log "building the working tree (release, -j 2)"
  cargo build --release -j 2 --quiet -p mshconv -p mshconv-server ||
    die "the working tree does not build (others' edits in progress?); retry later, or use --new HEAD"
  NEW_TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
  STATE_AFTER=$(tree_state)
  NEW_DESC="working tree on $(git rev-parse --short HEAD) with $(git status --porcelain --untracked-files=no | wc -l) modified tracked file(s)"
  if [ "$STATE_BEFORE" != "$STATE_AFTER" ]; then
    NEW_DESC="$NEW_DESC (WARNING: the tree changed during the build; the binaries may mix both states)"
  fi
fi

# Copies of the binaries: others may rebuild target/release while this runs.
rm -rf "$RUN"
mkdir -p "$RUN/bin/base" "$RUN/bin/new" "$WORK"
if [ -z "$NEW_REV" ]; then
  { echo "$STATE_BEFORE"; echo "-- after the build:"; echo "$STATE_AFTER"; } >"$RUN/new-tree-state.txt"
fi
cp "$SO/base-target/release/mshconv" "$SO/base-target/release/mshconv-server" "$RUN/bin/base/"
cp "$NEW_TARGET/release/mshconv" "$NEW_TARGET/release/mshconv-server" "$RUN/bin/new/"

# ---- inputs -----------------------------------------------------------------

log "generating the full corpus (the base's generator)"
"$SO/base-target/release/gen-fixtures" full --out "$WORK/corpus" >/dev/null ||
  die "the fixture generator failed"
cp -r "$BASE_SRC/fixtures/small" "$WORK/small"
cp -r "$BASE_SRC/fixtures/foreign" "$WORK/foreign"
cd "$WORK"
mapfile -t CORPUS_MODELS < <(ls corpus/models/*.msh | sort)
SAMPLE=()
for ((i = 0; i < ${#CORPUS_MODELS[@]}; i += 20)); do SAMPLE+=("${CORPUS_MODELS[$i]}"); done
SAMPLE+=(small/models/*.msh small/edge/*.msh)
DAMAGED=(corpus/damaged/*.msh)
READ_SET=(small/models/*.msh small/edge/*.msh "${DAMAGED[@]}")
ARCHIVES=(small/archives/*.rlb corpus/archives/*.rlb)
ANIMATED=(small/models/m095_walker.msh small/models/m127_tank.msh small/models/m012_walker.msh
          small/edge/anim_fractional_times.msh "${CORPUS_MODELS[0]}")

# ---- running both sides ---------------------------------------------------------

SIDE=  BIN=  SRV_PORT=  ITEMDIR=  STEP=0  ITEMS=0
declare -A PORT

# step ARGS...: runs the side's mshconv with ARGS in $WORK; records N.stdout,
# N.stderr, N.exit. STDIN=FILE feeds FILE on stdin.
step() {
  STEP=$((STEP + 1))
  local rc=0
  "$BIN" "$@" <"${STDIN:-/dev/null}" >"$ITEMDIR/$STEP.stdout" 2>"$ITEMDIR/$STEP.stderr" || rc=$?
  echo "$rc" >"$ITEMDIR/$STEP.exit"
}

# req [GET] PATH [CURL ARGS...]: a request to the side's server; records
# N.status, N.headers, N.body. Without GET it is a POST (the args give the body).
req() {
  STEP=$((STEP + 1))
  local method=POST
  if [ "$1" = GET ]; then method=GET; shift; fi
  local path=$1; shift
  local code
  code=$(curl -sS --max-time 300 -X "$method" -o "$ITEMDIR/$STEP.body" -D "$ITEMDIR/$STEP.headers" \
         -w '%{http_code}' "$@" "http://127.0.0.1:${PORT[$SIDE]}$path" 2>"$ITEMDIR/$STEP.curl") || true
  echo "$code" >"$ITEMDIR/$STEP.status"
}

# The side's body of the previous request, for sending it back.
last_body() { echo "$ITEMDIR/$((STEP)).body"; }

# item GROUP/NAME FUNCTION ARGS...: runs FUNCTION ARGS once per side, in
# $WORK, with out/ empty; out/ becomes the item's files/.
item() {
  local name=$1; shift
  ITEMS=$((ITEMS + 1))
  for SIDE in base new; do
    BIN=$RUN/bin/$SIDE/mshconv
    ITEMDIR=$RES/$SIDE/$name
    STEP=0
    mkdir -p "$ITEMDIR"
    echo "${SORTED:-}" >"$ITEMDIR/.item"
    rm -rf "$WORK/out" && mkdir "$WORK/out"
    "$@"
    mv "$WORK/out" "$ITEMDIR/files"
  done
}

# http_item GROUP/NAME FUNCTION ARGS...: as item, both sides at once (requests
# only: nothing is written to $WORK).
http_item() {
  local name=$1 pids=(); shift
  ITEMS=$((ITEMS + 1))
  for SIDE in base new; do
    (
      ITEMDIR=$RES/$SIDE/$name
      STEP=0
      mkdir -p "$ITEMDIR/files"
      echo "${SORTED:-}" >"$ITEMDIR/.item"
      "$@"
    ) &
    pids+=($!)
  done
  wait "${pids[@]}"
}

# An item's output of an earlier item, moved to $WORK/mid for the command (so
# the paths the command prints are the same on both sides) and moved back.
borrow() { rm -rf "$WORK/mid"; mkdir -p "$WORK/mid"; mv "$RES/$SIDE/$1/files/$2" "$WORK/mid/$2"; }
give_back() { mv "$WORK/mid/$2" "$RES/$SIDE/$1/files/$2"; rm -rf "$WORK/mid"; }

key() { local s=${1//\//_}; echo "${s//:/_}"; }

# ---- CLI: batch -------------------------------------------------------------------

log "CLI: batch (corpus to glb, gltf, obj and back)"
batch_to() { step batch corpus --to "$1" --out "out/$1" --jobs 2 --quiet --report out/report.json; }
batch_back() {
  borrow "batch/corpus-to-$1" "$1"
  step batch "mid/$1" --to msh --out out/msh --jobs 2 --quiet --report out/report.json
  give_back "batch/corpus-to-$1" "$1"
}
# --jobs 2: the order of stderr lines varies, so their codes are compared sorted.
for f in glb gltf obj; do SORTED=sorted item "batch/corpus-to-$f" batch_to "$f"; done
for f in glb gltf obj; do SORTED=sorted item "batch/$f-to-msh" batch_back "$f"; done
batch_opts() {
  local to=$1; shift
  step batch small/models small/edge small/archives/small.rlb corpus/archives/system.rlb \
    --to "$to" --out out/o --jobs 1 --report out/report.json "$@"
}
item batch/small-glb-lod1-fps30-zup-stored batch_opts glb --lod 1 --group 0 --fps 30 --axis z-up --rotation stored
item batch/small-obj-lod2-group1 batch_opts obj --lod 2 --group 1
item batch/small-gltf-fps12.5 batch_opts gltf --fps 12.5
item batch/small-glb-include-exclude batch_opts glb --include 'm0*' --exclude '*walker*'
item batch/fps0-refused batch_opts glb --fps 0
batch_back_opts() {
  borrow batch/small-glb-lod1-fps30-zup-stored o
  step batch mid/o --to msh --out out/msh --jobs 1 --report out/report.json "$@"
  give_back batch/small-glb-lod1-fps30-zup-stored o
}
item batch/back-to-msh batch_back_opts
item batch/back-to-msh-animation-none batch_back_opts --animation none
item batch/back-to-msh-fps12.5-zup batch_back_opts --fps 12.5 --axis z-up --rotation conjugate

# ---- CLI: convert -------------------------------------------------------------------

log "CLI: convert (${#SAMPLE[@]} models to glb, gltf, obj and back; option combinations)"
# round_trip MODEL EXT [FLAGS...]: MODEL -> out/m.EXT -> out/m.msh
round_trip() {
  local model=$1 ext=$2; shift 2
  local stem; stem=$(basename "$model" .msh)
  step convert "$model" "out/$stem.$ext" "$@"
  step convert "out/$stem.$ext" "out/$stem.back.msh"
}
for m in "${SAMPLE[@]}"; do
  for ext in glb gltf obj; do
    item "convert/$(key "$m")-$ext" round_trip "$m" "$ext"
  done
done
for m in "${ANIMATED[@]}"; do
  k=$(key "$m")
  for lod in 1 2; do
    item "convert-options/$k-lod$lod-glb" round_trip "$m" glb --lod "$lod"
    item "convert-options/$k-lod$lod-obj" round_trip "$m" obj --lod "$lod"
  done
  for fps in 30 12.5; do item "convert-options/$k-fps$fps-gltf" round_trip "$m" gltf --fps "$fps"; done
  item "convert-options/$k-zup-glb" round_trip "$m" glb --axis z-up
  item "convert-options/$k-zup-obj" round_trip "$m" obj --axis z-up
  item "convert-options/$k-stored-glb" round_trip "$m" glb --rotation stored
  item "convert-options/$k-conjugate-gltf" round_trip "$m" gltf --rotation conjugate --axis y-up --fps 24 --lod 0
  for ext in glb gltf; do
    item "convert-options/$k-parity-$ext" round_trip "$m" "$ext" \
      --lod 1 --group 0 --fps 30 --axis z-up --rotation stored
  done
done
for g in 0 1 2 3 4; do
  for ext in glb obj; do
    item "convert-options/m012_walker-group$g-$ext" round_trip small/models/m012_walker.msh "$ext" --group "$g"
  done
  item "convert-options/m012_walker-lod2-group$g-gltf" round_trip small/models/m012_walker.msh gltf --lod 2 --group "$g"
done
# Imports with options: the model exported with the parity flags, then back
# with import options.
import_opts() {
  local model=$1 ext=$2; shift 2
  step convert "$model" "out/m.$ext" --lod 1 --fps 30 --axis z-up --rotation stored
  step convert "out/m.$ext" out/back.msh "$@"
}
for m in small/models/m095_walker.msh small/edge/anim_fractional_times.msh "${CORPUS_MODELS[0]}"; do
  k=$(key "$m")
  for ext in glb gltf; do
    item "convert-import/$k-$ext-animation-none" import_opts "$m" "$ext" --animation none
    item "convert-import/$k-$ext-animation-0" import_opts "$m" "$ext" --animation 0
    item "convert-import/$k-$ext-animation-all" import_opts "$m" "$ext" --animation all
    item "convert-import/$k-$ext-animation-name" import_opts "$m" "$ext" --animation nosuch
    item "convert-import/$k-$ext-fps12.5" import_opts "$m" "$ext" --fps 12.5
    item "convert-import/$k-$ext-yup-conjugate" import_opts "$m" "$ext" --axis y-up --rotation conjugate
  done
  item "convert-import/$k-obj-zup" import_opts "$m" obj --axis z-up
done
# Foreign files (Blender, three.js, assimp), including refused ones.
foreign() { step convert "$1" out/f.msh "${@:2}"; }
for f in foreign/gltf/*.glb foreign/gltf/*.obj foreign/obj/*.obj; do
  k=$(key "$f")
  item "convert-foreign/$k" foreign "$f"
  item "convert-foreign/$k-animation-none" foreign "$f" --animation none
  item "convert-foreign/$k-animation-0" foreign "$f" --animation 0
  item "convert-foreign/$k-fps12.5-zup" foreign "$f" --fps 12.5 --axis z-up
  item "convert-foreign/$k-quiet" foreign "$f" --quiet
done
# Archives, stdin/stdout, explicit formats, errors.
archive_entry() {
  step convert small/archives/small.rlb:M123_DOME.MSH out/dome.glb
  step convert small/archives/small.rlb out/dome2.gltf --entry m123_dome.msh
  step convert small/archives/small.rlb:NOSUCH.MSH out/x.glb
  step convert small/archives/small.rlb out/x.glb
  step convert corpus/archives/system.rlb:MTCHECK.MSH out/legacy.glb
}
item convert-misc/archive-entry archive_entry
stdio() {
  STDIN=small/edge/anim_map_values_noncanonical.msh step convert - - --from msh --to glb
  STDIN=small/models/m095_walker.msh step convert - - --from msh --to gltf --lod 1
  STDIN=small/models/m127_tank.msh step convert - out/t.glb --from msh
  STDIN=small/models/m127_tank.msh step convert - out/t.obj --from msh
}
item convert-misc/stdin-stdout stdio
errors() {
  step convert small/models/m127_tank.msh out/x.txt
  step convert --fps 0 small/models/m127_tank.msh out/x.glb
  step convert --fps NaN small/models/m127_tank.msh out/x.glb
  step convert --lod 3 small/models/m127_tank.msh out/x.glb
  step convert --group 5 small/models/m127_tank.msh out/x.glb
  step convert --axis x-up small/models/m127_tank.msh out/x.glb
  step convert --rotation left small/models/m127_tank.msh out/x.glb
  step convert nosuch.msh out/x.glb
  step convert small/models/m127_tank.msh out/x.glb --from obj
  step convert small/models/m127_tank.msh out/x.msh
  step convert small/models/m211_mtcheck.msh out/legacy.glb
  step convert small/edge/terrain_land.msh out/terrain.glb
}
item convert-misc/errors errors
damaged_convert() { step convert "$1" out/d.glb; step convert "$1" out/d.obj; }
for f in "${DAMAGED[@]}"; do item "convert-damaged/$(key "$f")" damaged_convert "$f"; done

# ---- CLI: validate, inspect, pose, nres -------------------------------------------------

log "CLI: validate, inspect, pose, nres list (${#READ_SET[@]} files)"
read_cmds() {
  local f=$1
  step validate --json "$f"
  step validate --tolerant --json "$f"
  step validate "$f"
  step inspect --json "$f"
  step inspect "$f"
  step inspect --tolerant --json "$f"
  for t in 0 2.5 -0.5 1e9; do step pose "$f" "--time=$t" --json; done
  step pose "$f" --time 2.5
  step pose "$f" --time=-0.5 --tolerant
  step nres list --json "$f"
  step nres list "$f"
}
for f in "${READ_SET[@]}"; do item "read/$(key "$f")" read_cmds "$f"; done
read_all() { step validate --json "$@"; step validate --tolerant --json "$@"; step validate "$@"; }
item read-all/small read_all small/models/*.msh small/edge/*.msh
item read-all/damaged read_all "${DAMAGED[@]}"
archive_cmds() {
  local a=$1
  step nres list --json "$a"
  step nres list "$a"
  step validate --json "$a"
  step nres extract "$a" --out out/x
  step nres pack out/x --out out/canonical.rlb
  step nres pack out/x --out out/canonical2.rlb --canonical
  step nres pack out/x --out out/lossless.rlb --lossless
  step nres repack "$a" --out out/repacked.rlb
}
for a in "${ARCHIVES[@]}"; do item "archive/$(key "$a")" archive_cmds "$a"; done
entries() {
  step inspect --json small/archives/small.rlb --entry M123_DOME.MSH
  step inspect small/archives/small.rlb:m123_dome.msh
  step validate --json small/archives/small.rlb:M123_DOME.MSH small/archives/system.rlb:MTCHECK.MSH
  step validate --json --entry m123_dome.msh small/archives/small.rlb
  step pose small/archives/small.rlb:M123_DOME.MSH --time 2.5 --json
  step pose small/archives/small.rlb --entry NOSUCH --time 1
  step inspect --json small/archives/system.rlb:MTCHECK.MSH
  step pose small/models/m095_walker.msh --time NaN --json
  step pose small/models/m095_walker.msh --time=-inf --json
  step pose small/models/m095_walker.msh --time soon
  step completions bash
}
item read-misc/entries-and-edges entries

# ---- service ---------------------------------------------------------------------

log "service: starting both servers"
SERVER_PIDS=()
stop_servers() {
  local pid
  for pid in "${SERVER_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${SERVER_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  SERVER_PIDS=()
}
trap stop_servers EXIT
for SIDE in base new; do
  RUST_LOG=info "$RUN/bin/$SIDE/mshconv-server" --addr 127.0.0.1:0 --max-body 1G \
    --timeout 300s --max-jobs 2 >"$RUN/server-$SIDE.log" 2>&1 &
  SERVER_PIDS+=($!)
done
for SIDE in base new; do
  for _ in $(seq 100); do
    PORT[$SIDE]=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$RUN/server-$SIDE.log" | head -1)
    [ -n "${PORT[$SIDE]}" ] && break
    sleep 0.1
  done
  [ -n "${PORT[$SIDE]}" ] || die "the $SIDE server did not start (see ${RUN#"$ROOT"/}/server-$SIDE.log)"
done
log "service: base on 127.0.0.1:${PORT[base]}, new on 127.0.0.1:${PORT[new]}"

http_convert() {
  local m=$1 stem; stem=$(basename "$m" .msh)
  req "/v1/convert?to=glb" -F "file=@$m"
  req "/v1/convert?to=msh" -F "file=@$(last_body);filename=$stem.glb"
  req "/v1/convert?to=gltf" --data-binary "@$m"
  req "/v1/convert?to=msh" --data-binary "@$(last_body)"
  req "/v1/convert?to=obj" -F "file=@$m"
  req "/v1/convert?to=obj&part=obj" -F "file=@$m"
  local obj; obj=$(last_body)
  req "/v1/convert?to=obj&part=mtl" -F "file=@$m"
  req "/v1/convert?to=msh&name=from_obj" -F "file=@$obj;filename=$stem.obj" -F "mtl=@$(last_body);filename=$stem.mtl"
}
log "service: convert (${#SAMPLE[@]} models), options, reads (${#READ_SET[@]} files), archives"
for m in "${SAMPLE[@]}"; do http_item "http-convert/$(key "$m")" http_convert "$m"; done
http_options() {
  local m=$1 q
  for q in "to=glb&lod=1" "to=glb&lod=2" "to=obj&lod=1&part=obj" "to=obj&lod=2" "to=gltf&fps=30" \
           "to=gltf&fps=12.5" "to=glb&axis=z-up" "to=glb&rotation=stored" "to=obj&axis=z-up&part=obj" \
           "to=glb&lod=1&group=0&fps=30&axis=z-up&rotation=stored" \
           "to=gltf&lod=1&group=0&fps=30&axis=z-up&rotation=stored&name=w" \
           "to=glb&group=1" "to=glb&group=2" "to=glb&group=3" "to=glb&group=4" "to=obj&group=4&part=obj"; do
    req "/v1/convert?$q" -F "file=@$m"
  done
  req "/v1/convert?to=glb&lod=1&fps=30&axis=z-up&rotation=stored" -F "file=@$m"
  local glb; glb=$(last_body)
  for q in "to=msh" "to=msh&animation=none" "to=msh&animation=0" "to=msh&animation=all" "to=msh&fps=12.5" \
           "to=msh&axis=y-up&rotation=conjugate" "to=msh&from=glb" "to=msh&name=x"; do
    req "/v1/convert?$q" -F "file=@$glb;filename=m.glb"
  done
}
for m in "${ANIMATED[@]}"; do http_item "http-options/$(key "$m")" http_options "$m"; done
http_foreign() {
  local f=$1
  for q in "to=msh" "to=msh&animation=none" "to=msh&animation=0" "to=msh&fps=12.5&axis=z-up"; do
    req "/v1/convert?$q" -F "file=@$f"
  done
}
for f in foreign/gltf/*.glb foreign/gltf/*.obj foreign/obj/*.obj; do http_item "http-foreign/$(key "$f")" http_foreign "$f"; done
http_read() {
  local f=$1
  req /v1/validate -F "file=@$f"
  req "/v1/validate?tolerant=true" -F "file=@$f"
  req /v1/inspect -F "file=@$f"
  req "/v1/inspect?tolerant=true" --data-binary "@$f"
  for t in 0 2.5 -0.5 1e9; do req "/v1/pose?time=$t" -F "file=@$f"; done
  req "/v1/pose?time=2.5&tolerant=true" -F "file=@$f"
  req "/v1/archive/list" -F "file=@$f"
  req "/v1/convert?to=glb" -F "file=@$f"
  req "/v1/convert?to=obj" --data-binary "@$f"
}
for f in "${READ_SET[@]}"; do http_item "http-read/$(key "$f")" http_read "$f"; done
http_archive() {
  local a=$1
  req /v1/archive/list -F "file=@$a"
  req "/v1/archive/list?tolerant=true" --data-binary "@$a"
  req "/v1/archive/convert?to=glb" -F "file=@$a"
}
for a in "${ARCHIVES[@]}"; do http_item "http-archive/$(key "$a")" http_archive "$a"; done
http_archive_more() {
  local a=small/archives/small.rlb
  req "/v1/archive/convert?to=gltf" -F "file=@$a"
  req "/v1/archive/convert?to=obj" -F "file=@$a"
  req "/v1/archive/convert?to=glb&lod=1&fps=30&axis=z-up&rotation=stored" -F "file=@$a"
  req "/v1/archive/convert?to=obj&lod=2&group=1" -F "file=@$a"
  req "/v1/convert?to=glb&entry=m123_dome.msh" -F "file=@$a"
  req "/v1/convert?to=gltf&entry=M123_DOME.MSH" --data-binary "@$a"
  req "/v1/convert?to=glb&entry=NOSUCH.MSH" -F "file=@$a"
  req "/v1/convert?to=glb" -F "file=@$a"
  req "/v1/inspect?entry=M123_DOME.MSH" -F "file=@$a"
  req "/v1/validate?entry=MTCHECK.MSH" -F "file=@small/archives/system.rlb"
  req "/v1/pose?time=2.5&entry=M123_DOME.MSH" -F "file=@$a"
  req "/v1/archive/convert?to=glb" -F "file=@small/models/m127_tank.msh"
  req "/v1/archive/convert?to=msh" -F "file=@$a"
}
http_item http-archive/options-and-entries http_archive_more
http_errors() {
  local m=small/models/m095_walker.msh
  for q in "to=fbx" "to=glb&lod=7" "to=glb&lod=abc" "to=glb&lod=-1" "to=glb&fps=0" "to=glb&fps=NaN" "to=glb&fps=1e40" \
           "to=glb&axis=x-up" "to=glb&rotation=left" "to=glb&nosuch=1" "to=msh&animation=99999999999999999999" \
           "to=msh" "from=obj&to=glb" "to=glb&part=obj"; do
    req "/v1/convert?$q" -F "file=@$m"
  done
  req "/v1/pose?time=abc" -F "file=@$m"
  req "/v1/pose?time=NaN" -F "file=@$m"
  req "/v1/pose?time=-inf" -F "file=@$m"
  req /v1/pose -F "file=@$m"
  req "/v1/convert?to=glb" --data-binary "@small/damaged/anim4__not_nres.msh"
  req "/v1/convert?to=glb" -H 'content-type: application/octet-stream' --data-binary ''
  req "/v1/convert?to=glb" -F "nofile=@$m"
  req /v1/inspect -F "file=@small/models/m211_mtcheck.msh"
  req "/v1/pose?time=1" -F "file=@small/models/m211_mtcheck.msh"
  req "/v1/pose?time=1" -F "file=@small/edge/terrain_land.msh"
  req GET /v1/convert
  req /v1/nosuch -F "file=@$m"
  req GET /openapi.json
  req GET /
  req GET /healthz
  req GET /readyz
}
http_item http-misc/errors-and-documents http_errors

stop_servers
trap - EXIT
log "comparing ($ITEMS items)"

# ---- compare -----------------------------------------------------------------------

python3 - "$RES/base" "$RES/new" "$BASE_REV (${BASE_SHA:0:10})" "$NEW_DESC" "$(( $(date +%s) - T0 ))" "$MASK_ORIGINAL" <<'PY'
import difflib, io, json, os, re, sys, zipfile

base_root, new_root, base_desc, new_desc, secs, mask_original = sys.argv[1:7]
CODE = re.compile(rb'\b(?:error|warning|note)\[[^\]\s]+\]')
MASK = re.compile(rb'("(?:ms|seconds)"\s*:\s*)-?[0-9][0-9.eE+-]*')
KEEP = ("content-type", "content-disposition", "x-mshconv-from", "x-mshconv-notes-count")

def items(root):
    out = set()
    for d, _, files in os.walk(root):
        if ".item" in files:
            out.add(os.path.relpath(d, root))
    return out

def files(d):
    out = set()
    if os.path.isdir(d):
        for p, _, fs in os.walk(d):
            for f in fs:
                if f != ".item" and not f.endswith(".curl"):
                    out.add(os.path.relpath(os.path.join(p, f), d))
    return out

def read(p):
    with open(p, "rb") as f:
        return f.read()

def headers(raw):
    h = {}
    for line in raw.split(b"\r\n"):
        k, sep, v = line.partition(b":")
        if sep and not line.startswith(b"HTTP/"):
            h[k.strip().lower().decode("latin-1")] = v.strip()
    return h

BYTES = re.compile(rb'("bytes_(?:in|out)"\s*:\s*)[0-9]+')

def strip_original(doc):
    # The one deliberate difference of issue 41: the scene's original
    # (embedded) or its fingerprint.
    for scene in doc.get("scenes") or []:
        msh = (scene.get("extras") or {}).get("msh") if isinstance(scene, dict) else None
        if isinstance(msh, dict):
            msh.pop("original", None)
            msh.pop("original_fingerprint", None)
    return json.dumps(doc, sort_keys=True).encode()

def mask_original(data):
    # A GLB: its JSON without the original, then its other chunks as they are.
    if data[:4] == b"glTF" and len(data) >= 20:
        n = int.from_bytes(data[12:16], "little")
        try:
            return b"GLB " + strip_original(json.loads(data[20:20 + n])) + data[20 + n:]
        except ValueError:
            return data
    if data[:1] == b"{":
        try:
            doc = json.loads(data)
        except ValueError:
            return data
        return strip_original(doc) if isinstance(doc, dict) and "asset" in doc else data
    if data[:4] == b"PK\x03\x04":
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as z:
                return b"ZIP " + b"".join(
                    i.filename.encode() + b"\0" + mask_original(z.read(i)) + b"\0" for i in z.infolist())
        except (zipfile.BadZipFile, ValueError):
            return data
    return data

def normalize(item_dir, rel, data, sorted_codes):
    name = os.path.basename(rel)
    if mask_original:
        if name == "report.json":
            data = BYTES.sub(rb"\1<masked>", data)
        elif not name.endswith((".stderr", ".headers")):
            data = mask_original(data)
    if name.endswith(".stderr"):
        codes = CODE.findall(data)
        return b"\n".join(sorted(codes) if sorted_codes else codes)
    if name == "report.json":
        return MASK.sub(rb"\1<masked>", data)
    if name.endswith(".headers"):
        h = headers(data)
        keep = [k.encode() + b": " + h[k] for k in KEEP if k in h]
        if "x-mshconv-notes" in h:
            try:
                notes = json.loads(h["x-mshconv-notes"])
                keep.append(b"x-mshconv-notes codes: " + ",".join(n.get("code", "?") for n in notes).encode())
            except ValueError:
                keep.append(b"x-mshconv-notes: " + h["x-mshconv-notes"])
        return b"\n".join(keep)
    if name.endswith(".body"):
        hp = os.path.join(item_dir, rel[: -len(".body")] + ".headers")
        if os.path.exists(hp) and b"problem+json" in headers(read(hp)).get("content-type", b""):
            try:
                doc = json.loads(data)
                return json.dumps({"status": doc.get("status"), "code": doc.get("code")}).encode()
            except ValueError:
                return data
    return data

def hint(rel, a, b):
    texty = len(a) < 1 << 20 and len(b) < 1 << 20 and b"\0" not in a[:4096] + b[:4096]
    if texty:
        try:
            al, bl = a.decode().splitlines(), b.decode().splitlines()
            d = [l for l in difflib.unified_diff(al, bl, "base", "new", n=0, lineterm="")][2:8]
            return f"{rel}: " + " | ".join(x[:160] for x in d)
        except UnicodeDecodeError:
            pass
    n = min(len(a), len(b))
    off = next((i for i in range(n) if a[i] != b[i]), n)
    return f"{rel}: cmp: differ at byte {off} (sizes {len(a)} / {len(b)})"

bi, ni = items(base_root), items(new_root)
same, differ = 0, []
for it in sorted(bi | ni):
    bd, nd = os.path.join(base_root, it), os.path.join(new_root, it)
    if it not in bi or it not in ni:
        differ.append((it, ["only in " + ("base" if it in bi else "new")]))
        continue
    sorted_codes = read(os.path.join(bd, ".item")).strip() == b"sorted"
    hints = []
    for rel in sorted(files(bd) | files(nd)):
        pa, pb = os.path.join(bd, rel), os.path.join(nd, rel)
        if not os.path.exists(pa) or not os.path.exists(pb):
            hints.append(f"{rel}: only in {'base' if os.path.exists(pa) else 'new'}")
            continue
        a = normalize(bd, rel, read(pa), sorted_codes)
        b = normalize(nd, rel, read(pb), sorted_codes)
        if a != b:
            hints.append(hint(rel, a, b))
    if hints:
        differ.append((it, hints))
    else:
        same += 1

print(f"same-output: base {base_desc} vs new {new_desc}; {secs} s")
for it, hs in differ:
    print(f"  DIFFERS {it}  ({len(hs)} file(s))")
    for h in hs[:3]:
        print(f"    {h}")
    if len(hs) > 3:
        print(f"    ... and {len(hs) - 3} more")
if differ:
    print(f"  (each item's files: {os.path.dirname(base_root)}/{{base,new}}/ITEM/; N.* is its N-th command)")
print(f"same-output: {same} identical, {len(differ)} differ")
sys.exit(1 if differ else 0)
PY
