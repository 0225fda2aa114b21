// The webcam demo page (webhal/webcam_page.py) in headless Chromium on its fake camera, driven
// over the DevTools protocol on a pipe (--remote-debugging-pipe), with no Playwright: the GPU
// machine has Node (carried) but no Python browser driver. Serves the page's folder from
// http://127.0.0.1 (a secure context, for getUserMedia and WebGPU), opens it once per
// `--run VARIANT:WxH` with ?check=N, waits for window.webhalResult and prints one JSON line per
// run: adapter, camera size, frames per second, each stage's median ms. With --out DIR it also
// writes each run's result (captured frames included, base64) to DIR/VARIANT-WxH.json, for
// camera sizes up to --save-limit pixels (1920x1080 by default: 4K frames make 66 MB of JSON),
// benchmarks/webcam_check.py to compare against the reference evaluator.
//
// node benchmarks/webcam_chromium.mjs --chrome PATH --page DIR [--run webgpu:640x480 ...]
//   [--check 1] [--fps N] [--out DIR] [--timeout 120] [--swiftshader] [-- extra chrome flags]
// --fps N asks the fake camera for N frames a second (its default is 20); --swiftshader runs
// WebGPU and the compositor on Chromium's SwiftShader (the flags the tests use), otherwise
// on the system's Vulkan driver (VK_DRIVER_FILES picks it). See benchmarks/README.md.

import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';
import { tmpdir } from 'node:os';

const argv = process.argv.slice(2);
const opts = { run: [], check: 1, timeout: 120, extra: [], 'save-limit': 1920 * 1080 };
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--') { opts.extra = argv.slice(i + 1); break; }
  if (a === '--swiftshader') { opts.swiftshader = true; continue; }
  const key = a.replace(/^--/, '');
  if (!a.startsWith('--') || !['run', 'chrome', 'page', 'check', 'fps', 'out', 'timeout',
    'save-limit', 'verbose'].includes(key)) throw new Error(`unknown option ${a}`);
  const value = argv[++i];
  if (value === undefined) throw new Error(`${a} needs a value`);
  if (key === 'run') opts.run.push(value); else opts[key] = value;
}
if (!opts.chrome || !opts.page) throw new Error('--chrome PATH and --page DIR are required');
if (!opts.run.length) opts.run = ['webgpu:640x480'];

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.wasm': 'application/wasm', '.json': 'application/json', '.css': 'text/css' };
const server = createServer((req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname));
  const file = join(opts.page, path);
  try {
    if (!file.startsWith(normalize(opts.page)) || !statSync(file).isFile()) throw new Error();
    // Cross-origin isolated: performance.now() then counts in 5 us steps, not 100 us.
    res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
      'Cache-Control': 'no-store', 'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp' });
    res.end(readFileSync(file));
  } catch {
    res.writeHead(404);
    res.end();
  }
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;

const gpuFlags = opts.swiftshader
  ? ['--enable-features=Vulkan', '--use-vulkan=swiftshader', '--use-angle=swiftshader',
    '--enable-unsafe-swiftshader']
  : ['--enable-features=Vulkan', '--use-vulkan=native', '--use-angle=vulkan',
    '--ignore-gpu-blocklist', '--disable-vulkan-surface', '--disable-vulkan-fallback-to-gl-for-testing'];
const camera = opts.fps ? `--use-fake-device-for-media-stream=fps=${opts.fps}`
  : '--use-fake-device-for-media-stream';
const profile = mkdtempSync(join(tmpdir(), 'webcam-chrome-'));
const chrome = spawn(opts.chrome, ['--headless', '--no-sandbox', '--remote-debugging-pipe',
  '--enable-unsafe-webgpu', ...gpuFlags, camera, '--use-fake-ui-for-media-stream',
  '--disable-background-networking', '--disable-component-update', '--no-first-run',
  '--disable-background-timer-throttling', '--disable-renderer-backgrounding',
  `--user-data-dir=${profile}`, ...opts.extra, 'about:blank'],
{ stdio: ['ignore', 'ignore', opts.verbose ? 'inherit' : 'ignore', 'pipe', 'pipe'] });
let done = false;
chrome.on('exit', (code, signal) => {
  if (!done) { console.error(`chrome exited early: ${code ?? signal}`); process.exit(2); }
});

// The protocol: NUL-terminated JSON messages, ours on fd 3, Chromium's on fd 4.
let nextId = 1;
const pending = new Map();
const listeners = [];
let buffered = '';
chrome.stdio[4].on('data', (chunk) => {
  buffered += chunk.toString('utf8');
  let end;
  while ((end = buffered.indexOf('\0')) >= 0) {
    const message = JSON.parse(buffered.slice(0, end));
    buffered = buffered.slice(end + 1);
    if (message.id && pending.has(message.id)) {
      const { resolve, reject } = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) reject(new Error(JSON.stringify(message.error))); else resolve(message.result);
    } else {
      for (const listen of listeners) listen(message);
    }
  }
});
function send(method, params = {}, sessionId = undefined) {
  const id = nextId++;
  chrome.stdio[3].write(JSON.stringify({ id, method, params, sessionId }) + '\0');
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}
listeners.push((m) => {  // the page's console and uncaught errors, to stderr
  if (m.method === 'Runtime.consoleAPICalled') {
    console.error(`[console.${m.params.type}]`, m.params.args.map((a) => a.value ?? a.description).join(' '));
  } else if (m.method === 'Runtime.exceptionThrown') {
    console.error('[exception]', m.params.exceptionDetails.exception?.description
      ?? m.params.exceptionDetails.text);
  }
});

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const version = await send('Browser.getVersion');
console.error(`browser: ${version.product}`);
if (opts.out) mkdirSync(opts.out, { recursive: true });
let failures = 0;
for (const run of opts.run) {
  const [variant, size] = run.split(':');
  const url = `${origin}/index.html?variant=${variant}&check=${opts.check}&size=${size}`;
  const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
  await send('Runtime.enable', {}, sessionId);
  await send('Page.navigate', { url }, sessionId);
  const start = Date.now();
  let result = null;
  while (Date.now() - start < opts.timeout * 1000) {
    await sleep(500);
    const { result: r } = await send('Runtime.evaluate', { returnByValue: true,
      expression: 'window.webhalResult === undefined ? null : JSON.stringify(window.webhalResult)' },
    sessionId);
    if (r.value) { result = JSON.parse(r.value); break; }
  }
  if (result === null) result = { error: `no result in ${opts.timeout} s` };
  const { result: camera } = await send('Runtime.evaluate', { returnByValue: true,
    expression: 'document.getElementById("status").textContent' }, sessionId);
  const summary = { run, camera: camera.value, variant: result.variant, adapter: result.adapter,
    fps: result.fps, stages: result.stages, frames: result.frames?.length, error: result.error };
  console.log(JSON.stringify(summary));
  if (result.error) failures++;
  const [w, h] = size.split('x').map(Number);
  if (opts.out && w * h <= Number(opts['save-limit'])) writeFileSync(join(opts.out, `${variant}-${size}.json`), JSON.stringify(result));
  await send('Target.closeTarget', { targetId });
}
done = true;
await send('Browser.close').catch(() => {});
server.close();
process.exit(failures ? 1 : 0);
