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

import {
  AnimationMixer,
  Box3,
  Color,
  DirectionalLight,
  GLTFLoader,
  HemisphereLight,
  LoopRepeat,
  OrbitControls,
  PerspectiveCamera,
  Scene,
  Vector3,
  WebGLRenderer,
} from '/vendor/three.bundle.js';

const $ = (id) => document.getElementById(id);

// three.js's loop modes are consecutive constants (LoopOnce 2200, LoopRepeat
// 2201, LoopPingPong 2202); the bundle exports LoopRepeat only.
const LOOP_MODES = { once: LoopRepeat - 1, loop: LoopRepeat, pingpong: LoopRepeat + 1 };

/** The preview's background colour (the browser test counts pixels that differ from it). */
const BACKGROUND = 0x1e242c;
/** The longest an upload and its answer may take before the page gives up. */
const REQUEST_TIMEOUT_MS = 5 * 60 * 1000;
/** A glTF slot node: `<node>|L<lod>G<group>` (crates/convert/src/names.rs). */
const SLOT_SUFFIX = /\|L([0-2])G([0-4])(?:\.\d{3})?$/;

// What the page shows; window.mshconvTest.state is a copy of it.
const state = {
  phase: 'idle', // idle | uploading | archive | ready | imported | error
  kind: null, // msh | archive | import
  error: null,
  status: '',
  archive: null,
  model: null,
  validation: null,
  import: null,
  downloads: [],
  upload: null, // the last upload's progress events
  importPreview: null, // null | loading | shown | failed: the preview of an imported model
  tolerant: null, // what can be read of a model the conversion refused
  archiveZip: null, // the last "every model" zip
  put: { model: null, archive: null, entries: [], entry: '', add: false }, // the "put into an archive" form
  putResult: null, // the last put: placed, entry, fileName, bytes, notes
  look: null, // the shown model's look: textured, images, text
};

// Each new file starts a new generation; answers for an older one are dropped.
let generation = 0;
let current = null; // { file, mtl, entry, model }: model is the .msh an import made

// The "put into an archive" form: the model (a File, with an .obj's .mtl) and
// the archive (a File). `entryAuto` is true while the entry name is the one
// the page filled in (a new model may fill it again).
const put = { model: null, mtl: null, archive: null, entryAuto: true };

// ---------------------------------------------------------------- requests

/** An answer of the service. */
class Answer {
  constructor(xhr) {
    this.status = xhr.status;
    this.ok = xhr.status >= 200 && xhr.status < 300;
    this.body = xhr.response instanceof ArrayBuffer ? xhr.response : new ArrayBuffer(0);
    this.xhr = xhr;
  }
  header(name) {
    return this.xhr.getResponseHeader(name);
  }
  text() {
    return new TextDecoder().decode(this.body);
  }
  json() {
    return JSON.parse(this.text());
  }
  /** The file name of `Content-Disposition: attachment; filename="..."`. */
  fileName(fallback) {
    const m = /filename="([^"]+)"/.exec(this.header('content-disposition') || '');
    return m ? m[1] : fallback;
  }
}

/** A failure to show: the fields of a problem document, or the page's own. */
class PageError extends Error {
  constructor(problem) {
    super(problem.detail || problem.title || 'error');
    this.problem = problem;
  }
}

/**
 * POSTs `upload` ({file, mtl, look}) as multipart/form-data to `path` with the query
 * `params` (empty values left out). With `busy`, shows the upload's progress
 * under that label. Resolves with an Answer (any status); rejects with a
 * PageError when no answer came.
 */
function post(path, params, upload, busy) {
  return new Promise((resolve, reject) => {
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) {
      if (v !== undefined && v !== null && v !== '') query.set(k, String(v));
    }
    const qs = query.toString();
    const xhr = new XMLHttpRequest();
    xhr.open('POST', qs ? `${path}?${qs}` : path);
    xhr.responseType = 'arraybuffer';
    xhr.timeout = REQUEST_TIMEOUT_MS;
    const form = new FormData();
    if (upload.archive) form.append('archive', upload.archive, upload.archive.name);
    form.append('file', upload.file, upload.file.name);
    if (upload.mtl) form.append('mtl', upload.mtl, upload.mtl.name);
    for (const [field, f] of Object.entries(upload.look ?? {})) form.append(field, f, f.name);
    if (busy) {
      showBusy(busy, 0);
      const upload = { label: busy, events: 0, loaded: 0, total: 0 };
      state.upload = upload;
      xhr.upload.onprogress = (e) => {
        Object.assign(upload, { events: upload.events + 1, loaded: e.loaded, total: e.total });
        if (e.lengthComputable) showBusy(busy, e.loaded / e.total);
      };
      xhr.upload.onload = () => showBusy('Working on it…', null);
    }
    const done = (f) => () => {
      if (busy) hideBusy();
      f();
    };
    xhr.onload = done(() => resolve(new Answer(xhr)));
    xhr.onerror = done(() =>
      reject(
        new PageError({
          title: 'The service cannot be reached',
          detail:
            'The request did not get through. Check that mshconv-server is still running, then try again.',
          code: 'page.network',
        }),
      ),
    );
    xhr.ontimeout = done(() =>
      reject(
        new PageError({
          title: 'No answer in time',
          detail: `The service did not answer within ${REQUEST_TIMEOUT_MS / 60000} minutes. Try again, or try a smaller file.`,
          code: 'page.timeout',
        }),
      ),
    );
    xhr.onabort = done(() =>
      reject(new PageError({ title: 'Cancelled', detail: 'The request was cancelled.', code: 'page.aborted' })),
    );
    xhr.send(form);
  });
}

