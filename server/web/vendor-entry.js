// The parts of three.js the page uses, bundled by vendor.sh into
// vendor/three.bundle.js (one minified ES module). To use another three.js
// export in app.js, add it here and run ./vendor.sh.
export {
  AnimationMixer,
  Box3,
  Color,
  DirectionalLight,
  HemisphereLight,
  LoopRepeat,
  PerspectiveCamera,
  REVISION,
  Scene,
  Vector3,
  WebGLRenderer,
} from 'three';
export { OrbitControls } from 'three/addons/controls/OrbitControls.js';
export { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
