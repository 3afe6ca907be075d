// Talking to the service: multipart uploads POSTed with XMLHttpRequest (for
// its upload progress events, which fetch has not), their progress in the
// busy bar; the answers (Answer), the page's own failures (PageError) and the
// problem documents of failed answers; and the files the service sends back
// (save() offers one as a download, zipFiles() reads a zip it wrote).

import { $, state } from '/app/state.js';

/** The longest an upload and its answer may take before the page gives up. */
const REQUEST_TIMEOUT_MS = 5 * 60 * 1000;

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
export class PageError extends Error {
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
export function post(path, params, upload, busy) {
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
export function problemOf(answer) {
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

/** Offers `blob` as a download named `name`. */
export function save(blob, name) {
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

/**
 * The files of a zip the service wrote: [name, Uint8Array][]. Its files are
 * stored or deflated (method 8, read with the browser's
 * DecompressionStream('deflate-raw')); the sizes are in the local headers.
 */
export async function zipFiles(buffer) {
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
