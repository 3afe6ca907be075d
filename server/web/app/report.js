// What the page says: the status line; a failure in words (a headline from
// its problem document's code, the service's explanation, where in the file,
// the findings, the code); the validation report of a model (POST
// /v1/validate); and, for a model the conversion refuses, what a tolerant
// reading shows (POST /v1/validate?tolerant=true and
// /v1/inspect?tolerant=true) and why there is no 3D view.

import { $, state, generation, modelUpload, plural, item, paragraph } from '/app/state.js';
import { PageError, post, problemOf } from '/app/transport.js';
import { stopAnimation } from '/app/animation.js';

/** A headline a modder understands, from a problem document's code and status. */
export function headline(p) {
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

export function setStatus(text) {
  state.status = text;
  $('status').textContent = text;
}

export function clearError() {
  state.error = null;
  $('error').hidden = true;
}

/**
 * Shows a failure in words: the headline, the service's explanation, where in
 * the file, the validator's findings and the code. `keep` leaves what is
 * shown (a failed download keeps the preview).
 */
export function showError(p, { keep = false } = {}) {
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

export function fail(e, options) {
  if (e instanceof PageError) showError(e.problem, options);
  else showError({ title: 'The page failed', detail: String(e && e.message ? e.message : e), code: 'page.internal' }, options);
}

export async function validate(gen) {
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

/**
 * What can be read of a model the conversion refused (`p`, its problem): the
 * tolerant validation report and inspection, and why there is no 3D view
 * (every conversion reads the model strictly, so none is possible).
 */
export async function tolerantView(gen, p) {
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
