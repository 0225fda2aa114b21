// Runs a built package once on given inputs and times it: the one harness behind
// webhal.runners.browser (in a page) and webhal.runners.node (in a Node process), so that both
// engines are measured the same way. Buffers travel as base64 of their bytes, Halide's axis
// order (shape[0] is x); the result is plain JSON. It imports nothing, so it runs beside any
// package.

function toBytes(b64) {
  if (globalThis.Buffer) return new Uint8Array(globalThis.Buffer.from(b64, 'base64'));
  const text = atob(b64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

/** The bytes of a typed array as base64. */
export function toBase64(view) {
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  if (globalThis.Buffer) return globalThis.Buffer.from(bytes).toString('base64');
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(text);
}

/** The package's inputs from the spec's { array, shape, data } or { scalar } entries; `array`
 * names the typed array (Uint8Array, Float32Array, ...). */
export function decodeInputs(spec) {
  const inputs = {};
  for (const [name, v] of Object.entries(spec)) {
    if (v.scalar !== undefined) {
      inputs[name] = v.scalar;
    } else {
      const bytes = toBytes(v.data);
      const Typed = globalThis[v.array];
      inputs[name] = { data: new Typed(bytes.buffer, 0, bytes.length / Typed.BYTES_PER_ELEMENT),
                       shape: v.shape };
    }
  }
  return inputs;
}

/**
 * Time `samples` batches of `p.run(inputs, outputs)`; returns { times (ms per run), batch }.
 */
export async function timeBatches(p, inputs, outputs, samples, minBatchMs = 20) {
  // A sample is the mean of a batch of runs that lasts at least minBatchMs, so that a coarse
  // clock (100 us in a page that is not cross-origin isolated) does not decide the figure.
  let batch = 1;
  for (;;) {
    const start = performance.now();
    for (let i = 0; i < batch; i++) await p.run(inputs, outputs);
    const ms = performance.now() - start;
    if (ms >= minBatchMs || batch >= 1 << 20) {
      const times = [ms / batch];
      while (times.length < samples) {
        const t = performance.now();
        for (let i = 0; i < batch; i++) await p.run(inputs, outputs);
        times.push((performance.now() - t) / batch);
      }
      return { times, batch };
    }
    batch *= 2;
  }
}

/**
 * Create the pipeline with `create(options)` (the package's own `create`), run it on
 * `spec.inputs` into `spec.outputs` ({ name: { shape } }), then time `spec.samples` batches.
 * Returns { variant, target, adapter, createMs, timesMs, batch, outputs }.
 */
export async function runPackage(create, spec, options = {}) {
  const t0 = performance.now();
  const p = await create({ ...options, variant: spec.variant });
  const createMs = performance.now() - t0;
  const inputs = decodeInputs(spec.inputs);
  const names = Object.keys(spec.outputs);
  const outputs = names.length === 1 ? spec.outputs[names[0]] : spec.outputs;
  const result = await p.run(inputs, outputs);
  const produced = names.length === 1 ? { [names[0]]: result } : result;
  const encoded = Object.fromEntries(Object.entries(produced).map(([name, o]) => [name,
    { shape: o.shape, array: o.data.constructor.name, data: toBase64(o.data) }]));
  const { times, batch } = spec.samples > 0
    ? await timeBatches(p, inputs, outputs, spec.samples, spec.minBatchMs ?? 20)
    : { times: [], batch: 0 };
  return { variant: p.variant, target: p.target, adapter: p.adapterInfo, createMs,
           timesMs: times, batch, outputs: encoded };
}
