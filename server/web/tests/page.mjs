// The browser test of the mshconv web page: Debian's chromium, driven by
// playwright-core (tools/browser, pinned), uses the page as a modder would.
// server/tests/web_page.rs starts the service, makes the reference files and
// runs this script:
//
//   node server/web/tests/page.mjs CONFIG.json
//
// CONFIG.json: { url, out, walker, walkerGlb, walkerGlbLod1, walkerGlbClips, clips, damaged,
// damagedCode, damagedWords, foreignGlb, foreignNote, obj, mtl, archive,
// archiveEntry, putAdded, putReplaced, look, chromium? }
// (look: { wear, materials, textures, colour }: files that give the walker
// one texture of the solid colour [r, g, b])
// (putAdded, putReplaced: the archive with the walker added as
// M095_WALKER.MSH, and with it in place of archiveEntry, as the application
// layer's editor writes them)
// (paths absolute). Screenshots and downloads go to `out`.
//
// Prints one JSON document on stdout: {"ok": true, "checks": [...], ...} and
// exits 0, or {"ok": false, "step": ..., "error": ...} and exits 1.

import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import zlib from 'node:zlib';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../../..');

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
mkdirSync(config.out, { recursive: true });

// playwright-core lives in tools/browser/node_modules (npm ci --prefix tools/browser).
const require = createRequire(join(root, 'tools/browser/package.json'));
const playwright = await import(pathToFileURL(require.resolve('playwright-core')).href);
const chromium = playwright.chromium ?? playwright.default.chromium;

/** The flags that give headless chromium WebGL here: ANGLE on SwiftShader (CPU). */
const FLAGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-dev-shm-usage',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
  '--ignore-gpu-blocklist',
];
const WAIT = 60_000;

const report = { ok: false, checks: [], steps: {}, pixels: {}, browser: null, webgl: null };
let step = 'launch';
const pageErrors = [];

function check(condition, what, detail) {
  if (!condition) throw new Error(`${what}${detail === undefined ? '' : `: ${JSON.stringify(detail)}`}`);
  report.checks.push(what);
}

// ------------------------------------------------------------ PNG pixels

/** Decodes an 8-bit, non-interlaced RGB or RGBA PNG (what chromium writes) to RGBA. */
function decodePng(buf) {
  if (buf.readUInt32BE(0) !== 0x89504e47) throw new Error('not a PNG');
  let pos = 8;
  let width = 0;
  let height = 0;
  let colorType = 0;
  const idat = [];
  while (pos < buf.length) {
    const len = buf.readUInt32BE(pos);
    const type = buf.toString('ascii', pos + 4, pos + 8);
    const data = buf.subarray(pos + 8, pos + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      colorType = data[9];
      if (data[8] !== 8 || data[12] !== 0 || (colorType !== 2 && colorType !== 6)) {
        throw new Error(`unsupported PNG: depth ${data[8]}, colour type ${colorType}, interlace ${data[12]}`);
      }
    } else if (type === 'IDAT') {
      idat.push(data);
    } else if (type === 'IEND') {
      break;
    }
    pos += 12 + len;
  }
  const bpp = colorType === 6 ? 4 : 3;
  const stride = width * bpp;
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const rgba = Buffer.alloc(width * height * 4);
  let prev = Buffer.alloc(stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const cur = Buffer.alloc(stride);
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? cur[x - bpp] : 0;
      const b = prev[x];
      const c = x >= bpp ? prev[x - bpp] : 0;
      let p;
      switch (filter) {
        case 0: p = 0; break;
        case 1: p = a; break;
        case 2: p = b; break;
        case 3: p = (a + b) >> 1; break;
        case 4: {
          const pa = Math.abs(b - c);
          const pb = Math.abs(a - c);
          const pc = Math.abs(a + b - 2 * c);
          p = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
          break;
        }
        default: throw new Error(`bad PNG filter ${filter}`);
      }
      cur[x] = (line[x] + p) & 0xff;
    }
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      rgba[o] = cur[x * bpp];
      rgba[o + 1] = cur[x * bpp + 1];
      rgba[o + 2] = cur[x * bpp + 2];
      rgba[o + 3] = bpp === 4 ? cur[x * bpp + 3] : 255;
    }
    prev = cur;
  }
  return { width, height, rgba };
}

const TOLERANCE = 24; // per channel: anti-aliasing and dithering are not "different"

/** Pixels of `img` that differ from the colour `rgb` (0xRRGGBB). */
function differingFrom(img, rgb) {
  const c = [(rgb >> 16) & 0xff, (rgb >> 8) & 0xff, rgb & 0xff];
  let n = 0;
  for (let i = 0; i < img.rgba.length; i += 4) {
    if (
      Math.abs(img.rgba[i] - c[0]) > TOLERANCE ||
      Math.abs(img.rgba[i + 1] - c[1]) > TOLERANCE ||
      Math.abs(img.rgba[i + 2] - c[2]) > TOLERANCE
    ) n++;
  }
  return n;
}

