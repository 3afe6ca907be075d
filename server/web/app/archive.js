// The archive panel: POST /v1/archive/list gives an .rlb's entries (the
// table and the model picker; the archive is offered to the put panel too),
// and POST /v1/archive/convert downloads every model at once (a zip).

import { $, state, generation, current } from '/app/state.js';
import { post, problemOf, save } from '/app/transport.js';
import { setStatus, clearError, showError, fail } from '/app/report.js';
import { lookFiles } from '/app/look.js';
import { offerArchive } from '/app/put.js';

/** An archive: list its entries and let the user pick a model. */
export async function openArchive(gen) {
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

export async function convertArchive() {
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
