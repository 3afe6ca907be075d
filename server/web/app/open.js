// Opening files: a dropped or chosen file is a .msh, an .rlb or a
// .glb/.gltf/.obj (by its extension, else by its first bytes) and goes to the
// model (here: POST /v1/convert?to=glb for the preview, then the
// validation), to the archive panel (archive.js) or to the import
// (import.js).

import { $, state, generation, current, nextGeneration, setCurrent, extension, plural } from '/app/state.js';
import { PageError, post, problemOf } from '/app/transport.js';
import { setStatus, clearError, showError, fail, validate, tolerantView } from '/app/report.js';
import { openArchive } from '/app/archive.js';
import { importModel } from '/app/import.js';
import { lookFiles, clearLook, showLook } from '/app/look.js';
import { offerModel, withdrawModel } from '/app/put.js';
import { view, showModel } from '/app/preview.js';
import { stopAnimation } from '/app/animation.js';

/** msh, archive or import: from the extension, else from the first bytes. */
async function kindOf(file) {
  switch (extension(file.name)) {
    case 'msh':
      return 'msh';
    case 'rlb':
      return 'archive';
    case 'glb':
    case 'gltf':
    case 'obj':
      return 'import';
    default: {
      const head = new Uint8Array(await file.slice(0, 4).arrayBuffer());
      const magic = String.fromCharCode(...head);
      return magic === 'NRes' ? 'msh' : 'import';
    }
  }
}

export async function openFiles(fileList) {
  const files = [...fileList];
  if (!files.length) return;
  const mtl = files.find((f) => extension(f.name) === 'mtl');
  const file = files.find((f) => extension(f.name) !== 'mtl');
  const gen = nextGeneration();
  clearError();
  $('archive').hidden = true;
  $('model').hidden = true;
  $('import').hidden = true;
  $('damaged').hidden = true;
  stopAnimation();
  clearLook();
  Object.assign(state, {
    kind: null,
    archive: null,
    model: null,
    validation: null,
    import: null,
    importPreview: null,
    tolerant: null,
  });
  if (!file) {
    showError({
      title: 'A .mtl file alone is not a model',
      detail: 'Select the .obj together with its .mtl (both files at once).',
      code: 'page.mtl_only',
    });
    return;
  }
  const kind = await kindOf(file);
  state.kind = kind;
  setCurrent({ file, mtl: kind === 'import' ? mtl : null, entry: null, model: null });
  if (kind === 'msh') offerModel(file, null);
  if (kind === 'archive') await openArchive(gen);
  else if (kind === 'import') await importModel(gen);
  else await openModel(gen);
}

/** A model (a .msh, or an archive's entry): preview, validation, downloads. */
export async function openModel(gen) {
  state.phase = 'uploading';
  clearError();
  $('model').hidden = true;
  stopAnimation();
  const { file, entry } = current;
  clearLook();
  const what = entry ? `${entry} from ${file.name}` : file.name;
  $('clips-text').value = '';
  view.appliedClips = '';
  let answer;
  try {
    answer = await post('/v1/convert', { to: 'glb', entry }, { file, look: lookFiles() }, `Uploading ${file.name}`);
  } catch (e) {
    if (gen === generation) fail(e);
    return;
  }
  if (gen !== generation) return;
  if (!answer.ok) {
    const p = problemOf(answer);
    if (p.code === 'request.entry_required' && !entry) {
      // A .msh that is in fact an archive of models.
      state.kind = 'archive';
      withdrawModel(file);
      return openArchive(gen);
    }
    withdrawModel(file); // not a model to put into an archive either
    showError(p);
    // A model the conversion refuses: show what can be read of it.
    if (p.status === 422) await tolerantView(gen, p);
    return;
  }
  setStatus(`Preparing the preview of ${what}…`);
  try {
    await showModel(answer.body, entry || file.name);
    showLook(answer, entry || file.name);
  } catch (e) {
    if (gen === generation) {
      fail(
        new PageError({
          title: 'The preview cannot be shown',
          detail: `${e && e.message ? e.message : e}. The downloads may still work.`,
          code: 'page.preview',
        }),
      );
    }
    return;
  }
  if (gen !== generation) return;
  state.phase = 'ready';
  const m = state.model;
  setStatus(
    `Opened ${what}: ${plural(m.nodes, 'node')}, ${plural(m.lods.length, 'level')} of detail, ` +
      (m.frames !== null ? `an animation of ${plural(m.frames, 'frame')}.` : 'no animation.'),
  );
  validate(gen);
}