/** Pixels that differ between two pictures of one size. */
function differing(a, b) {
  if (a.width !== b.width || a.height !== b.height) return a.width * a.height;
  let n = 0;
  for (let i = 0; i < a.rgba.length; i += 4) {
    if (
      Math.abs(a.rgba[i] - b.rgba[i]) > TOLERANCE ||
      Math.abs(a.rgba[i + 1] - b.rgba[i + 1]) > TOLERANCE ||
      Math.abs(a.rgba[i + 2] - b.rgba[i + 2]) > TOLERANCE
    ) n++;
  }
  return n;
}

// ------------------------------------------------------------ page helpers

const state = (page) => page.evaluate(() => window.mshconvTest.state);

/** Waits until the page's phase is one of `phases` and returns its state. */
async function settle(page, phases) {
  await page.waitForFunction(
    (ps) => window.mshconvTest && ps.includes(window.mshconvTest.state.phase),
    phases,
    { timeout: WAIT, polling: 50 },
  );
  return state(page);
}

/** A screenshot of the preview canvas (saved as NAME.png), decoded. */
async function canvasShot(page, name) {
  await page.evaluate(() => window.mshconvTest.render());
  const png = await page.locator('#view').screenshot({ path: join(config.out, `${name}.png`), animations: 'disabled' });
  return decodePng(png);
}

async function pageShot(page, name) {
  await page.screenshot({ path: join(config.out, `${name}.png`), fullPage: true });
}

/** Clicks `click` (a locator), saves the download in `out`/downloads/`tag`/ under its suggested name, returns its name, bytes and path. */
async function downloadBy(page, click, tag) {
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: WAIT }), click.click()]);
  const failure = await download.failure();
  if (failure) throw new Error(`download failed: ${failure}`);
  const name = download.suggestedFilename();
  mkdirSync(join(config.out, 'downloads', tag), { recursive: true });
  const path = join(config.out, 'downloads', tag, name);
  await download.saveAs(path);
  return { name, bytes: readFileSync(path), path };
}

/** The service's own answer to a multipart POST: `fields` maps a field to [path, file name]. */
async function api(path, fields) {
  const form = new FormData();
  for (const [field, [file, name]] of Object.entries(fields)) form.append(field, new Blob([readFileSync(file)]), name);
  const r = await fetch(`${config.url}${path}`, { method: 'POST', body: form });
  if (!r.ok) throw new Error(`${path}: HTTP ${r.status}: ${await r.text()}`);
  return Buffer.from(await r.arrayBuffer());
}

/**
 * `glb` without the export's record of its materials' and textures' library
 * entries (`extras.msh.exported`): a file as another tool, or mshconv before
 * issue 39, wrote it, whose own pictures go into the libraries as they are
 * (the way back compares two ways, not three: docs/MATERIALS.md).
 */
function withoutLibraryRecord(glb) {
  const jsonLength = glb.readUInt32LE(12);
  const json = JSON.parse(glb.subarray(20, 20 + jsonLength).toString('utf8'));
  for (const material of json.materials ?? []) {
    if (material.extras?.msh) delete material.extras.msh.exported;
  }
  let text = Buffer.from(JSON.stringify(json), 'utf8');
  text = Buffer.concat([text, Buffer.alloc((4 - (text.length % 4)) % 4, 0x20)]);
  const rest = glb.subarray(20 + jsonLength);
  const head = Buffer.alloc(20);
  glb.copy(head, 0, 0, 8);
  head.writeUInt32LE(20 + text.length + rest.length, 8);
  head.writeUInt32LE(text.length, 12);
  head.write('JSON', 16, 'latin1');
  return Buffer.concat([head, text, rest]);
}

async function timed(name, f) {
  step = name;
  const t0 = Date.now();
  await f();
  report.steps[name] = Date.now() - t0;
}

// ------------------------------------------------------------ the test

