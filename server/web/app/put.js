// The "Put a model into an archive" panel: the model (the one opened or
// imported above, or one chosen here), the .rlb (the one opened above, or one
// chosen here, its models listed by /v1/archive/list) and the entry name;
// POST /v1/archive/put gives the new archive to download (add=true only when
// "Add it as a new model" is ticked). A .glb/.gltf/.obj goes with the import
// options and the attached libraries; when a library changes, the answer is
// a zip of the archive and the changed libraries.

import { $, state, plural } from '/app/state.js';
import { post, problemOf, save } from '/app/transport.js';
import { setStatus, clearError, showError, fail } from '/app/report.js';
import { importParams } from '/app/options.js';
import { lookFiles } from '/app/look.js';

// The "put into an archive" form: the model (a File, with an .obj's .mtl) and
// the archive (a File). `entryAuto` is true while the entry name is the one
// the page filled in (a new model may fill it again).
export const put = { model: null, mtl: null, archive: null, entryAuto: true };

/** The entry name a model file suggests: its stem in capitals and `.MSH`, as the game names models. */
export const entryNameFor = (fileName) => `${fileName.replace(/\.[^.]*$/, '').toUpperCase() || 'MODEL'}.MSH`;

/** Makes `file` (with an .obj's `mtl`) the model to put; fills in the entry name unless the user typed one. */
export function offerModel(file, mtl) {
  put.model = file;
  put.mtl = mtl;
  $('put-model-text').textContent = `${file.name}${mtl ? ` with ${mtl.name}` : ''}, or`;
  if (put.entryAuto || !$('put-entry').value.trim()) {
    $('put-entry').value = entryNameFor(file.name);
    put.entryAuto = true;
  }
  updatePut();
}

/** Stops offering `file` as the model to put (it is an archive, or damaged). */
export function withdrawModel(file) {
  if (put.model !== file) return;
  put.model = null;
  put.mtl = null;
  $('put-model-text').textContent = 'the model you open above, or';
  updatePut();
}

/** Makes `file` the archive to put into, its model entries (`models`) the names to pick from. */
export function offerArchive(file, models) {
  put.archive = file;
  $('put-archive-text').textContent = `${file.name} (${plural(models.length, 'model')}), or`;
  const pick = $('put-pick');
  const first = document.createElement('option');
  first.value = '';
  first.textContent = "one of the archive's models";
  pick.replaceChildren(
    first,
    ...models.map((m) => {
      const o = document.createElement('option');
      o.value = m;
      o.textContent = m;
      return o;
    }),
  );
  pick.disabled = models.length === 0;
  $('put-entries').replaceChildren(
    ...models.map((m) => {
      const o = document.createElement('option');
      o.value = m;
      return o;
    }),
  );
  state.put.entries = models;
  updatePut();
}

export function updatePut() {
  const entry = $('put-entry').value.trim();
  state.put = {
    model: put.model ? put.model.name : null,
    archive: put.archive ? put.archive.name : null,
    entries: state.put.entries,
    entry,
    add: $('put-add').checked,
  };
  $('put-go').disabled = !(put.model && put.archive && entry);
}

/** An archive chosen in the "put" form: its entries from /v1/archive/list. */
export async function choosePutArchive(file) {
  clearError();
  let answer;
  try {
    answer = await post('/v1/archive/list', {}, { file }, `Reading ${file.name}`);
  } catch (e) {
    fail(e, { keep: true });
    return;
  }
  if (!answer.ok) return showError(problemOf(answer), { keep: true });
  const models = answer.json().filter((r) => /\.msh$/i.test(r.name)).map((r) => r.name);
  offerArchive(file, models);
  setStatus(`${file.name} holds ${plural(models.length, 'model')}: type an entry name, or pick one to replace.`);
}

/** POST /v1/archive/put, then download the new archive. */
export async function putIntoArchive() {
  const entry = $('put-entry').value.trim();
  if (!put.model || !put.archive || !entry) return;
  const params = { entry, add: $('put-add').checked ? 'true' : undefined };
  const isMsh = /\.msh$/i.test(put.model.name);
  if (!isMsh) {
    // A glTF or an OBJ is converted with the import options.
    Object.assign(params, importParams());
  }
  clearError();
  let answer;
  try {
    answer = await post(
      '/v1/archive/put',
      params,
      // A glTF's or OBJ's look goes into the libraries attached (not the WEAR: the archive's is used).
      { archive: put.archive, file: put.model, mtl: put.mtl, look: isMsh ? undefined : lookFiles(false) },
      `Putting ${entry} into ${put.archive.name}`,
    );
  } catch (e) {
    fail(e, { keep: true });
    return;
  }
  if (!answer.ok) {
    state.putResult = null;
    $('put-result').textContent = '';
    return showError(problemOf(answer), { keep: true });
  }
  const zipped = (answer.header('content-type') || '').startsWith('application/zip');
  const name = answer.fileName(zipped ? 'archive.zip' : 'archive.rlb');
  const changed = answer.header('x-mshconv-changed') || '';
  const placed = answer.header('x-mshconv-placed') || 'put';
  const stored = answer.header('x-mshconv-entry') || entry;
  let notes = [];
  try {
    notes = JSON.parse(answer.header('x-mshconv-notes') || '[]');
  } catch {
    notes = [];
  }
  save(new Blob([answer.body], { type: zipped ? 'application/zip' : 'application/octet-stream' }), name);
  state.putResult = { placed, entry: stored, fileName: name, bytes: answer.body.byteLength, notes: notes.length, changed };
  const what = placed === 'added' ? `Added ${stored} to` : `Replaced ${stored} in`;
  const text =
    `${what} ${put.archive.name} (from ${put.model.name}${notes.length ? `, ${plural(notes.length, 'conversion note')}` : ''}): ` +
    `downloaded ${name}, ${answer.body.byteLength.toLocaleString('en')} bytes. Every other entry is as it was.` +
    (zipped ? ` Changed: ${changed} (copy them back into the game folder).` : '');
  $('put-result').textContent = text;
  setStatus(text);
}
