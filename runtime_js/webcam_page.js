// The webcam page of a webhal demo (webhal/webcam_page.py writes it beside the demo's npm
// package): the camera filtered live, sliders for the scalars, frames per second and each
// stage's time. On the webgpu variant a frame goes from the video element to a WebGPU canvas
// on the GPU only (runtime_js/gpu_images.js); the CPU variants take it through an ImageData.
// URL parameters: variant=NAME forces a variant (else create() picks, the webgpu one only on
// a hardware adapter), size=WxH asks the camera for a size, and check=N measures frames per
// second for a few seconds and then captures N frames (each run on a paused video: its input
// as the variant reads it, the GPU's conversion or a 2D canvas's, and its output as the canvas
// shows it) into window.webhalResult.

import { create, fromImageData, meta, toImageData } from './pkg/index.js';
import { toBase64 } from './harness.js';
import { readImage } from './pkg/runtime/gpu_images.js';

const settings = JSON.parse(document.getElementById('settings').textContent);
const params = new URLSearchParams(location.search);
const $ = (id) => document.getElementById(id);
const scalars = Object.fromEntries(Object.entries(settings.scalars).map(([k, s]) => [k, s.default]));
const WINDOW = 30;  // frames the shown times are the median of
let state = null;   // { p, variant, context } of the running pipeline
let stopped = false;

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor(sorted.length / 2)] : NaN;
};

// Per-stage times of the last frames, and the frame count for frames per second.
const times = { stages: new Map(), frames: [], record(stage, ms) {
  const list = this.stages.get(stage) ?? [];
  list.push(ms);
  if (list.length > WINDOW) list.shift();
  this.stages.set(stage, list);
} };

function showTimes() {
  const now = performance.now();
  times.frames = times.frames.filter((t) => now - t < 2000);
  const fps = times.frames.length > 1 ? (times.frames.length - 1) * 1000
    / (times.frames[times.frames.length - 1] - times.frames[0]) : 0;
  $('fps').textContent = fps.toFixed(1);
  $('stages').replaceChildren(...[...times.stages].map(([stage, list]) => {
    const row = document.createElement('tr');
    row.innerHTML = `<td>${stage}</td><td class="ms">${median(list).toFixed(2)}</td>`;
    return row;
  }));
  return fps;
}

async function startCamera() {
  const [w, h] = (params.get('size') ?? '640x480').split('x').map(Number);
  const video = document.createElement('video');
  video.muted = true;
  video.playsInline = true;
  video.srcObject = await navigator.mediaDevices.getUserMedia({ video: { width: w, height: h } });
  await video.play();
  await new Promise((resolve) => video.requestVideoFrameCallback(resolve));
  return video;
}

async function choose(variant) {
  const p = await create(variant ? { variant } : {});
  const gpu = p.variant === 'webgpu';
  $('gpu-output').hidden = !gpu;
  $('cpu-output').hidden = gpu;
  let context = null;
  if (gpu) {
    context = $('gpu-output').getContext('webgpu');
    // rgba8unorm with STORAGE_BINDING: the output is stored by a compute kernel, which on the
    // H200 took a fifth of the render pass a bgra8unorm canvas needs (gpu_images.js).
    context.configure({ device: p.device, format: 'rgba8unorm', alphaMode: 'opaque',
      usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.STORAGE_BINDING });
  }
  state?.p.dispose();
  state = { p, variant: p.variant, context };
  times.stages.clear();
  $('variant').value = p.variant;
  $('chosen').textContent = `${p.variant}: ${p.reason}`;
}