const started = Date.now();
let browser;
try {
  browser = await chromium.launch({
    executablePath: config.chromium || '/usr/bin/chromium',
    headless: true,
    args: FLAGS,
    timeout: WAIT,
  });
  report.browser = browser.version();
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    // A refused load (CSP) is a bug of the page; HTTP errors of the API calls are expected.
    if (/Content Security Policy|Refused to/i.test(m.text())) pageErrors.push(`console: ${m.text()}`);
  });

  let background = 0;
  await timed('load', async () => {
    const response = await page.goto(`${config.url}/`, { waitUntil: 'load', timeout: WAIT });
    check(response.status() === 200, 'GET / answers 200', response.status());
    const headers = response.headers();
    check(/^text\/html/.test(headers['content-type']), 'the page is text/html', headers['content-type']);
    check(/default-src 'self'/.test(headers['content-security-policy'] || ''), 'the page has a CSP', headers);
    await page.waitForFunction(() => !!window.mshconvTest, null, { timeout: WAIT });
    check((await page.title()).includes('mshconv'), 'the page has its title');
    background = await page.evaluate(() => window.mshconvTest.background);
    report.webgl = await page.evaluate(() => {
      const gl = document.createElement('canvas').getContext('webgl2');
      const info = gl && gl.getExtension('WEBGL_debug_renderer_info');
      return gl ? (info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : 'webgl2') : null;
    });
    check(report.webgl !== null, 'headless chromium has WebGL 2');
  });

  // An animated model: preview, validation, animation, LOD, downloads.
  let first;
  await timed('walker', async () => {
    await page.setInputFiles('#file', config.walker);
    const s = await settle(page, ['ready', 'error']);
    check(s.phase === 'ready', 'the walker opens', s.error);
    check(s.model.animated && s.model.frames > 1, 'the walker is animated', s.model);
    check(s.model.lods.length === 3 && s.model.lod === 0 && s.model.group === 0, 'three LODs, LOD 0 group 0 shown', s.model);
    check(s.model.shownSlots > 0, 'slots are shown', s.model);
    const size = readFileSync(config.walker).length;
    check(s.upload.events > 0 && s.upload.loaded === s.upload.total && s.upload.total > size, 'the upload reported its progress', s.upload);
    await page.waitForFunction(() => window.mshconvTest.state.validation !== null, null, { timeout: WAIT });
    const v = (await state(page)).validation;
    check(v.valid && v.errors === 0, 'the validation report says valid', v);
    check(await page.locator('#validation').innerText().then((t) => /Valid/.test(t)), 'the validation report is shown');
    const tree = await page.locator('#tree').innerText();
    check(/animated/.test(tree) && /LOD 0, group 0: shown/.test(tree), 'the node tree lists nodes and slots', tree.slice(0, 300));
    first = await canvasShot(page, 'walker');
    await pageShot(page, 'page-walker');
    const model = differingFrom(first, background);
    report.pixels.walker = { model, of: first.width * first.height };
    check(model > 0.01 * first.width * first.height, 'the preview shows the model (not blank)', report.pixels.walker);
  });

  await timed('animation', async () => {
    await page.click('#play');
    // Pause well before the loop wraps to frame 0 again.
    await page.waitForFunction(
      () => { const f = window.mshconvTest.state.model.frame; return f > 3 && f < 15; },
      null,
      { timeout: WAIT, polling: 20 },
    );
    await page.click('#play'); // pause
    const s = await state(page);
    check(!s.model.playing && s.model.frame > 1, 'play runs the animation, pause stops it', s.model);
    const paused = s.model.frame;
    await page.waitForTimeout(200);
    check((await state(page)).model.frame === paused, 'paused, the animation stays where it is');
    const played = await canvasShot(page, 'walker-played');
    report.pixels.played = differing(first, played);
    check(report.pixels.played > 50, 'the picture changes while the animation plays', report.pixels.played);
    // Scrub with the keyboard: End is the last frame, Home the first.
    await page.focus('#time');
    await page.keyboard.press('End');
    let t = await state(page);
    check(Math.round(t.model.frame) === Number(await page.locator('#time').getAttribute('max')), 'End scrubs to the last frame', t.model);
    const text = await page.locator('#time-text').innerText();
    check(/frame \d+(\.\d)? of \d+ · \d+\.\d\d s/.test(text), 'the slider shows frames and time', text);
    const last = await canvasShot(page, 'walker-last-frame');
    await page.keyboard.press('Home');
    t = await state(page);
    check(t.model.frame === 0, 'Home scrubs to frame 0', t.model);
    const again = await canvasShot(page, 'walker-first-frame');
    report.pixels.lastVsFirst = differing(first, last);
    report.pixels.firstAgain = differing(first, again);
    check(report.pixels.lastVsFirst > 50, 'frame 0 and the last frame differ', report.pixels);
    check(report.pixels.firstAgain < report.pixels.lastVsFirst / 10, 'back at frame 0 the picture is frame 0 again', report.pixels);
  });

  await timed('downloads', async () => {
    const glb = await downloadBy(page, page.getByRole('button', { name: 'Download .glb' }), 'walker');
    check(glb.name === 'm095_walker.glb', 'the .glb is named after the upload', glb.name);
    check(glb.bytes.equals(readFileSync(config.walkerGlb)), 'the downloaded .glb equals the CLI output', glb.bytes.length);
    report.glb = glb.path;
    const gltf = await downloadBy(page, page.getByRole('button', { name: 'Download .gltf' }), 'walker');
    check(gltf.name === 'm095_walker.gltf' && JSON.parse(gltf.bytes.toString('utf8')).asset, 'the .gltf download is glTF JSON', gltf.name);
    const obj = await downloadBy(page, page.getByRole('button', { name: /Download \.obj/ }), 'walker');
    check(obj.name === 'm095_walker.zip' && obj.bytes.readUInt32LE(0) === 0x04034b50, 'the .obj download is a zip', obj.name);
    // A refused option: the reason in words, and the preview stays.
    await page.fill('#fps', '0');
    await page.getByRole('button', { name: 'Download .glb' }).click();
    await page.waitForFunction(() => window.mshconvTest.state.error !== null, null, { timeout: WAIT });
    const s = await state(page);
    const words = await page.locator('#error').innerText();
    check(s.phase === 'ready' && (await page.locator('#model').isVisible()), 'a refused download keeps the preview', s);
    check(/fps/.test(words) && /option/i.test(words), 'a refused option is explained', words);
    report.refusedOption = s.error.code;
    await page.fill('#fps', '24');
  });

  await timed('lod', async () => {
    await page.selectOption('#lod', '1');
    const s = await state(page);
    check(s.model.lod === 1 && s.model.shownSlots > 0, 'LOD 1 is shown', s.model);
    const tree = await page.locator('#tree').innerText();
    check(/LOD 1, group 0: shown/.test(tree) && /LOD 0, group 0: hidden/.test(tree), 'the node tree says which slots are shown', tree.slice(0, 300));
    const lod1 = await canvasShot(page, 'walker-lod1');
    report.pixels.lod1 = { model: differingFrom(lod1, background), changed: differing(first, lod1) };
    check(report.pixels.lod1.model > 0.005 * lod1.width * lod1.height, 'LOD 1 shows a model', report.pixels.lod1);
    check(report.pixels.lod1.changed > 50, 'LOD 1 looks different from LOD 0', report.pixels.lod1);
    check(await page.locator('#group').isDisabled(), 'the group picker is off: the walker has one group');
    const glb = await downloadBy(page, page.getByRole('button', { name: 'Download .glb' }), 'walker-lod1');
    check(glb.bytes.equals(readFileSync(config.walkerGlbLod1)), 'the .glb download passes the LOD (equals the CLI output with --lod 1)', glb.bytes.length);
    await page.selectOption('#lod', '0');
    check((await state(page)).model.lod === 0, 'back to LOD 0');
  });

  // Clips: the list applied, the picker plays one, the downloads carry them.
  await timed('clips', async () => {
    const before = await canvasShot(page, 'walker-clips-before');
    await page.fill('#clips-text', config.clips);
    await page.getByRole('button', { name: 'Apply clips' }).click();
    await page.waitForFunction(() => (window.mshconvTest.state.model?.clips ?? []).length > 0, null, { timeout: WAIT, polling: 50 });
    let s = await state(page);
    const names = s.model.clips.map((c) => c.name);
    check(names.join(',') === 'idle,walk', 'the clips are listed', s.model.clips);
    check(s.model.clip === 'idle' && !s.model.playing, 'the first clip is picked, not playing', s.model);
    const list = await page.locator('#clip-list').innerText();
    check(/walk: game frames 10–28, pingpong/.test(list), 'the clip list shows ranges and modes', list);
    await pageShot(page, 'page-clips');
    const options = await page.locator('#clip option').allInnerTexts();
    check(options.join(',') === 'idle,walk', 'the picker offers each clip', options);
    await page.selectOption('#clip', { label: 'walk' });
    s = await state(page);
    check(s.model.clip === 'walk' && s.model.playing, 'picking a clip plays it', s.model);
    check(Math.abs(s.model.duration - 18 / s.model.fps) < 1e-6, 'the clip lasts its frames', s.model);
    check(await page.locator('#time').getAttribute('max') === '18', 'the slider spans the clip', await page.locator('#time').getAttribute('max'));
    await page.waitForFunction(() => window.mshconvTest.state.model.frame > 2, null, { timeout: WAIT, polling: 20 });
    await page.click('#play'); // pause
    await page.focus('#time');
    await page.keyboard.press('Home');
    const text = await page.locator('#time-text').innerText();
    check(/frame 0\.0 of 18 \(game frame 10\.0\)/.test(text), 'the slider shows the clip frame and the game frame', text);
    const walkStart = await canvasShot(page, 'walker-clip-walk');
    report.pixels.clipWalkVsIdle = differing(before, walkStart);
    check(report.pixels.clipWalkVsIdle > 50, 'the walk clip starts at another pose than frame 0', report.pixels.clipWalkVsIdle);
    const glb = await downloadBy(page, page.getByRole('button', { name: 'Download .glb' }), 'walker-clips');
    check(glb.bytes.equals(readFileSync(config.walkerGlbClips)), 'the .glb download carries the clips (equals the CLI output with --clips)', glb.bytes.length);
    // A refused list: the reason, and the clips shown stay.
    await page.fill('#clips-text', 'idle=0..99');
    await page.getByRole('button', { name: 'Apply clips' }).click();
    await page.waitForFunction(() => window.mshconvTest.state.error !== null, null, { timeout: WAIT });
    s = await state(page);
    check(s.error.code === 'clips.past_timeline' && s.model.clips.length === 2, 'a clip past the timeline is refused, the clips stay', s.error);
    // Empty: one animation over the whole timeline again.
    await page.fill('#clips-text', '');
    await page.getByRole('button', { name: 'Apply clips' }).click();
    await page.waitForFunction(() => window.mshconvTest.state.model && window.mshconvTest.state.model.clips.length === 0 && window.mshconvTest.state.phase === 'ready', null, { timeout: WAIT, polling: 50 });
    check(await page.locator('#clip-pick').isHidden(), 'without clips the picker is hidden');
  });

  // The preview by keyboard alone: Shift+arrows turn, + zooms.
  await timed('keyboard', async () => {
    await page.focus('#view');
    const before = await canvasShot(page, 'walker-keyboard-before');
    for (let i = 0; i < 4; i++) await page.keyboard.press('Shift+ArrowLeft');
    const turned = await canvasShot(page, 'walker-keyboard-turned');
    report.pixels.turned = differing(before, turned);
    check(report.pixels.turned > 50, 'Shift+arrow keys turn the view', report.pixels.turned);
    const modelBefore = differingFrom(turned, background);
    await page.keyboard.press('+');
    const zoomed = await canvasShot(page, 'walker-keyboard-zoomed');
    report.pixels.zoomed = { before: modelBefore, after: differingFrom(zoomed, background) };
    check(report.pixels.zoomed.after > report.pixels.zoomed.before, '+ zooms in (the model covers more of the view)', report.pixels.zoomed);
  });

  // A damaged model: the error in words, no spinner left.
  await timed('damaged', async () => {
    await page.setInputFiles('#file', config.damaged);
    const s = await settle(page, ['ready', 'error']);
    check(s.phase === 'error' && s.error.code === config.damagedCode, 'the damaged model is refused with its code', s.error);
    const box = page.locator('#error');
    check(await box.isVisible(), 'the error is shown');
    const words = await box.innerText();
    check(/damaged/i.test(words), 'the error says in words that the model is damaged', words);
    check(words.includes(config.damagedWords), 'the error explains what is wrong', words);
    check(words.includes(config.damagedCode), 'the error names the code', words);
    check(await page.locator('#busy').isHidden(), 'no progress indicator is left');
    check(await page.locator('#model').isHidden(), 'no stale preview is left');
    await pageShot(page, 'page-damaged');
  });

  // The same damaged model, read tolerantly: findings, inspection, and why there is no 3D view.
  await timed('damaged_tolerant', async () => {
    await page.waitForFunction(() => window.mshconvTest.state.tolerant?.done, null, { timeout: WAIT });
    const s = await state(page);
    const t = s.tolerant;
    check(await page.locator('#damaged').isVisible(), 'the tolerant reading is shown beside the error');
    check(t.validation.errors >= 1 && t.code === config.damagedCode, 'the tolerant validation finds the error', t);
    const findings = await page.locator('#damaged-findings').innerText();
    check(findings.includes(config.damagedWords) && findings.includes(config.damagedCode), 'its findings are listed in words with their codes', findings);
    check(t.inspect.nodes > 0 && t.inspect.triangles > 0, 'the tolerant inspection reads the nodes and the geometry', t.inspect);
    const table = await page.locator('#damaged-inspect').innerText();
    check(/Nodes\s+\d+/.test(table) && /Triangles\s+\d+/.test(table), 'the inspection is shown', table);
    const why = await page.locator('#damaged-preview').innerText();
    check(!t.preview && /No 3D view/.test(why) && why.includes(config.damagedCode), 'it says why there is no 3D view', why);
    check(await page.locator('#model').isHidden() && s.phase === 'error', 'the error stays, and no preview', s.phase);
    check(s.put.model === null, 'a damaged model is not offered to put into an archive', s.put);
    await pageShot(page, 'page-damaged-tolerant');
  });

  // glTF -> MSH: the import report and the .msh.
  await timed('import_glb', async () => {
    await page.setInputFiles('#file', report.glb);
    const s = await settle(page, ['imported', 'error']);
    check(s.phase === 'imported' && s.import.from === 'glb', 'the .glb is converted to .msh', s.error || s.import);
    check(await page.locator('#error').isHidden(), 'the earlier error is gone');
    check(await page.locator('#notes').innerText().then((t) => (s.import.count ? t.includes(s.import.notes[0].message) : /Nothing to report/.test(t))), 'the import report is shown', s.import);
    const msh = await downloadBy(page, page.locator('#download-msh'), 'from-glb');
    check(msh.name === 'm095_walker.msh', 'the .msh is named after the upload', msh.name);
    check(msh.bytes.equals(readFileSync(config.walker)), 'the .msh is the original model again (lossless round trip)', msh.bytes.length);
    await page.waitForFunction(() => ['shown', 'failed'].includes(window.mshconvTest.state.importPreview), null, { timeout: WAIT });
    const p = await state(page);
    check(p.importPreview === 'shown' && p.model.animated && p.model.lods.length === 3, 'the imported .msh is previewed (read back by the service)', p.model);
    check(await page.locator('#damaged').isHidden(), 'the tolerant reading of the damaged model is gone');
    const shot = await canvasShot(page, 'import-glb-preview');
    report.pixels.imported = differingFrom(shot, background);
    check(report.pixels.imported > 0.01 * shot.width * shot.height, 'the imported model is drawn (not blank)', report.pixels.imported);
    await page.waitForFunction(() => window.mshconvTest.state.validation !== null, null, { timeout: WAIT });
    check((await state(page)).validation.valid, 'the imported .msh is validated');
    await pageShot(page, 'page-import-glb');
  });

  // Put the imported model into an archive: a new entry.
  await timed('put_added', async () => {
    check(await page.locator('#put-go').isDisabled(), 'no archive yet: nothing to put into');
    await page.setInputFiles('#put-archive', config.archive);
    await page.waitForFunction((e) => window.mshconvTest.state.put.entries.includes(e), config.archiveEntry, { timeout: WAIT });
    const s = await state(page);
    check(s.put.model === 'm095_walker.glb' && s.put.archive === 'small.rlb', 'the imported .glb is the model to put (converted by the service, its look with it)', s.put);
    check((await page.locator('#put-entry').inputValue()) === 'M095_WALKER.MSH', "the entry name is the model's", await page.locator('#put-entry').inputValue());
    // A name the archive lacks is refused until "Add it as a new model" is ticked.
    check(!s.put.add, 'adding is not the default', s.put);
    await page.click('#put-go');
    await page.waitForFunction(() => window.mshconvTest.state.error !== null, null, { timeout: WAIT });
    const refused = await state(page);
    check(refused.error.code === 'archive.no_such_entry' && refused.phase === 'imported', 'a name the archive lacks is refused without the box, the page stays', refused.error);
    check(/Add it as a new model/.test(await page.locator('#error').innerText()), 'the refusal says how to add it');
    await page.check('#put-add');
    check((await state(page)).put.add, 'the box is ticked');
    const rlb = await downloadBy(page, page.locator('#put-go'), 'put-added');
    const r = (await state(page)).putResult;
    check(rlb.name === 'small.rlb' && r.placed === 'added' && r.entry === 'M095_WALKER.MSH', 'the model is added and the archive downloads under its name', r);
    check(rlb.bytes.equals(readFileSync(config.putAdded)), "the new archive is the editor's (every other entry kept)", rlb.bytes.length);
    const direct = await api('/v1/archive/put?entry=M095_WALKER.MSH&add=true', { archive: [config.archive, 'small.rlb'], file: [config.walker, 'm095_walker.msh'] });
    check(rlb.bytes.equals(direct), "the download is the API's answer", direct.length);
    check(/Added M095_WALKER\.MSH/.test(await page.locator('#put-result').innerText()), 'the page says what it did');
    await pageShot(page, 'page-put-added');
  });

  // Put a model chosen on its own in place of an archive's entry, picked from the list.
  await timed('put_replaced', async () => {
    await page.setInputFiles('#put-model', config.walker);
    await page.uncheck('#put-add');
    await page.selectOption('#put-pick', config.archiveEntry);
    check((await page.locator('#put-entry').inputValue()) === config.archiveEntry, 'picking an entry fills in its name');
    const rlb = await downloadBy(page, page.locator('#put-go'), 'put-replaced');
    const r = (await state(page)).putResult;
    check(r.placed === 'replaced' && r.entry === config.archiveEntry, 'the entry is replaced', r);
    check(rlb.bytes.equals(readFileSync(config.putReplaced)), "the new archive is the editor's (every other entry byte for byte)", rlb.bytes.length);
    // A name that is not a model's: refused in words, the page stays.
    await page.fill('#put-entry', 'walker.glb');
    await page.click('#put-go');
    await page.waitForFunction(() => window.mshconvTest.state.error !== null, null, { timeout: WAIT });
    const s = await state(page);
    check(s.error.code === 'request.entry_not_model' && s.phase === 'imported', 'a name that is not a model name is refused, the page stays', s.error);
    check(/\.MSH/.test(await page.locator('#error').innerText()), 'the refusal says what to use');
    // An .obj with its .mtl, chosen here: the service converts it on the way in.
    await page.setInputFiles('#put-model', [config.obj, config.mtl]);
    await page.fill('#put-entry', 'SCENE.MSH');
    await page.check('#put-add');
    const obj = await downloadBy(page, page.locator('#put-go'), 'put-obj');
    const o = (await state(page)).putResult;
    check(o.placed === 'added' && o.notes > 0, 'an .obj is converted on the way in, with its notes', o);
    const direct = await api('/v1/archive/put?entry=SCENE.MSH&add=true', {
      archive: [config.archive, 'small.rlb'],
      file: [config.obj, 'blender_scene.obj'],
      mtl: [config.mtl, 'blender_scene.mtl'],
    });
    check(obj.bytes.equals(direct), "the .obj's archive is the API's answer (the .mtl went along)", direct.length);
    await page.fill('#put-entry', '');
    check(await page.locator('#put-go').isDisabled(), 'no entry name: nothing to put');
  });

  await timed('import_foreign', async () => {
    await page.setInputFiles('#file', config.foreignGlb);
    const s = await settle(page, ['imported', 'error']);
    check(s.phase === 'imported' && s.import.from === 'glb', 'a foreign .glb is converted to .msh', s.error || s.import);
    const codes = s.import.notes.map((n) => n.code);
    check(codes.includes(config.foreignNote), 'its import report says what was baked', codes);
    const notes = await page.locator('#notes').innerText();
    check(s.import.notes.every((n) => notes.includes(n.message)), 'every note is shown in words', notes.slice(0, 400));
    report.foreignNotes = codes;
    await pageShot(page, 'page-import-foreign');
  });

  await timed('import_obj', async () => {
    await page.setInputFiles('#file', [config.obj, config.mtl]);
    const s = await settle(page, ['imported', 'error']);
    check(s.phase === 'imported' && s.import.from === 'obj', 'an .obj with its .mtl is converted to .msh', s.error || s.import);
    check(s.import.count > 0 && s.import.count === s.import.notes.length, 'the OBJ import report lists its notes', s.import);
    const notes = await page.locator('#notes').innerText();
    check(s.import.notes.every((n) => notes.includes(n.message)), 'every OBJ note is shown', notes.slice(0, 400));
    const msh = await downloadBy(page, page.locator('#download-msh'), 'from-obj');
    check(msh.bytes.subarray(0, 4).toString('latin1') === 'NRes', 'the .msh download is an NRes file', msh.name);
    report.objNotes = s.import.notes.map((n) => n.code);
    await pageShot(page, 'page-import-obj');
  });

  // An archive: list, pick an entry, preview it.
  await timed('archive', async () => {
    await page.setInputFiles('#file', config.archive);
    let s = await settle(page, ['archive', 'error']);
    check(s.phase === 'archive' && s.archive.models.includes(config.archiveEntry), 'the archive lists its models', s.archive || s.error);
    await page.selectOption('#entry', config.archiveEntry);
    await page.click('#open-entry');
    s = await settle(page, ['ready', 'error']);
    check(s.phase === 'ready' && s.model.name === config.archiveEntry, 'the picked entry opens', s.error || s.model);
    const shot = await canvasShot(page, 'archive-entry');
    report.pixels.entry = differingFrom(shot, background);
    check(report.pixels.entry > 0.005 * shot.width * shot.height, 'the entry is previewed', report.pixels.entry);
    await pageShot(page, 'page-archive');
    const s2 = await state(page);
    check(s2.put.archive === 'small.rlb' && s2.put.entries.includes(config.archiveEntry), 'the opened archive is offered to put into', s2.put);
  });

  // Every model of the archive at once: the zip /v1/archive/convert makes.
  await timed('archive_convert', async () => {
    const zip = await downloadBy(page, page.locator('#archive-convert'), 'archive-glb');
    check(zip.name === 'small.zip' && zip.bytes.readUInt32LE(0) === 0x04034b50, 'every model downloads as one zip', zip.name);
    const direct = await api('/v1/archive/convert?to=glb', { file: [config.archive, 'small.rlb'] });
    check(zip.bytes.equals(direct), "the zip is the API's answer", direct.length);
    check((await state(page)).archiveZip.to === 'glb', 'the page says which format');
    await page.selectOption('#archive-to', 'obj');
    const objZip = await downloadBy(page, page.locator('#archive-convert'), 'archive-obj');
    const directObj = await api('/v1/archive/convert?to=obj', { file: [config.archive, 'small.rlb'] });
    check(objZip.bytes.equals(directObj), 'the chosen format is used (obj)', objZip.bytes.length);
  });

  // The game's look: the walker with a WEAR, a Material.lib and a
  // Textures.lib whose one texture is a solid colour. The preview must show
  // that colour over most of the model, and must not once they are removed.
  await timed('textured', async () => {
    /** Pixels of `[r, g, b]` (default: the look's colour) as the lights shade it: its channels' order kept, clearly. */
    const ofColour = (img, [r, g, b] = config.look.colour) => {
      let n = 0;
      const dominant = [r, g, b].indexOf(Math.max(r, g, b));
      for (let i = 0; i < img.rgba.length; i += 4) {
        const px = [img.rgba[i], img.rgba[i + 1], img.rgba[i + 2]];
        const top = px[dominant];
        if (top > 60 && px.every((v, k) => k === dominant || v * 2 < top)) n++;
      }
      return n;
    };
    const shown = (want) =>
      page.waitForFunction(
        (w) => {
          const s = window.mshconvTest.state;
          return s.phase === 'ready' && s.model?.name === 'm095_walker.msh' && s.look !== null && s.look.text.includes(w);
        },
        want,
        { timeout: WAIT, polling: 50 },
      );
    await page.locator('#look summary').click();
    await page.setInputFiles('#look-wear', config.look.wear);
    await page.setInputFiles('#look-materials', config.look.materials);
    await page.setInputFiles('#look-textures', config.look.textures);
    await page.setInputFiles('#file', config.walker);
    await shown('Textured: 1 texture');
    let s = await state(page);
    check(s.look.textured && s.look.images === 1, 'the walker is textured by the given files', s.look);
    check((await page.locator('#look-status').textContent()).startsWith('Textured'), 'the page says it is textured');
    const textured = await canvasShot(page, 'textured');
    const model = differingFrom(textured, background);
    const colour = ofColour(textured);
    report.pixels.textured = { model, colour };
    check(model > 1000 && colour > model / 2, "most of the model shows the texture's colour", report.pixels.textured);

    // A walker whose own texture is another colour (exported with another
    // Textures.lib, without the record of the entries it was exported from,
    // as another tool writes it), imported with the game's look attached:
    // the preview shows its own texture, as it would go into the libraries.
    const exported = await api('/v1/convert?to=glb', {
      file: [config.walker, 'm095_walker.msh'],
      wear: [config.look.wear, 'm095_walker.wea'],
      materials: [config.look.materials, 'Material.lib'],
      textures: [config.look.ownTextures, 'Textures.lib'],
    });
    const own = withoutLibraryRecord(exported);
    const ownGlb = join(config.out, 'own-walker.glb');
    writeFileSync(ownGlb, own);
    await page.setInputFiles('#file', ownGlb);
    await page.waitForFunction(() => ['shown', 'failed'].includes(window.mshconvTest.state.importPreview), null, { timeout: WAIT });
    s = await state(page);
    const line = await page.locator('#look-status').textContent();
    check(s.importPreview === 'shown' && s.look && s.look.model === 'own-walker.msh' && line === s.look.text, 'the look line is the imported model\'s, not a stale one of the walker before', { line, look: s.look });
    check(s.look.textured, 'the import preview is textured with the game look at hand', { preview: s.importPreview, look: s.look });
    check(/own textures/.test(await page.locator('#import-preview').textContent()), 'the page says the preview shows the own textures');
    const ownShot = await canvasShot(page, 'import-own-textures');
    report.pixels.ownTextures = { model: differingFrom(ownShot, background), own: ofColour(ownShot, config.look.ownColour), look: ofColour(ownShot) };
    check(
      report.pixels.ownTextures.own > report.pixels.ownTextures.model / 2 && report.pixels.ownTextures.look < report.pixels.ownTextures.model / 50,
      "the import preview shows the model's own texture, not the library's",
      report.pixels.ownTextures,
    );

    // Put into the archive with the look attached: the model's WEAR goes into
    // the archive, and the Textures.lib its red texture changed comes with it.
    check((await state(page)).put.model === 'own-walker.glb', 'the imported .glb is offered to put', (await state(page)).put);
    await page.check('#put-add');
    const zip = await downloadBy(page, page.locator('#put-go'), 'put-look');
    const z = (await state(page)).putResult;
    check(zip.name === 'small.zip' && z.changed === 'Textures.lib, small.rlb' && z.placed === 'added', 'the put answers a zip of the changed Textures.lib and the archive', z);
    const directZip = await api('/v1/archive/put?entry=OWN-WALKER.MSH&add=true', {
      archive: [config.archive, 'small.rlb'],
      file: [ownGlb, 'own-walker.glb'],
      materials: [config.look.materials, 'Material.lib'],
      textures: [config.look.textures, 'Textures.lib'],
    });
    check(zip.bytes.equals(directZip), "the download is the API's answer", directZip.length);
    check(/Changed: Textures\.lib, small\.rlb/.test(await page.locator('#put-result').innerText()), 'the page says what changed');
    await page.setInputFiles('#file', config.walker);
    await shown('Textured: 1 texture');

    for (const field of ['wear', 'materials', 'textures']) await page.setInputFiles(`#look-${field}`, []);
    await shown('no WEAR/Material.lib given');
    s = await state(page);
    check(!s.look.textured, 'without the files the walker is untextured', s.look);
    check((await page.locator('#look-status').textContent()).startsWith('Untextured: no WEAR/Material.lib given'), 'the page says why');
    const plain = await canvasShot(page, 'untextured');
    report.pixels.untextured = { model: differingFrom(plain, background), colour: ofColour(plain) };
    check(
      report.pixels.untextured.model > 1000 && report.pixels.untextured.colour < report.pixels.untextured.model / 50,
      "without the files the texture's colour is gone",
      report.pixels.untextured,
    );
  });

  step = 'page errors';
  check(pageErrors.length === 0, 'no script errors and no CSP violations', pageErrors);
  report.ok = true;
} catch (e) {
  report.ok = false;
  report.step = step;
  report.error = String(e && e.stack ? e.stack : e);
  report.pageErrors = pageErrors;
} finally {
  if (browser) await browser.close().catch(() => {});
}
report.ms = Date.now() - started;
writeFileSync(join(config.out, 'report.json'), JSON.stringify(report, null, 2));
process.stdout.write(`${JSON.stringify(report)}\n`);
process.exit(report.ok ? 0 : 1);
