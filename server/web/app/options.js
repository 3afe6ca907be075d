// The option forms and the downloads: the import options (for a glTF or OBJ
// on its way to .msh) and the model's downloads with the export options
// (POST /v1/convert?to=...). Their values are the service's tables:
// server/src/tables.rs checks index.html's pickers against them, this
// file's parameter lists (importParams, download) against OPTIONS, and its
// list of the exports that take the game's look against FORMATS.

import { $, generation, current, modelUpload } from '/app/state.js';
import { post, problemOf, save } from '/app/transport.js';
import { setStatus, clearError, showError, fail } from '/app/report.js';
import { lookFiles } from '/app/look.js';
import { view } from '/app/preview.js';

/** The import options of the form (for a glTF or OBJ on its way to .msh). */
export function importParams() {
  return {
    fps: $('import-fps').value.trim(),
    axis: $('import-axis').value,
    rotation: $('import-rotation').value,
    animation: $('import-animation').value.trim(),
  };
}

/** Downloads the model as `to` with the export options of the form. */
export async function download(to) {
  if (!current) return;
  const gen = generation;
  const { file, entry } = modelUpload();
  const params = {
    to,
    entry,
    lod: $('lod').value,
    group: $('group').value,
    fps: $('fps').value.trim(),
    axis: $('axis').value,
    rotation: $('rotation').value,
    clips: to === 'obj' ? undefined : view.appliedClips,
    embed_original: ['glb', 'gltf'].includes(to) ? $('embed_original').value : undefined,
  };
  clearError();
  let answer;
  try {
    // The game's look goes with the exports that take it.
    const look = ['glb', 'gltf', 'obj', 'usda'].includes(to) ? lookFiles() : undefined;
    answer = await post('/v1/convert', params, { file, look }, `Converting to .${to}`);
  } catch (e) {
    if (gen === generation) fail(e, { keep: true });
    return;
  }
  if (gen !== generation) return;
  if (!answer.ok) return showError(problemOf(answer), { keep: true });
  const type = answer.header('content-type') || 'application/octet-stream';
  const name = answer.fileName(`model.${to === 'obj' ? 'zip' : to}`);
  save(new Blob([answer.body], { type }), name);
  setStatus(`Downloaded ${name} (${answer.body.byteLength.toLocaleString('en')} bytes).`);
}
