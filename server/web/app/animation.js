// The preview's animation: play, pause and scrub the timeline, and the clips
// (a clip list applied by converting the model again with clips=, the clips
// listed, and a picker that plays one in its loop mode).

import { LoopRepeat } from '/vendor/three.bundle.js';
import { $, state, generation, current, modelUpload, plural } from '/app/state.js';
import { post, problemOf } from '/app/transport.js';
import { setStatus, clearError, showError, fail } from '/app/report.js';
import { lookFiles, showLook } from '/app/look.js';
import { view, requestRender, showModel } from '/app/preview.js';

// three.js's loop modes are consecutive constants (LoopOnce 2200, LoopRepeat
// 2201, LoopPingPong 2202); the bundle exports LoopRepeat only.
const LOOP_MODES = { once: LoopRepeat - 1, loop: LoopRepeat, pingpong: LoopRepeat + 1 };

export function setTime(seconds) {
  if (!view.action) return;
  view.action.time = Math.min(Math.max(seconds, 0), view.duration);
  view.mixer.update(0); // applies the pose without moving the time (also at the very end)
}

/** Plays `animation` (a three.js clip) in the loop mode `mode`, from its start. */
export function useAnimation(animation, mode) {
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
export function useClip(k) {
  view.clip = view.clips[k] ?? null;
  if (!view.clip) return;
  useAnimation(view.clip.animation, view.clip.mode);
  if (state.model) Object.assign(state.model, { clip: view.clip.name, duration: view.duration });
  for (const li of $('clip-list').children) li.setAttribute('aria-current', String(li.dataset.clip === view.clip.name));
}

/** The clip picker and list (hidden without clips); the clips field is there for any animated model. */
export function showClips() {
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
export async function applyClips() {
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

export function showTime() {
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

export function play(on) {
  if (!view.action) return;
  view.playing = on;
  view.last = 0;
  $('play').textContent = on ? 'Pause' : 'Play';
  $('play').setAttribute('aria-pressed', String(on));
  if (state.model) state.model.playing = on;
  requestRender();
}

export function stopAnimation() {
  view.playing = false;
  $('play').textContent = 'Play';
  $('play').setAttribute('aria-pressed', 'false');
}
