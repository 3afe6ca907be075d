// Makes the three.js GLTFExporter fixtures (GLB) and their reference JSON.
//
//   cd tools/foreign/threejs && npm ci && node make.mjs [OUT_DIR]
//
// OUT_DIR defaults to fixtures/foreign/gltf. Writes:
// - threejs_scene.glb      a hierarchy of meshes (BoxGeometry indexed, CylinderGeometry
//                          indexed with three material groups, TorusKnotGeometry
//                          non-indexed), a uniformly and a non-uniformly scaled node, and
//                          one AnimationClip "drive": position LINEAR, quaternion LINEAR,
//                          position STEP (InterpolateDiscrete)
// - threejs_scene.ref.json what three.js computes (glTF's frame, Y up): per mesh node its
//                          world triangles at time 0 (AnimationMixer.setTime(0)) with the
//                          material of each, and for the animated nodes their world
//                          translation and rotation at whole frames of 24 fps
// - threejs_skinned.glb    a SkinnedMesh with a two-bone skeleton (the importer refuses it)
// - threejs_morph.glb      a mesh with one morph target (the importer refuses it)

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as THREE from 'three';
import { GLTFExporter } from 'three/addons/exporters/GLTFExporter.js';

// GLTFExporter reads its Blob through FileReader, which Node lacks: a minimal shim.
class FileReaderShim {
  readAsArrayBuffer(blob) {
    blob.arrayBuffer().then((buffer) => {
      this.result = buffer;
      this.onloadend?.();
    });
  }
  readAsDataURL(blob) {
    blob.arrayBuffer().then((buffer) => {
      const type = blob.type || 'application/octet-stream';
      this.result = `data:${type};base64,${Buffer.from(buffer).toString('base64')}`;
      this.onloadend?.();
    });
  }
}
globalThis.FileReader ??= FileReaderShim;

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.resolve(process.argv[2] ?? path.join(here, '../../../fixtures/foreign/gltf'));
const FPS = 24;
const FRAMES = [0, 1, 5, 7, 11, 12, 13, 18, 24, 29, 30, 36];

const r6 = (x) => Math.round(x * 1e6) / 1e6;

function material(name, color) {
  const m = new THREE.MeshStandardMaterial({ color, roughness: 0.6, metalness: 0.1 });
  m.name = name;
  return m;
}

function buildScene() {
  const steel = material('Steel', 0x8c8f99);
  const mat3 = material('mat3', 0xcc331a);
  const paint = material('Paint', 0x338033);

  const scene = new THREE.Scene();
  scene.name = 'Scene';

  const tank = new THREE.Group();
  tank.name = 'Tank';
  tank.position.set(1, 0.2, -0.5);
  tank.rotation.set(0, 0.3, 0);
  tank.scale.setScalar(2); // uniform scale
  scene.add(tank);

  const hull = new THREE.Mesh(new THREE.BoxGeometry(1.2, 0.4, 2), steel); // indexed
  hull.name = 'Hull';
  hull.position.set(0, 0.2, 0);
  tank.add(hull);

  // Indexed, with groups (side, top, bottom) -> three primitives.
  const turret = new THREE.Mesh(new THREE.CylinderGeometry(0.4, 0.45, 0.3, 10), [paint, mat3, steel]);
  turret.name = 'Turret';
  turret.position.set(0, 0.35, -0.1);
  turret.quaternion.setFromAxisAngle(new THREE.Vector3(0, 1, 0), 0.4);
  hull.add(turret);

  // Non-indexed geometry on a non-uniformly scaled node.
  const gun = new THREE.Mesh(new THREE.TorusKnotGeometry(0.5, 0.15, 24, 4).toNonIndexed(), steel);
  gun.name = 'Gun';
  gun.position.set(0, 0.05, 0.6);
  gun.rotation.set(0.2, 0, 0.1);
  gun.scale.set(0.2, 0.3, 0.8);
  turret.add(gun);

  const flag = new THREE.Mesh(new THREE.PlaneGeometry(0.3, 0.2, 2, 1), mat3);
  flag.name = 'Flag';
  flag.position.set(-0.5, 0.4, 0.8);
  flag.rotation.set(0, -0.6, 0.25);
  tank.add(flag);

  const q = (angle) =>
    new THREE.Quaternion().setFromAxisAngle(new THREE.Vector3(0.1, 1, 0.2).normalize(), angle).toArray();
  const clip = new THREE.AnimationClip('drive', -1, [
    new THREE.VectorKeyframeTrack('Tank.position', [0, 0.4, 1.1, 1.5], [1, 0.2, -0.5, 1.5, 0.3, -0.1, 2.2, 0.2, 0.6, 2.4, 0.25, 1.1]),
    new THREE.QuaternionKeyframeTrack('Turret.quaternion', [0, 0.3, 0.75, 1.5], [...q(0.4), ...q(1.5), ...q(2.9), ...q(4.4)]),
    new THREE.VectorKeyframeTrack(
      'Gun.position',
      [0, 0.5, 1.0],
      [0, 0.05, 0.6, 0, 0.05, 0.45, 0, 0.08, 0.7],
      THREE.InterpolateDiscrete,
    ),
  ]);
  return { scene, clip };
}