// One frame through the pipeline; the stages' times are recorded.
async function frame(video) {
  const { p, context } = state;
  const w = video.videoWidth;
  const h = video.videoHeight;
  const input = settings.input;
  if (context) {
    const canvas = $('gpu-output');
    if (canvas.width !== w || canvas.height !== h) Object.assign(canvas, { width: w, height: h });
    const t0 = performance.now();
    await p.run({ [input]: video, ...scalars }, { shape: [w, h, 3], data: context });
    times.record('camera to canvas (GPU: unpack, kernels, pack)', performance.now() - t0);
    return;
  }
  const t0 = performance.now();
  const grab = new OffscreenCanvas(w, h).getContext('2d', { willReadFrequently: true });
  grab.drawImage(video, 0, 0);
  const image = fromImageData(grab.getImageData(0, 0, w, h), { layout: settings.layout });
  const t1 = performance.now();
  const out = await p.run({ [input]: image, ...scalars }, { shape: image.shape });
  const t2 = performance.now();
  const canvas = $('cpu-output');
  if (canvas.width !== w || canvas.height !== h) Object.assign(canvas, { width: w, height: h });
  canvas.getContext('2d').putImageData(toImageData(out), 0, 0);
  const t3 = performance.now();
  times.record('camera to ImageData (CPU)', t1 - t0);
  times.record(`pipeline (${state.variant})`, t2 - t1);
  times.record('ImageData to canvas (CPU)', t3 - t2);
}

function sliders() {
  for (const [name, s] of Object.entries(settings.scalars)) {
    const label = document.createElement('label');
    const slider = Object.assign(document.createElement('input'),
      { type: 'range', min: s.min, max: s.max, step: s.step, value: s.default });
    const shown = document.createElement('output');
    shown.textContent = s.default;
    slider.addEventListener('input', () => {
      scalars[name] = Number(slider.value);  // the next frame runs with it
      shown.textContent = slider.value;
    });
    label.append(`${name} `, slider, ' ', shown);
    $('scalars').append(label);
  }
  for (const v of meta.variants) $('variant').append(new Option(v.name, v.name));
  $('variant').addEventListener('change', () => choose($('variant').value));
}

// ?check=N: the live loop's frames per second over a few seconds, then N frames captured.
async function check(video, count) {
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const fps = showTimes();
  stopped = true;
  await new Promise((resolve) => setTimeout(resolve, 200));  // the loop's last frame ends
  const frames = [];
  const w = video.videoWidth;
  const h = video.videoHeight;
  for (let i = 0; i < count; i++) {
    await video.play();
    await new Promise((resolve) => video.requestVideoFrameCallback(resolve));
    video.pause();
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The frame as the variant reads it: converted by the GPU, or drawn by a 2D canvas.
    const grab = new OffscreenCanvas(w, h).getContext('2d', { willReadFrequently: true });
    grab.drawImage(video, 0, 0);
    const drawn = fromImageData(grab.getImageData(0, 0, w, h), { layout: settings.layout });
    const input = state.context ? await readImage(state.p.device, video) : drawn;
    let differs = 0;
    for (let j = 0; j < input.data.length; j++) {
      differs = Math.max(differs, Math.abs(input.data[j] - drawn.data[j]));
    }
    await frame(video);
    // Read in the task that drew: a shown WebGPU canvas reads back transparent.
    const shown = new OffscreenCanvas(w, h).getContext('2d', { willReadFrequently: true });
    shown.drawImage(state.context ? $('gpu-output') : $('cpu-output'), 0, 0);
    const output = fromImageData(shown.getImageData(0, 0, w, h), { layout: settings.layout });
    frames.push({ input: { data: toBase64(input.data), shape: input.shape },
      output: { data: toBase64(output.data), shape: output.shape }, gpuVersusCanvas: differs });
  }
  return { variant: state.variant, adapter: state.p.adapterInfo, fps, scalars,
    stages: Object.fromEntries([...times.stages].map(([k, v]) => [k, median(v)])), frames };
}

try {
  sliders();
  const video = await startCamera();
  await choose(params.get('variant'));
  $('status').textContent = `${video.videoWidth}x${video.videoHeight} camera`;
  let shown = 0;
  const loop = async () => {
    if (stopped) return;
    try {
      await frame(video);
      times.frames.push(performance.now());
      if (performance.now() - shown > 500) shown = (showTimes(), performance.now());
    } catch (e) {
      $('status').textContent = String(e.message ?? e);
      window.webhalResult ??= { error: String(e.stack ?? e) };
      return;
    }
    video.requestVideoFrameCallback(loop);
  };
  video.requestVideoFrameCallback(loop);
  if (params.has('check')) {
    window.webhalResult = await check(video, Number(params.get('check')) || 3);
  }
} catch (e) {
  $('status').textContent = String(e.message ?? e);
  window.webhalResult = { error: String(e.stack ?? e) };
}