/** The problem document of a failed answer (or a stand-in when it has none). */
function problemOf(answer) {
  try {
    const p = answer.json();
    if (p && typeof p === 'object' && (p.code || p.detail)) return p;
  } catch {
    // not JSON: fall through
  }
  return {
    status: answer.status,
    title: `HTTP ${answer.status}`,
    detail: answer.text().slice(0, 500) || 'The service answered with an error and no explanation.',
    code: 'page.http',
  };
}

/** A headline a modder understands, from a problem document's code and status. */
function headline(p) {
  const code = p.code || '';
  const known = {
    'request.too_large': 'This file is too large for the service',
    'request.empty_body': 'This file is empty',
    'input.unknown_format': 'This file is not a model mshconv can read',
    'server.busy': 'The service is busy',
    'server.timeout': 'The service ran out of time on this file',
    'request.timeout': 'The upload took too long',
    'request.entry_required': 'This file is an archive of several models',
    'input.no_such_entry': 'The archive has no such model',
    'archive.no_models': 'This archive holds no models',
    'option.invalid': 'One of the options is not valid',
    'msh.unsupported': 'This kind of model cannot be converted',
    'request.entry_not_model': 'The entry name is not a model name',
    'request.entry_required': 'This file is an archive of several models',
    'request.missing_archive': 'Choose an archive first',
    'archive.is_model': 'This file is a model, not an archive',
    'archive.no_such_entry': 'The archive has no entry of that name (tick “Add it as a new model” to add one)',
    'archive.bad_name': 'This name cannot be an entry name',
  };
  if (known[code]) return known[code];
  if (code.startsWith('page.')) return p.title;
  if (code.startsWith('nres.')) return 'The file is damaged: its NRes container cannot be read';
  if (code.startsWith('gltf.')) return 'This glTF file cannot be turned into a .msh';
  if (code.startsWith('obj.')) return 'This OBJ file cannot be turned into a .msh';
  if (code.startsWith('import.')) return 'This model cannot be turned into a .msh';
  if (p.status === 422) return 'The model is damaged, or holds something mshconv cannot convert';
  if (p.status === 400) return 'The service refused the request';
  if (p.status === 413) return 'This file is too large for the service';
  if (p.status >= 500) return 'The service failed on this file';
  return p.title || 'Something went wrong';
}

// ---------------------------------------------------------------- page state

function setStatus(text) {
  state.status = text;
  $('status').textContent = text;
}

function showBusy(label, fraction) {
  $('busy').hidden = false;
  $('busy-label').textContent = label;
  const bar = $('progress');
  if (fraction === null) {
    bar.removeAttribute('value');
    $('progress-text').textContent = '';
  } else {
    bar.value = Math.round(fraction * 100);
    $('progress-text').textContent = `${Math.round(fraction * 100)} %`;
  }
}

function hideBusy() {
  $('busy').hidden = true;
}

function clearError() {
  state.error = null;
  $('error').hidden = true;
}

/**
 * Shows a failure in words: the headline, the service's explanation, where in
 * the file, the validator's findings and the code. `keep` leaves what is
 * shown (a failed download keeps the preview).
 */
function showError(p, { keep = false } = {}) {
  if (!keep) {
    state.phase = 'error';
    $('model').hidden = true;
    $('import').hidden = true;
    stopAnimation();
  }
  const title = headline(p);
  state.error = { status: p.status ?? null, code: p.code || null, title, detail: p.detail || '' };
  $('error-title').textContent = title;
  $('error-detail').textContent = p.detail || '';
  const where = [];
  if (p.path) where.push(`at ${p.path}`);
  if (typeof p.offset === 'number') where.push(`byte ${p.offset} (0x${p.offset.toString(16)})`);
  $('error-where').textContent = where.length ? `Where: ${where.join(', ')}` : '';
  const list = $('error-findings');
  list.replaceChildren(
    ...(p.findings || []).map((f) => item(`${f.severity}: ${f.message}`, f.path ? ` (${f.path})` : '')),
  );
  if (p.findings_total > (p.findings || []).length) {
    list.append(item(`… and ${p.findings_total - p.findings.length} more`));
  }
  $('error-code').textContent = p.code || 'unknown';
  $('error-request').textContent = p.instance ? `· request ${p.instance}` : '';
  $('error').hidden = false;
  setStatus(`Failed: ${title}.`);
}

function fail(e, options) {
  if (e instanceof PageError) showError(e.problem, options);
  else showError({ title: 'The page failed', detail: String(e && e.message ? e.message : e), code: 'page.internal' }, options);
}

