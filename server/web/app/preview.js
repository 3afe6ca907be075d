// The 3D preview (three.js): the renderer, camera, lights and orbit controls
// (with keyboard zoom), drawing on demand; loading the GLB of /v1/convert;
// the LOD and group pickers (scale 1 on the chosen `<node>|L<lod>G<group>`
// slot nodes, 0 on the others); framing the model; and the node tree.

import {
  AnimationMixer,
  Box3,
  Color,
  DirectionalLight,
  GLTFLoader,
  HemisphereLight,
  OrbitControls,
  PerspectiveCamera,
  Scene,
  Vector3,
  WebGLRenderer,
} from '/vendor/three.bundle.js';
import { $, state } from '/app/state.js';
import { setStatus } from '/app/report.js';
import { useAnimation, useClip, showClips, showTime, stopAnimation } from '/app/animation.js';

/** The preview's background colour (the browser test counts pixels that differ from it). */
export const BACKGROUND = 0x1e242c;

/** A glTF slot node: `<node>|L<lod>G<group>` (crates/convert/src/names.rs). */
const SLOT_SUFFIX = /\|L([0-2])G([0-4])(?:\.\d{3})?$/;

/** The preview: three.js's renderer, scene, camera and controls, the model shown, its slots and its animation. */
export const view = {
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

export function requestRender() {
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

export function render() {
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
export async function showModel(glb, title) {
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

export function onSlotPicked() {
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
