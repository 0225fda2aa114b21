// The page of a webhal demo (`webhal demo NAME` writes it beside the demo's npm package): the
// photo and the pipeline's output, a picker for the variant, the time of each variant, a slider
// per scalar input and a drop zone for an image of one's own. With ?check in the URL it runs
// every variant on the photo and reports to window.webhalResult, which `webhal demo` reads.

import { create, fromImageData, meta, toImageData } from './pkg/index.js';
import { timeBatches, toBase64 } from './harness.js';
import { drawProfile } from './pkg/runtime/profile.js';

const settings = JSON.parse(document.getElementById('settings').textContent);
// ?samples=N times N batches a variant instead of the page's default (tests check outputs and
// need few).
const query = new URLSearchParams(location.search);
if (Number(query.get('samples')) >= 1) settings.samples = Math.floor(Number(query.get('samples')));
// The autoscheduled package (pkg-auto/ beside pkg/, unless the page says why not): its variants
// are "auto-NAME" in the picker, the table and the check.
const auto = settings.auto ? await import('./pkg-auto/index.js') : null;
const variants = [...meta.variants,
  ...(auto ? auto.meta.variants.map((v) => ({ ...v, name: `auto-${v.name}` })) : [])];
const $ = (id) => document.getElementById(id);
const pipelines = new Map();  // variant -> Promise<Pipeline>
const scalars = Object.fromEntries(Object.entries(settings.scalars).map(([k, s]) => [k, s.default]));
let input = null;
let busy = Promise.resolve();

async function imageData(source) {
  const bitmap = await createImageBitmap(source, { colorSpaceConversion: 'none' });
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const context = canvas.getContext('2d');
  context.drawImage(bitmap, 0, 0);
  return context.getImageData(0, 0, bitmap.width, bitmap.height);
}

async function setImage(source) {
  const image = await imageData(source);
  input = fromImageData(image, { layout: settings.layout });
  draw($('input'), toImageData(input));
}

function outputShape() {
  const [w, h, ...rest] = input.shape;
  return [w - settings.margin, h - settings.margin, ...rest];
}

function pipeline(variant) {
  if (!pipelines.has(variant)) {
    pipelines.set(variant, variant.startsWith('auto-')
      ? auto.create({ variant: variant.slice('auto-'.length) }) : create({ variant }));
  }
  return pipelines.get(variant);
}

function inputs() {
  return { [settings.input]: input, ...scalars };
}

function draw(canvas, image) {
  canvas.width = image.width;
  canvas.height = image.height;
  canvas.getContext('2d').putImageData(image, 0, 0);
}

// A package built with `profile`: each Func's share of the runs so far, as bars under the images.
function showProfile(p) {
  const profile = p.profile?.();
  if (!profile) return;
  let element = $('profile');
  if (!element) {
    element = document.createElement('div');
    element.id = 'profile';
    document.querySelector('.images').after(element);
  }
  drawProfile(element, profile);
}

function say(text) {
  $('status').textContent = text;
}

// One call at a time: sliders fire faster than a slow variant runs.
function queue(task) {
  busy = busy.then(task).catch((e) => say(String(e && e.message || e)));
  return busy;
}

// Resolves once every queued run has drawn (for tests driving the page).
window.webhalIdle = () => busy;

async function show(variant) {
  const p = await pipeline(variant);
  const out = await p.run(inputs(), { shape: outputShape() });
  draw($('output'), toImageData(out));
  showProfile(p);
  say(`${variant}: ${p.target}${p.adapterInfo ? ` on ${p.adapterInfo.vendor} ${p.adapterInfo.architecture}` : ''}`);
  return { p, out };
}

async function time(variant) {
  const p = await pipeline(variant);
  const { times } = await timeBatches(p, inputs(), { shape: outputShape() }, settings.samples,
    settings.minBatchMs);
  const median = [...times].sort((a, b) => a - b)[times.length >> 1];
  $(`ms-${variant}`).textContent = median.toFixed(3);
  return { times, median, adapter: p.adapterInfo };
}

function controls() {
  const picker = $('variant');
  for (const v of variants) picker.add(new Option(`${v.name} (${v.target})`, v.name));
  picker.onchange = () => queue(() => show(picker.value));
  for (const [name, s] of Object.entries(settings.scalars)) {
    const label = document.createElement('label');
    const slider = Object.assign(document.createElement('input'),
      { type: 'range', min: s.min, max: s.max, step: s.step, value: s.default, id: `scalar-${name}` });
    const value = Object.assign(document.createElement('output'), { value: s.default });
    slider.oninput = () => {
      scalars[name] = Number(slider.value);
      value.value = slider.value;
      queue(() => show(picker.value));
    };
    label.append(`${name} `, slider, value);
    $('scalars').append(label);
  }
  $('time-all').onclick = () => queue(async () => {
    for (const v of variants) {
      try { await time(v.name); } catch (e) { $(`ms-${v.name}`).textContent = 'n/a'; }
    }
    say('timed every variant');
  });
  const drop = $('drop');
  drop.ondragover = (e) => { e.preventDefault(); drop.classList.add('over'); };
  drop.ondragleave = () => drop.classList.remove('over');
  drop.ondrop = (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    const file = e.dataTransfer.files[0];
    if (file) queue(async () => { await setImage(file); await show(picker.value); });
  };
  $('file').onchange = (e) => {
    const file = e.target.files[0];
    if (file) queue(async () => { await setImage(file); await show(picker.value); });
  };
}

// What create() with no options takes on this page and why (p.reason): the variant a page
// that forces none gets, which the picker's forced variants do not show.
async function automatic() {
  try {
    const p = await create();
    $('chosen').textContent = `create() takes ${p.variant} here: ${p.reason}`;
    const chosen = { variant: p.variant, reason: p.reason };
    await p.dispose();
    return chosen;
  } catch (e) {
    $('chosen').textContent = `create() fails here: ${e.message}`;
    return { error: String(e.message) };
  }
}

// Every variant on the photo, for `webhal demo`'s headless run: outputs, times, adapters.
async function check() {
  const results = {};
  for (const v of variants) {
    try {
      const { out } = await show(v.name);
      const timed = await time(v.name);
      results[v.name] = { target: v.target, adapter: timed.adapter, timesMs: timed.times,
        medianMs: timed.median, output: { shape: out.shape, data: toBase64(out.data) } };
    } catch (e) {
      results[v.name] = { target: v.target, error: String(e && e.message || e) };
    }
  }
  const first = variants.find((v) => !results[v.name].error);
  if (first) {
    $('variant').value = first.name;
    await show(first.name);
  }
  return { input: { shape: input.shape, data: toBase64(input.data) }, variants: results,
           automatic: await automatic(), userAgent: navigator.userAgent, isolated: self.crossOriginIsolated };
}

controls();
const response = await fetch(settings.image);
await setImage(await response.blob());
if (query.has('check')) {
  window.webhalResult = await check().catch((e) => ({ error: String(e && e.stack || e) }));
} else {
  await automatic();
  await queue(() => show(variants[0].name));
}
