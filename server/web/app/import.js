// Importing a .glb/.gltf/.obj: POST /v1/convert?to=msh gives the .msh to
// download and the import report (x-mshconv-notes). The preview is that
// model put into an empty archive with its look (POST /v1/archive/put with
// the attached Material.lib/Textures.lib, or the service's --game-dir) and
// converted back with /v1/convert?to=glb&entry=, so it shows the model's own
// textures when the game's look is at hand (the .msh alone when the put is
// refused); then /v1/validate.

import { $, state, generation, current, extension, item } from '/app/state.js';
import { post, problemOf, zipFiles } from '/app/transport.js';
import { headline, setStatus, clearError, showError, fail, validate } from '/app/report.js';
import { importParams } from '/app/options.js';
import { lookFiles, showLook } from '/app/look.js';
import { entryNameFor, offerModel } from '/app/put.js';
import { showModel } from '/app/preview.js';

/** glTF/OBJ -> MSH: the import report and the .msh to download. */
export async function importModel(gen) {
  state.phase = 'uploading';
  clearError();
  const { file, mtl } = current;
  const params = { to: 'msh', ...importParams() };
  let answer;
  try {
    answer = await post('/v1/convert', params, { file, mtl }, `Uploading ${file.name}`);
  } catch (e) {
    if (gen === generation) fail(e);
    return;
  }
  if (gen !== generation) return;
  if (!answer.ok) return showError(problemOf(answer));
  let notes = [];
  try {
    notes = JSON.parse(answer.header('x-mshconv-notes') || '[]');
  } catch {
    notes = [];
  }
  const count = Number(answer.header('x-mshconv-notes-count') || notes.length);
  const from = answer.header('x-mshconv-from') || extension(file.name);
  const name = answer.fileName('model.msh');
  const blob = new Blob([answer.body], { type: 'application/octet-stream' });
  state.import = { from, fileName: name, bytes: blob.size, notes, count };
  const link = $('download-msh');
  if (link.href.startsWith('blob:')) URL.revokeObjectURL(link.href);
  link.href = URL.createObjectURL(blob);
  link.download = name;
  link.textContent = `Download ${name}`;
  $('import-title').textContent = `${file.name} → ${name}`;
  $('import-summary').textContent =
    `Read ${file.name} as ${from.toUpperCase()}${mtl ? ` with ${mtl.name}` : ''}; ` +
    `the .msh is ${blob.size.toLocaleString('en')} bytes.`;
  const list = $('notes');
  list.replaceChildren(...notes.map((n) => item(n.message, ` ${n.code}`)));
  if (!notes.length) list.append(item('Nothing to report: everything was carried over as it is.'));
  if (count > notes.length) list.append(item(`… and ${count - notes.length} more notes`));
  $('import').hidden = false;
  state.phase = 'imported';
  setStatus(`Converted ${file.name} to ${name}: ${count} note(s) in the import report.`);
  // The .msh is the model from now on: the preview, the validation and the
  // downloads use it. "Put into an archive" takes the file itself (and its
  // .mtl): the service converts it the same way and brings its look back too.
  const msh = new File([blob], name, { type: 'application/octet-stream' });
  current.model = msh;
  offerModel(file, mtl);
  await previewImported(gen, msh);
}

/** An empty NRes archive (its 16-byte header): where the preview puts an imported model. */
function emptyArchive() {
  const bytes = new Uint8Array(16);
  const view = new DataView(bytes.buffer);
  bytes.set([0x4e, 0x52, 0x65, 0x73]); // NRes
  view.setUint32(4, 0x100, true); // version
  view.setInt32(8, 0, true); // entries
  view.setUint32(12, 16, true); // total size
  return new File([bytes], 'preview.rlb', { type: 'application/octet-stream' });
}

/**
 * The imported model as the game would show it: put into an empty archive
 * with its look (the attached libraries, or the service's --game-dir), then
 * converted back from that archive with the libraries the put changed. The
 * answer of that conversion, or null when the put is refused (the caller
 * then shows the .msh without a look).
 */
async function lookPreview(msh) {
  const entry = entryNameFor(msh.name);
  const look = lookFiles(false);
  const put = await post(
    '/v1/archive/put',
    { entry, add: 'true', ...importParams() },
    { archive: emptyArchive(), file: current.file, mtl: current.mtl, look },
    null,
  );
  if (!put.ok) return null;
  let archive = put.body;
  if ((put.header('content-type') || '').startsWith('application/zip')) {
    for (const [name, bytes] of await zipFiles(put.body)) {
      const lower = name.toLowerCase();
      if (lower === 'textures.lib') look.textures = new File([bytes], name);
      else if (lower === 'material.lib') look.materials = new File([bytes], name);
      else archive = bytes;
    }
  }
  const file = new File([archive], 'preview.rlb', { type: 'application/octet-stream' });
  return post('/v1/convert', { to: 'glb', entry }, { file, look }, null);
}

/** The preview of an imported model: its .msh converted back to .glb by the service, with its look. */
async function previewImported(gen, msh) {
  state.importPreview = 'loading';
  const note = $('import-preview');
  note.textContent = 'Preparing the preview of the .msh…';
  let answer;
  try {
    answer = await lookPreview(msh);
    if (!answer || !answer.ok) answer = await post('/v1/convert', { to: 'glb' }, { file: msh }, null);
  } catch (e) {
    if (gen !== generation) return;
    state.importPreview = 'failed';
    note.textContent = `No preview: ${e.message}`;
    return;
  }
  if (gen !== generation) return;
  if (!answer.ok) {
    const p = problemOf(answer);
    state.importPreview = 'failed';
    note.textContent = `No preview: ${headline(p)}. ${p.detail || ''}`;
    return;
  }
  try {
    await showModel(answer.body, `${msh.name} (imported from ${current.file.name})`);
  } catch (e) {
    if (gen !== generation) return;
    state.importPreview = 'failed';
    $('model').hidden = true;
    note.textContent = `No preview: ${e && e.message ? e.message : e}`;
    return;
  }
  if (gen !== generation) return;
  showLook(answer, msh.name);
  state.importPreview = 'shown';
  note.textContent = state.look?.textured
    ? "The preview above shows the .msh as the service reads it back, with the model's own textures as they would go into the game's libraries."
    : 'The preview above shows the .msh as the service reads it back.';
  validate(gen);
}