function item(text, small) {
  const li = document.createElement('li');
  li.textContent = text;
  if (small) {
    const s = document.createElement('small');
    s.textContent = small;
    li.append(s);
  }
  return li;
}

/** Offers `blob` as a download named `name`. */
function save(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  state.downloads.push({ name, bytes: blob.size });
}

// ---------------------------------------------------------------- opening files

const extension = (name) => (/\.([^.]+)$/.exec(name) || [])[1]?.toLowerCase() ?? '';

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

async function openFiles(fileList) {
  const files = [...fileList];
  if (!files.length) return;
  const mtl = files.find((f) => extension(f.name) === 'mtl');
  const file = files.find((f) => extension(f.name) !== 'mtl');
  generation += 1;
  const gen = generation;
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
  current = { file, mtl: kind === 'import' ? mtl : null, entry: null, model: null };
  if (kind === 'msh') offerModel(file, null);
  if (kind === 'archive') await openArchive(gen);
  else if (kind === 'import') await importModel(gen);
  else await openModel(gen);
}

/** An archive: list its entries and let the user pick a model. */
async function openArchive(gen) {
  state.phase = 'uploading';
  const { file } = current;
  let answer;
  try {
    answer = await post('/v1/archive/list', {}, { file }, `Uploading ${file.name}`);
  } catch (e) {
    if (gen === generation) fail(e);
    return;
  }
  if (gen !== generation) return;
  if (!answer.ok) return showError(problemOf(answer));
  const rows = answer.json();
  const models = rows.filter((r) => /\.msh$/i.test(r.name));
  state.kind = 'archive';
  state.archive = { entries: rows.map((r) => r.name), models: models.map((r) => r.name) };
  const body = $('entries').querySelector('tbody');
  body.replaceChildren(
    ...rows.map((r) => {
      const tr = document.createElement('tr');
      for (const v of [r.index, r.name, fourcc(r.type_id), r.size.toLocaleString('en')]) {
        const td = document.createElement('td');
        td.textContent = String(v);
        tr.append(td);
      }
      return tr;
    }),
  );
  $('archive-summary').textContent = `${file.name} holds ${rows.length} entries, ${models.length} of them models.`;
  const select = $('entry');
  select.replaceChildren(
    ...models.map((r) => {
      const o = document.createElement('option');
      o.value = r.name;
      o.textContent = `${r.name} (${r.size.toLocaleString('en')} bytes)`;
      return o;
    }),
  );
  $('open-entry').disabled = models.length === 0;
  $('archive-convert').disabled = models.length === 0;
  $('archive').hidden = false;
  offerArchive(file, models.map((r) => r.name));
  if (!models.length) {
    return showError(
      { code: 'archive.no_models', detail: 'None of its entries is a model (a name ending in .msh).' },
      { keep: true },
    );
  }
  state.phase = 'archive';
  setStatus(`Opened the archive ${file.name}: pick one of its ${models.length} models.`);
  select.focus();
}

/** A type id as its four characters when they are printable (MSH, TEXM, ...). */
function fourcc(id) {
  const chars = [0, 8, 16, 24].map((s) => (id >>> s) & 0xff).filter((c) => c !== 0);
  return chars.every((c) => c >= 32 && c < 127) && chars.length ? String.fromCharCode(...chars) : String(id);
}

