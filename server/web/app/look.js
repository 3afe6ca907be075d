// The game's look: the optional WEAR, Material.lib and Textures.lib that go
// with the conversions of a .msh (the multipart fields wear, materials and
// textures), and the line above the preview that says whether the shown
// model is textured (its GLB has images) and, when not, why (the first
// game.* note of x-mshconv-notes).

import { $, state, plural } from '/app/state.js';

/** The look files chosen (field name -> File); without the WEAR for a whole archive. */
export function lookFiles(withWear = true) {
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
export function clearLook() {
  $('look-status').textContent = '';
  $('look-status').classList.remove('textured');
  state.look = null;
}

/** Says whether the shown model (named `model`) is textured (its GLB has images) and, when not, why. */
export function showLook(answer, model) {
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
