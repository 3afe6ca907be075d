// What the page shows, and the small helpers every part of it uses.
//
// - `state`: what the page shows (phase, error, model, validation, import
//   report, downloads, ...); window.mshconvTest.state is a copy of it.
// - `generation` and `current`: each new file (or model) starts a new
//   generation, and answers for an older one are dropped; `current` is the
//   file, .mtl, entry and (for an import) .msh the page works on. Other
//   modules read them, and change them with nextGeneration() and setCurrent().
// - `$` (an element by id), `modelUpload`, `extension`, `plural`, `item`,
//   `paragraph`.

export const $ = (id) => document.getElementById(id);

// What the page shows; window.mshconvTest.state is a copy of it.
export const state = {
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
export let generation = 0;
export let current = null; // { file, mtl, entry, model }: model is the .msh an import made

/** Starts a new generation (a new file, or a model opened again) and returns it. */
export function nextGeneration() {
  generation += 1;
  return generation;
}

/** Makes `opened` ({ file, mtl, entry, model }) the `current` one. */
export function setCurrent(opened) {
  current = opened;
}

/** The model the model endpoints read: an import's .msh, else the file (and entry) opened. */
export function modelUpload() {
  if (current.model) return { file: current.model, entry: undefined };
  return { file: current.file, entry: current.entry || undefined };
}

export const extension = (name) => (/\.([^.]+)$/.exec(name) || [])[1]?.toLowerCase() ?? '';

export const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function item(text, small) {
  const li = document.createElement('li');
  li.textContent = text;
  if (small) {
    const s = document.createElement('small');
    s.textContent = small;
    li.append(s);
  }
  return li;
}

export function paragraph(text) {
  const p = document.createElement('p');
  p.textContent = text;
  return p;
}