/** A model (a .msh, or an archive's entry): preview, validation, downloads. */
async function openModel(gen) {
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

async function validate(gen) {
  const panel = $('validation');
  panel.replaceChildren(paragraph('Checking…'));
  const { file, entry } = modelUpload();
  let answer;
  try {
    answer = await post('/v1/validate', { entry }, { file }, null);
  } catch (e) {
    if (gen === generation) panel.replaceChildren(paragraph(`The check failed: ${e.message}`));
    return;
  }
  if (gen !== generation) return;
  if (!answer.ok) {
    const p = problemOf(answer);
    panel.replaceChildren(paragraph(`${headline(p)}: ${p.detail}`));
    return;
  }
  const report = answer.json();
  const count = (s) => report.findings.filter((f) => f.severity === s).length;
  state.validation = { valid: report.valid, errors: count('error'), warnings: count('warning'), info: count('info') };
  const v = state.validation;
  const summary = paragraph(
    report.valid
      ? v.warnings + v.info === 0
        ? 'Valid: the model follows every rule of the format.'
        : `Valid, with ${v.warnings} warning(s) and ${v.info} note(s).`
      : `Not valid: ${v.errors} error(s), ${v.warnings} warning(s).`,
  );
  summary.className = report.valid ? 'valid' : 'invalid';
  const list = document.createElement('ul');
  list.className = 'findings';
  const shown = report.findings.slice(0, 200);
  list.append(...shown.map((f) => item(`${f.severity}: ${f.message}`, ` ${f.code}, ${f.path}`)));
  if (report.findings.length > shown.length) list.append(item(`… and ${report.findings.length - shown.length} more`));
  panel.replaceChildren(summary, list);
}

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

function paragraph(text) {
  const p = document.createElement('p');
  p.textContent = text;
  return p;
}

/** The import options of the form (for a glTF or OBJ on its way to .msh). */
function importParams() {
  return {
    fps: $('import-fps').value.trim(),
    axis: $('import-axis').value,
    rotation: $('import-rotation').value,
    animation: $('import-animation').value.trim(),
  };
}

/** glTF/OBJ -> MSH: the import report and the .msh to download. */
async function importModel(gen) {
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

/** The model the model endpoints read: an import's .msh, else the file (and entry) opened. */
function modelUpload() {
  if (current.model) return { file: current.model, entry: undefined };
  return { file: current.file, entry: current.entry || undefined };
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
 * The files of a zip the service wrote: [name, Uint8Array][]. Its files are
 * stored or deflated (method 8, read with the browser's
 * DecompressionStream('deflate-raw')); the sizes are in the local headers.
 */
async function zipFiles(buffer) {
  const view = new DataView(buffer);
  const files = [];
  let at = 0;
  while (at + 30 <= buffer.byteLength && view.getUint32(at, true) === 0x04034b50) {
    const method = view.getUint16(at + 8, true);
    const size = view.getUint32(at + 18, true);
    const nameLength = view.getUint16(at + 26, true);
    const extra = view.getUint16(at + 28, true);
    const name = new TextDecoder().decode(new Uint8Array(buffer, at + 30, nameLength));
    const start = at + 30 + nameLength + extra;
    const data = new Uint8Array(buffer, start, size);
    if (method === 8) {
      const stream = new Blob([data]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
      files.push([name, new Uint8Array(await new Response(stream).arrayBuffer())]);
    } else {
      files.push([name, data]);
    }
    at = start + size;
  }
  return files;
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

// ---------------------------------------------------------------- a damaged model

/**
 * What can be read of a model the conversion refused (`p`, its problem): the
 * tolerant validation report and inspection, and why there is no 3D view
 * (every conversion reads the model strictly, so none is possible).
 */
async function tolerantView(gen, p) {
  const { file, entry } = modelUpload();
  const tolerant = { code: p.code || null, validation: null, inspect: null, preview: false, why: '' };
  state.tolerant = tolerant;
  $('damaged').hidden = false;
  $('damaged-summary').textContent = 'Reading what can be read of the model…';
  $('damaged-findings').replaceChildren();
  $('damaged-inspect').querySelector('tbody').replaceChildren();
  const ask = (path) =>
    post(path, { entry, tolerant: true }, { file }, null).then(
      (a) => (a.ok ? { doc: a.json() } : { problem: problemOf(a) }),
      (e) => ({ problem: e.problem || { detail: String(e.message || e), code: 'page.internal' } }),
    );
  const [validation, inspection] = await Promise.all([ask('/v1/validate'), ask('/v1/inspect')]);
  if (gen !== generation) return;

  const findings = $('damaged-findings');
  if (validation.doc) {
    const r = validation.doc;
    const count = (sev) => r.findings.filter((f) => f.severity === sev).length;
    tolerant.validation = { errors: count('error'), warnings: count('warning'), info: count('info'), findings: r.findings.length };
    const shown = r.findings.slice(0, 200);
    findings.replaceChildren(...shown.map((f) => item(`${f.severity}: ${f.message}`, ` ${f.code}, ${f.path}`)));
    if (r.findings.length > shown.length) findings.append(item(`… and ${r.findings.length - shown.length} more`));
    if (!r.findings.length) findings.append(item('No findings.'));
  } else {
    tolerant.validation = { error: validation.problem.code || null };
    findings.replaceChildren(item(`Even a tolerant check cannot read it: ${validation.problem.detail || headline(validation.problem)}`));
  }

  const rows = [];
  if (inspection.doc) {
    const d = inspection.doc;
    const t = d.totals || {};
    const missing = d.resources?.required_missing ?? [];
    rows.push(
      ['Kind', d.kind],
      ['Bytes', (d.bytes ?? 0).toLocaleString('en')],
      ['Container entries', d.entries?.length ?? 0],
      ['Nodes', t.nodes ?? 0],
      ['Mesh slots', t.slots ?? 0],
      ['Batches', t.batches ?? 0],
      ['Vertices', t.vertices ?? 0],
      ['Triangles', t.triangles ?? 0],
      ['Animation', d.animation ? `${plural(d.animation.frame_count, 'frame')}, ${plural(d.animation.animated_nodes, 'animated node')}` : 'none'],
      ['Required resources missing', missing.length ? missing.map((r) => `Res${r}`).join(', ') : 'none'],
    );
    tolerant.inspect = { kind: d.kind, nodes: t.nodes ?? 0, vertices: t.vertices ?? 0, triangles: t.triangles ?? 0, missing };
  } else {
    rows.push(['Inspection', `not possible: ${inspection.problem.detail || headline(inspection.problem)}`]);
    tolerant.inspect = { error: inspection.problem.code || null };
  }
  $('damaged-inspect').querySelector('tbody').replaceChildren(
    ...rows.map(([k, v]) => {
      const tr = document.createElement('tr');
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = k;
      const td = document.createElement('td');
      td.textContent = String(v);
      tr.append(th, td);
      return tr;
    }),
  );

  const finding = (p.findings || [])[0];
  const first = finding ? `${finding.message}${finding.path ? ` (${finding.path})` : ''}` : (p.detail || '').split('\n')[0];
  tolerant.why = `No 3D view: every conversion reads the model strictly, and this one is refused (${p.code}): ${first}`;
  $('damaged-preview').textContent = tolerant.why;
  const v = tolerant.validation;
  $('damaged-summary').textContent =
    v && v.error === undefined
      ? `A tolerant reading of ${entry || file.name} finds ${plural(v.errors, 'error')} and ${plural(v.warnings, 'warning')}; what is damaged is skipped, the rest is shown below.`
      : `${entry || file.name} cannot be read even tolerantly.`;
  tolerant.done = true;
}

// ---------------------------------------------------------------- every model of an archive

async function convertArchive() {
  if (!current || state.kind !== 'archive') return;
  const to = $('archive-to').value;
  const { file } = current;
  clearError();
  let answer;
  try {
    answer = await post('/v1/archive/convert', { to }, { file, look: lookFiles(false) }, `Converting every model of ${file.name} to .${to}`);
  } catch (e) {
    fail(e, { keep: true });
    return;
  }
  if (!answer.ok) return showError(problemOf(answer), { keep: true });
  const name = answer.fileName('archive.zip');
  save(new Blob([answer.body], { type: 'application/zip' }), name);
  state.archiveZip = { to, fileName: name, bytes: answer.body.byteLength };
  setStatus(`Downloaded ${name}: every model of ${file.name} as .${to}, with report.json (${answer.body.byteLength.toLocaleString('en')} bytes).`);
}

// ---------------------------------------------------------------- put into an archive

/** The entry name a model file suggests: its stem in capitals and `.MSH`, as the game names models. */
const entryNameFor = (fileName) => `${fileName.replace(/\.[^.]*$/, '').toUpperCase() || 'MODEL'}.MSH`;

/** Makes `file` (with an .obj's `mtl`) the model to put; fills in the entry name unless the user typed one. */
function offerModel(file, mtl) {
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
function withdrawModel(file) {
  if (put.model !== file) return;
  put.model = null;
  put.mtl = null;
  $('put-model-text').textContent = 'the model you open above, or';
  updatePut();
}

/** Makes `file` the archive to put into, its model entries (`models`) the names to pick from. */
function offerArchive(file, models) {
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

function updatePut() {
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
async function choosePutArchive(file) {
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
async function putIntoArchive() {
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

// ---------------------------------------------------------------- the preview

const view = {
  renderer: null,
  scene: null,
  camera: null,
  controls: null,
  root: null, // the loaded glTF scene
  mixer: null,
  action: null,
  clips: [], // { name, first, last, mode, animation }: the clips of an export with clips
  clip: null, // the clip playing
  appliedClips: '', // the clip list the preview (and so the downloads) were made with
  fps: 24,
  duration: 0,
  playing: false,
  last: 0,
  frameRequested: false,
  slots: [], // { object, lod, group, name }
};

function ensureRenderer() {
  if (view.renderer) return;
  const canvas = $('view');
  // preserveDrawingBuffer: the picture can be read back (screenshots, tests).
  view.renderer = new WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
  view.renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
  view.renderer.setClearColor(new Color(BACKGROUND), 1);
  view.scene = new Scene();
  view.scene.background = new Color(BACKGROUND);
  view.camera = new PerspectiveCamera(45, 1, 0.01, 1000);
  view.scene.add(new HemisphereLight(0xffffff, 0x40444c, 1.6));
  const sun = new DirectionalLight(0xffffff, 2.2);
  sun.position.set(0.5, 1, 0.8);
  view.camera.add(sun); // a headlight: the model is lit from where one looks
  view.scene.add(view.camera);
  view.controls = new OrbitControls(view.camera, canvas);
  view.controls.enableDamping = false;
  view.controls.listenToKeyEvents(canvas);
  view.controls.addEventListener('change', requestRender);
  canvas.addEventListener('keydown', (e) => {
    // OrbitControls has no keyboard zoom: + and - move the camera to and from its target.
    const factor = { '+': 0.8, '=': 0.8, '-': 1.25, _: 1.25 }[e.key];
    if (!factor) return;
    e.preventDefault();
    const offset = view.camera.position.clone().sub(view.controls.target).multiplyScalar(factor);
    view.camera.position.copy(view.controls.target).add(offset);
    view.controls.update();
  });
  new ResizeObserver(resize).observe(canvas.parentElement);
}

function resize() {
  const canvas = view.renderer.domElement;
  const width = Math.max(1, canvas.clientWidth);
  const height = Math.max(1, canvas.clientHeight);
  view.renderer.setSize(width, height, false);
  view.camera.aspect = width / height;
  view.camera.updateProjectionMatrix();
  render();
}

function requestRender() {
  if (view.frameRequested || !view.renderer) return;
  view.frameRequested = true;
  requestAnimationFrame(tick);
}

function tick(now) {
  view.frameRequested = false;
  if (view.playing && view.mixer) {
    const dt = view.last ? Math.min((now - view.last) / 1000, 0.25) : 0;
    view.last = now;
    view.mixer.update(dt);
    showTime();
    requestRender();
  }
  render();
}

function render() {
  if (view.renderer) view.renderer.render(view.scene, view.camera);
}

function disposeModel() {
  stopAnimation();
  if (!view.root) return;
  view.scene.remove(view.root);
  view.root.traverse((o) => {
    if (o.geometry) o.geometry.dispose();
    const ms = Array.isArray(o.material) ? o.material : o.material ? [o.material] : [];
    for (const m of ms) m.dispose();
  });
  view.root = null;
  view.mixer = null;
  view.action = null;
  view.clips = [];
  view.clip = null;
  view.slots = [];
}

/** Loads a GLB (from /v1/convert) into the preview and fills the pickers and the node tree. */
async function showModel(glb, title) {
  $('model').hidden = false; // visible first: the canvas needs its size
  $('model-title').textContent = title;
  ensureRenderer();
  disposeModel();
  const gltf = await new GLTFLoader().parseAsync(glb, '');
  const json = gltf.parser.json;
  const extras = json.scenes?.[json.scene ?? 0]?.extras?.msh ?? {};
  const options = extras.options ?? {};

  // glTF node index -> three.js object.
  const objects = new Map();
  gltf.scene.traverse((o) => {
    const a = gltf.parser.associations.get(o);
    if (a && a.nodes !== undefined && !objects.has(a.nodes)) objects.set(a.nodes, o);
  });
  const parents = new Map();
  (json.nodes ?? []).forEach((n, i) => (n.children ?? []).forEach((c) => parents.set(c, i)));
  const animated = new Set(
    (json.animations ?? []).flatMap((a) => a.channels.map((c) => c.target.node)),
  );

  // Slot nodes hold one (lod, group) slot of their parent, an MSH node.
  const nodes = [];
  view.slots = [];
  (json.nodes ?? []).forEach((n, i) => {
    const name = n.name ?? `#${i}`;
    const m = SLOT_SUFFIX.exec(name);
    const slot = n.extras?.msh;
    if (m || (slot && slot.owner !== undefined && slot.lod !== undefined)) {
      const lod = m ? Number(m[1]) : slot.lod;
      const group = m ? Number(m[2]) : slot.group;
      view.slots.push({ index: i, name, lod, group, owner: parents.get(i), object: objects.get(i) });
    } else {
      nodes.push({ index: i, name, parent: parents.get(i), animated: animated.has(i) });
    }
  });

  view.root = gltf.scene;
  view.scene.add(view.root);

  // Pickers: the levels of detail and groups that occur, the exported choice selected.
  const lods = [...new Set(view.slots.map((s) => s.lod))].sort((a, b) => a - b);
  const groups = [...new Set(view.slots.map((s) => s.group))].sort((a, b) => a - b);
  const lod = options.lod ?? lods[0] ?? 0;
  const group = options.group ?? groups[0] ?? 0;
  fillPicker($('lod'), lods.length ? lods : [lod], lod, (l) => (l === 0 ? `${l} (most detail)` : String(l)));
  fillPicker($('group'), groups.length ? groups : [group], group, String);

  // Animation: one over the whole timeline, or one per clip (extras.msh.clip).
  const clip = gltf.animations[0] ?? null;
  view.fps = typeof options.fps === 'number' && options.fps > 0 ? options.fps : 24;
  view.clips = (json.animations ?? []).flatMap((a, i) => {
    const c = a.extras?.msh?.clip;
    return c && gltf.animations[i] ? [{ name: a.name ?? `#${i}`, first: c.first, last: c.last, mode: c.mode, animation: gltf.animations[i] }] : [];
  });
  view.duration = 0;
  if (view.clips.length || (clip && clip.duration > 0)) {
    view.mixer = new AnimationMixer(view.root);
    if (view.clips.length) useClip(0);
    else useAnimation(clip, 'loop');
  }
  const frames = clip ? (extras.frame_count ?? Math.round(view.duration * view.fps)) : null;
  $('time').value = '0';
  $('animation').hidden = !view.mixer;
  $('no-animation').hidden = !!view.mixer;
  showClips();

  state.model = {
    name: title,
    nodes: nodes.length,
    slots: view.slots.length,
    lods,
    groups,
    lod,
    group,
    animated: !!view.mixer,
    frames,
    fps: view.fps,
    duration: view.duration,
    clips: view.clips.map(({ name, first, last, mode }) => ({ name, first, last, mode })),
    clip: view.clip ? view.clip.name : null,
  };
  buildTree(nodes);
  applySlot(lod, group);
  frameCamera();
  resize();
  showTime();
}

function fillPicker(select, values, chosen, label) {
  select.replaceChildren(
    ...values.map((v) => {
      const o = document.createElement('option');
      o.value = String(v);
      o.textContent = label(v);
      o.selected = v === chosen;
      return o;
    }),
  );
  select.disabled = values.length < 2;
}

/** Shows slot (lod, group): scale 1 on its slot nodes, 0 on every other slot node. */
function applySlot(lod, group) {
  let shown = 0;
  for (const s of view.slots) {
    const on = s.lod === lod && s.group === group;
    if (on) shown += 1;
    if (s.object) s.object.scale.setScalar(on ? 1 : 0);
    if (s.li) s.li.classList.toggle('shown', on);
    if (s.li) s.li.querySelector('.state').textContent = on ? 'shown' : 'hidden';
  }
  if (state.model) Object.assign(state.model, { lod, group, shownSlots: shown });
  $('lod').value = String(lod);
  $('group').value = String(group);
  if (view.slots.length && !shown) {
    setStatus(`No node has a mesh for level of detail ${lod}, group ${group}: the preview is empty.`);
  }
  requestRender();
}

function onSlotPicked() {
  applySlot(Number($('lod').value), Number($('group').value));
  if (state.model && state.model.shownSlots) {
    setStatus(`Showing level of detail ${state.model.lod}, group ${state.model.group}.`);
  }
}

/** Puts the whole model in view. */
function frameCamera() {
  view.root.updateMatrixWorld(true);
  const box = new Box3().setFromObject(view.root);
  const center = box.isEmpty() ? new Vector3() : box.getCenter(new Vector3());
  const size = box.isEmpty() ? 1 : Math.max(box.getSize(new Vector3()).length(), 1e-3);
  const distance = size / (2 * Math.tan((view.camera.fov * Math.PI) / 360)) * 1.1;
  const dir = new Vector3(0.8, 0.55, 1).normalize();
  view.camera.position.copy(center).addScaledVector(dir, distance);
  view.camera.near = distance / 100;
  view.camera.far = distance * 100;
  view.camera.updateProjectionMatrix();
  view.controls.target.copy(center);
  view.controls.update();
}

function buildTree(nodes) {
  const children = new Map();
  for (const n of nodes) {
    const key = n.parent ?? -1;
    if (!children.has(key)) children.set(key, []);
    children.get(key).push(n);
  }
  const slotsOf = new Map();
  for (const s of view.slots) {
    if (!slotsOf.has(s.owner)) slotsOf.set(s.owner, []);
    slotsOf.get(s.owner).push(s);
  }
  const build = (parent) =>
    (children.get(parent) ?? []).map((n) => {
      const li = document.createElement('li');
      const label = document.createElement('span');
      label.className = 'node';
      label.textContent = n.name;
      li.append(label);
      if (n.animated) {
        const tag = document.createElement('span');
        tag.className = 'tag';
        tag.textContent = 'animated';
        li.append(' ', tag);
      }
      const slots = slotsOf.get(n.index) ?? [];
      if (slots.length) {
        const ul = document.createElement('ul');
        ul.className = 'slots';
        for (const s of slots) {
          const sl = document.createElement('li');
          sl.append(`LOD ${s.lod}, group ${s.group}: `);
          const st = document.createElement('span');
          st.className = 'state';
          sl.append(st);
          s.li = sl;
          ul.append(sl);
        }
        li.append(ul);
      }
      const sub = build(n.index);
      if (sub.length) {
        const ul = document.createElement('ul');
        ul.append(...sub);
        li.append(ul);
      }
      return li;
    });
  $('tree').replaceChildren(...build(-1));
}

// ---------------------------------------------------------------- animation

function setTime(seconds) {
  if (!view.action) return;
  view.action.time = Math.min(Math.max(seconds, 0), view.duration);
  view.mixer.update(0); // applies the pose without moving the time (also at the very end)
}

/** Plays `animation` (a three.js clip) in the loop mode `mode`, from its start. */
function useAnimation(animation, mode) {
  if (view.action) view.action.stop();
  view.action = view.mixer.clipAction(animation);
  view.action.setLoop(LOOP_MODES[mode] ?? LoopRepeat, Infinity);
  view.action.clampWhenFinished = mode === 'once';
  view.action.reset().play();
  view.duration = animation.duration;
  $('time').max = String(Math.max(0, Math.round(view.duration * view.fps)));
  setTime(0);
}

/** Makes clip `k` the one the preview plays. */
function useClip(k) {
  view.clip = view.clips[k] ?? null;
  if (!view.clip) return;
  useAnimation(view.clip.animation, view.clip.mode);
  if (state.model) Object.assign(state.model, { clip: view.clip.name, duration: view.duration });
  for (const li of $('clip-list').children) li.setAttribute('aria-current', String(li.dataset.clip === view.clip.name));
}

/** The clip picker and list (hidden without clips); the clips field is there for any animated model. */
function showClips() {
  $('clips').hidden = !view.mixer;
  $('clip-pick').hidden = view.clips.length === 0;
  $('clip').replaceChildren(
    ...view.clips.map((c, k) => {
      const o = document.createElement('option');
      o.value = String(k);
      o.textContent = c.name;
      return o;
    }),
  );
  $('clip-list').replaceChildren(
    ...view.clips.map((c) => {
      const li = document.createElement('li');
      li.dataset.clip = c.name;
      li.setAttribute('aria-current', String(c === view.clip));
      li.textContent = `${c.name}: game frames ${c.first}–${c.last}, ${c.mode}`;
      return li;
    }),
  );
}

/** Converts the model again with the clip list of the field, for the preview and the downloads. */
async function applyClips() {
  if (!current) return;
  const gen = generation;
  const { file, entry } = modelUpload();
  const clips = $('clips-text').value.trim();
  clearError();
  let answer;
  try {
    answer = await post('/v1/convert', { to: 'glb', entry, clips }, { file, look: lookFiles() }, 'Applying the clips');
  } catch (e) {
    if (gen === generation) fail(e, { keep: true });
    return;
  }
  if (gen !== generation) return;
  if (!answer.ok) return showError(problemOf(answer), { keep: true });
  stopAnimation();
  await showModel(answer.body, $('model-title').textContent);
  showLook(answer, state.look?.model ?? $('model-title').textContent);
  if (gen !== generation) return;
  view.appliedClips = clips;
  setStatus(clips ? `${plural(view.clips.length, 'clip')}: pick one to play it.` : 'One animation over the whole timeline.');
}

function showTime() {
  if (!view.action) return;
  const t = view.action.time;
  const frame = t * view.fps;
  $('time').value = String(Math.round(frame));
  const game = view.clip ? ` (game frame ${(view.clip.first + frame).toFixed(1)})` : '';
  const text = `frame ${frame.toFixed(1)} of ${$('time').max}${game} · ${t.toFixed(2)} s`;
  $('time-text').textContent = text;
  $('time').setAttribute('aria-valuetext', text);
  if (state.model) Object.assign(state.model, { time: t, frame, playing: view.playing });
}

function play(on) {
  if (!view.action) return;
  view.playing = on;
  view.last = 0;
  $('play').textContent = on ? 'Pause' : 'Play';
  $('play').setAttribute('aria-pressed', String(on));
  if (state.model) state.model.playing = on;
  requestRender();
}

function stopAnimation() {
  view.playing = false;
  $('play').textContent = 'Play';
  $('play').setAttribute('aria-pressed', 'false');
}

// ---------------------------------------------------------------- downloads

async function download(to) {
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

// ---------------------------------------------------------------- the game's look

/** The look files chosen (field name -> File); without the WEAR for a whole archive. */
function lookFiles(withWear = true) {
  const look = {};
  for (const field of ['wear', 'materials', 'textures']) {
    const f = $(`look-${field}`).files[0];
    if (f && (withWear || field !== 'wear')) look[field] = f;
  }
  return look;
}

/** The JSON chunk of a GLB (an ArrayBuffer), or null. */
function glbJson(body) {
  try {
    const view = new DataView(body);
    const length = view.getUint32(12, true);
    return JSON.parse(new TextDecoder().decode(new Uint8Array(body, 20, length)));
  } catch {
    return null;
  }
}

/** Why a model is untextured, from the notes of its conversion (the first game.* note that says). */
const UNTEXTURED_NOTES = [
  'game.no_wear',
  'game.bad_wear',
  'game.no_material_lib',
  'game.bad_material_lib',
  'game.no_textures_lib',
  'game.bad_textures_lib',
  'game.no_texture',
];

/** Forgets the look line of the model shown before (a new file, a new model). */
function clearLook() {
  $('look-status').textContent = '';
  $('look-status').classList.remove('textured');
  state.look = null;
}

/** Says whether the shown model (named `model`) is textured (its GLB has images) and, when not, why. */
function showLook(answer, model) {
  const images = glbJson(answer.body)?.images?.length ?? 0;
  let notes = [];
  try {
    notes = JSON.parse(answer.header('x-mshconv-notes') || '[]');
  } catch {
    notes = [];
  }
  const why = UNTEXTURED_NOTES.map((code) => notes.find((n) => n.code === code)).find(Boolean);
  let text;
  if (images > 0) {
    text = `Textured: ${plural(images, 'texture')} from the game's look.`;
    if (why) text += ` Not every material: ${why.message}`;
  } else if (why) {
    text = `Untextured: ${why.message}`;
  } else {
    text = 'Untextured: no WEAR/Material.lib given (attach them under “The game\'s look”, or start the service with --game-dir).';
  }
  $('look-status').textContent = text;
  $('look-status').classList.toggle('textured', images > 0);
  state.look = { model, textured: images > 0, images, text };
}

// ---------------------------------------------------------------- wiring

for (const field of ['wear', 'materials', 'textures']) {
  // A look file chosen (or removed) while a model is shown: show it again with it.
  $(`look-${field}`).addEventListener('change', () => {
    if (!current || !state.model || state.kind === 'import') return;
    generation += 1;
    openModel(generation);
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
  generation += 1;
  current = { ...current, entry: $('entry').value };
  // Put back into the archive: the entry's own name, unless the user typed one.
  if (put.entryAuto) {
    $('put-entry').value = current.entry;
    updatePut();
  }
  openModel(generation);
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
  generation += 1;
  importModel(generation);
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