function exportGlb(input, options) {
  return new Promise((resolve, reject) => {
    new GLTFExporter().parse(input, (result) => resolve(Buffer.from(result)), reject, { binary: true, ...options });
  });
}

function reference(scene, clip) {
  const mixer = new THREE.AnimationMixer(scene);
  // Played once and held at the end, as the timeline of a glTF viewer (no wrap at the last key).
  const action = mixer.clipAction(clip);
  action.setLoop(THREE.LoopOnce);
  action.clampWhenFinished = true;
  action.play();
  mixer.setTime(0);
  scene.updateMatrixWorld(true);
  const nodes = {};
  scene.traverse((o) => {
    if (o === scene) return;
    const node = { parent: o.parent === scene ? null : o.parent.name };
    if (o.isMesh) {
      const g = o.geometry;
      const pos = g.attributes.position;
      const count = g.index ? g.index.count : pos.count;
      const at = (k) => (g.index ? g.index.getX(k) : k);
      const mats = Array.isArray(o.material) ? o.material : [o.material];
      // Groups split a geometry by material only when the material is an array.
      const groups = Array.isArray(o.material) ? g.groups : [{ start: 0, count, materialIndex: 0 }];
      const v = new THREE.Vector3();
      node.triangles = [];
      node.materials = [];
      for (const group of groups) {
        for (let k = group.start; k + 2 < group.start + group.count; k += 3) {
          const tri = [];
          for (let c = 0; c < 3; c++) {
            v.fromBufferAttribute(pos, at(k + c)).applyMatrix4(o.matrixWorld);
            tri.push(r6(v.x), r6(v.y), r6(v.z));
          }
          node.triangles.push(tri);
          node.materials.push(mats[group.materialIndex ?? 0].name);
        }
      }
    }
    nodes[o.name] = node;
  });
  const animated = {};
  for (const track of clip.tracks) {
    const name = track.name.split('.')[0];
    animated[name] ??= { frames: FRAMES, translation: [], rotation: [] };
  }
  for (const f of FRAMES) {
    mixer.setTime(f / FPS);
    scene.updateMatrixWorld(true);
    for (const [name, a] of Object.entries(animated)) {
      const t = new THREE.Vector3();
      const r = new THREE.Quaternion();
      const s = new THREE.Vector3();
      scene.getObjectByName(name).matrixWorld.decompose(t, r, s);
      a.translation.push(t.toArray().map(r6));
      a.rotation.push(r.toArray().map(r6));
    }
  }
  mixer.setTime(0);
  return {
    generator: 'tools/foreign/threejs/make.mjs',
    tool: `three.js r${THREE.REVISION} GLTFExporter`,
    space: 'glTF (Y up)',
    fps: FPS,
    files: ['threejs_scene.glb'],
    nodes,
    animated,
  };
}

function skinned() {
  const geometry = new THREE.BoxGeometry(0.2, 1, 0.2, 1, 2, 1);
  const pos = geometry.attributes.position;
  const joints = [];
  const weights = [];
  for (let i = 0; i < pos.count; i++) {
    const upper = pos.getY(i) > 0 ? 1 : 0;
    joints.push(upper, 0, 0, 0);
    weights.push(1, 0, 0, 0);
  }
  geometry.setAttribute('skinIndex', new THREE.Uint16BufferAttribute(joints, 4));
  geometry.setAttribute('skinWeight', new THREE.Float32BufferAttribute(weights, 4));
  const root = new THREE.Bone();
  root.name = 'Root';
  root.position.y = -0.5;
  const tip = new THREE.Bone();
  tip.name = 'Tip';
  tip.position.y = 0.5;
  root.add(tip);
  const mesh = new THREE.SkinnedMesh(geometry, material('Skin', 0xffccaa));
  mesh.name = 'Arm';
  mesh.add(root);
  mesh.bind(new THREE.Skeleton([root, tip]));
  const scene = new THREE.Scene();
  scene.add(mesh);
  return scene;
}

function morph() {
  const geometry = new THREE.BoxGeometry(0.5, 0.5, 0.5);
  const pos = geometry.attributes.position;
  const moved = new Float32Array(pos.count * 3);
  for (let i = 0; i < pos.count; i++) {
    moved[3 * i + 1] = pos.getY(i) > 0 ? 0.25 : 0;
  }
  geometry.morphAttributes.position = [new THREE.Float32BufferAttribute(moved, 3)];
  const mesh = new THREE.Mesh(geometry, material('Blob', 0x6688cc));
  mesh.name = 'Blob';
  mesh.morphTargetInfluences = [0.5];
  const scene = new THREE.Scene();
  scene.add(mesh);
  return scene;
}

fs.mkdirSync(out, { recursive: true });
const { scene, clip } = buildScene();
fs.writeFileSync(path.join(out, 'threejs_scene.glb'), await exportGlb(scene, { animations: [clip] }));
const ref = reference(scene, clip);
fs.writeFileSync(path.join(out, 'threejs_scene.ref.json'), JSON.stringify(ref) + '\n');
fs.writeFileSync(path.join(out, 'threejs_skinned.glb'), await exportGlb(skinned(), {}));
fs.writeFileSync(path.join(out, 'threejs_morph.glb'), await exportGlb(morph(), {}));
console.log(`wrote ${out}`);
