// The mshconv web page: open a .msh, an .rlb, a .glb/.gltf or an .obj, and
// use the service's own /v1 endpoints (server/openapi.json) on it.
//
// - .msh (or a model picked from an .rlb): POST /v1/convert?to=glb gives the
//   preview (three.js), POST /v1/validate the validation report; the download
//   buttons ask /v1/convert again with the chosen options.
// - .rlb: POST /v1/archive/list gives the entries to choose from;
//   POST /v1/archive/convert gives every model at once (a zip).
// - .glb/.gltf/.obj: POST /v1/convert?to=msh gives the .msh, and the import
//   report from its x-mshconv-notes header; the preview is that model put
//   into an empty archive with its look (POST /v1/archive/put with the
//   attached Material.lib/Textures.lib, or the service's --game-dir) and
//   converted back with /v1/convert?to=glb&entry=, so it shows the model's
//   own textures when the game's look is at hand; and /v1/validate.
// - A model the conversion refuses (422): POST /v1/validate?tolerant=true and
//   /v1/inspect?tolerant=true show what can be read of it.
// - The game's look: the optional files WEAR, Material.lib and Textures.lib
//   go with every conversion of a .msh as the fields wear, materials and
//   textures (the service may also have --game-dir); the preview shows the
//   textured model, and a line says whether it is textured and, when not,
//   why (the service's game.* notes).
// - "Put a model into an archive": POST /v1/archive/put with the .rlb and the
//   model (the one opened or imported above, or one chosen there) gives the
//   new archive to download; add=true only when "Add it as a new model" is
//   ticked (else a name the archive lacks is refused: archive.no_such_entry).
//   A .glb/.gltf/.obj goes with the attached Material.lib and Textures.lib
//   (or the service's --game-dir): its look comes back too, and when a
//   library changes the answer is a zip of the archive and the libraries.
//
// Uploads use XMLHttpRequest for its upload progress events (fetch has none).
// Errors are the service's problem documents (title, detail, code), shown in
// words. Test hook: window.mshconvTest (see the end of this file and
// server/web/README.md).
//
// This file is the entry (index.html loads it as a module): it wires the
// page's controls to the modules of app/ (served at /app/NAME.js), one per
// topic: state.js (what the page shows), transport.js (requests and their
// progress), report.js (status, errors, validation, the tolerant view),
// open.js (opening a file), archive.js (the archive panel), import.js (a
// glTF or OBJ to .msh), options.js (the option forms and the downloads),
// look.js (the game's look), put.js (the put panel), preview.js (three.js)
// and animation.js (the timeline and the clips).

import { $, state, current, nextGeneration, setCurrent, extension } from '/app/state.js';
import { openFiles, openModel } from '/app/open.js';
import { convertArchive } from '/app/archive.js';
import { importModel } from '/app/import.js';
import { download } from '/app/options.js';
import { put, offerModel, updatePut, choosePutArchive, putIntoArchive } from '/app/put.js';
import { BACKGROUND, view, requestRender, render, onSlotPicked } from '/app/preview.js';
import { setTime, useClip, applyClips, showTime, play } from '/app/animation.js';

// ---------------------------------------------------------------- wiring

for (const field of ['wear', 'materials', 'textures']) {
  // A look file chosen (or removed) while a model is shown: show it again with it.
  $(`look-${field}`).addEventListener('change', () => {
    if (!current || !state.model || state.kind === 'import') return;
    openModel(nextGeneration());
  });
}

$('choose').addEventListener('click', () => $('file').click());
$('file').addEventListener('change', (e) => {
  openFiles(e.target.files);
  e.target.value = ''; // the same file again is a new choice
});
const drop = $('drop');
document.addEventListener('dragover', (e) => {
  e.preventDefault();
  drop.classList.add('over');
});
document.addEventListener('dragleave', (e) => {
  if (!e.relatedTarget) drop.classList.remove('over');
});
document.addEventListener('drop', (e) => {
  e.preventDefault();
  drop.classList.remove('over');
  if (e.dataTransfer?.files?.length) openFiles(e.dataTransfer.files);
});
$('open-entry').addEventListener('click', () => {
  if (!current) return;
  const gen = nextGeneration();
  setCurrent({ ...current, entry: $('entry').value });
  // Put back into the archive: the entry's own name, unless the user typed one.
  if (put.entryAuto) {
    $('put-entry').value = current.entry;
    updatePut();
  }
  openModel(gen);
});
$('archive-convert').addEventListener('click', convertArchive);
$('put-choose-model').addEventListener('click', () => $('put-model').click());
$('put-model').addEventListener('change', (e) => {
  const files = [...e.target.files];
  const model = files.find((f) => extension(f.name) !== 'mtl');
  if (model) offerModel(model, extension(model.name) === 'obj' ? files.find((f) => extension(f.name) === 'mtl') ?? null : null);
  e.target.value = '';
});
$('put-choose-archive').addEventListener('click', () => $('put-archive').click());
$('put-archive').addEventListener('change', (e) => {
  const file = e.target.files[0];
  if (file) choosePutArchive(file);
  e.target.value = '';
});
$('put-entry').addEventListener('input', () => {
  put.entryAuto = false;
  updatePut();
});
$('put-pick').addEventListener('change', () => {
  if (!$('put-pick').value) return;
  $('put-entry').value = $('put-pick').value;
  put.entryAuto = false;
  updatePut();
});
$('put-go').addEventListener('click', putIntoArchive);
$('put-add').addEventListener('change', updatePut);
$('lod').addEventListener('change', onSlotPicked);
$('group').addEventListener('change', onSlotPicked);
$('play').addEventListener('click', () => play(!view.playing));
$('clips-apply').addEventListener('click', applyClips);
$('clips-text').addEventListener('keydown', (e) => {
  if (e.key === 'Enter') applyClips();
});
$('clip').addEventListener('change', (e) => {
  useClip(Number(e.target.value));
  play(true);
});
$('time').addEventListener('input', () => {
  play(false);
  setTime(Number($('time').value) / view.fps);
  showTime();
  requestRender();
});
for (const b of document.querySelectorAll('[data-download]')) {
  b.addEventListener('click', () => download(b.dataset.download));
}
$('reimport').addEventListener('click', () => {
  if (!current || state.kind !== 'import') return;
  importModel(nextGeneration());
});

// ---------------------------------------------------------------- test hook

/**
 * For the browser test (server/web/tests/page.mjs) and for debugging:
 * `mshconvTest.state` is a copy of what the page shows (phase, error, model,
 * validation, import report, downloads), and `mshconvTest.render()` draws
 * the preview at once. Nothing else reads it.
 */
window.mshconvTest = {
  get state() {
    return JSON.parse(JSON.stringify(state));
  },
  background: BACKGROUND,
  render,
};
