// Validates glTF/GLB files with the Khronos glTF-Validator and prints one JSON
// line per file: {"file", "errors", "warnings", "infos", "hints", "messages"}.
// Usage: node validate.mjs FILE_OR_DIR...   (directories: every .glb/.gltf inside)
// External resources are never loaded: a .gltf must embed its buffers.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import validator from 'gltf-validator';

function files(paths) {
  const out = [];
  for (const p of paths) {
    if (statSync(p).isDirectory()) {
      for (const name of readdirSync(p).sort()) out.push(...files([join(p, name)]));
    } else if (/\.(glb|gltf)$/i.test(p)) {
      out.push(p);
    }
  }
  return out;
}

for (const file of files(process.argv.slice(2))) {
  const bytes = new Uint8Array(readFileSync(file));
  const report = await validator.validateBytes(bytes, {
    uri: file,
    maxIssues: 50,
    externalResourceFunction: (uri) => Promise.reject(new Error(`external resource not allowed: ${uri}`)),
  });
  const i = report.issues;
  const messages = i.messages.map((m) => `${m.severity}:${m.code}:${m.pointer ?? ''}:${m.message}`);
  console.log(JSON.stringify({
    file, errors: i.numErrors, warnings: i.numWarnings, infos: i.numInfos, hints: i.numHints, messages,
  }));
}
