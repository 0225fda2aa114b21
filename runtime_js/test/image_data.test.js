// node --test runtime_js/test: canvas pixels to pipeline buffers and back (runtime_js/image_data.js).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { fromImageData, toImageData } from '../image_data.js';

// 5x3, odd in both directions so a swapped width and height shows; every byte distinct
// (a step of 7 is coprime to 256), so a misplaced sample shows too.
const W = 5;
const H = 3;
const image = () => ({ data: Uint8ClampedArray.from({ length: W * H * 4 }, (_, i) => (i * 7 + 3) & 255),
  width: W, height: H });
const rgba = (img, x, y, c) => img.data[(y * img.width + x) * 4 + c];
const luma = (r, g, b) => (77 * r + 150 * g + 29 * b + 128) >> 8;

// Runs `body` with globalThis.ImageData as `value` (absent for undefined), then puts back
// whatever was there, so no other test sees the change.
function withImageData(value, body) {
  const saved = Object.getOwnPropertyDescriptor(globalThis, 'ImageData');
  try {
    if (value === undefined) delete globalThis.ImageData;
    else Object.defineProperty(globalThis, 'ImageData', { value, configurable: true, writable: true });
    return body();
  } finally {
    if (saved) Object.defineProperty(globalThis, 'ImageData', saved);
    else delete globalThis.ImageData;
  }
}

test("'planar' (the default) is x, y, c with one plane per channel, and back", () => {
  const img = image();
  const buf = fromImageData(img);
  assert.ok(buf.data instanceof Uint8Array);
  assert.deepEqual(buf.shape, [W, H, 4]);
  assert.deepEqual(fromImageData(img, { layout: 'planar' }), buf);
  for (let c = 0; c < 4; c++) {
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) assert.equal(buf.data[c * W * H + y * W + x], rgba(img, x, y, c));
    }
  }
  assert.notEqual(buf.data.buffer, img.data.buffer);
  const back = toImageData(buf);
  assert.deepEqual([back.width, back.height], [W, H]);
  assert.ok(back.data instanceof Uint8ClampedArray);
  assert.deepEqual(back.data, img.data);
});

test("'rgb' drops alpha, and comes back opaque", () => {
  const img = image();
  const buf = fromImageData(img, { layout: 'rgb' });
  assert.deepEqual(buf.shape, [W, H, 3]);
  assert.equal(buf.data.length, W * H * 3);
  assert.deepEqual(buf.data, fromImageData(img).data.subarray(0, W * H * 3));
  const back = toImageData(buf);
  const opaque = img.data.map((v, i) => (i % 4 === 3 ? 255 : v));
  assert.deepEqual(back.data, opaque);
});

test("'interleaved' is a view of the image's own bytes, c innermost", () => {
  const img = image();
  const buf = fromImageData(img, { layout: 'interleaved' });
  assert.ok(buf.data instanceof Uint8Array);
  assert.deepEqual(buf.shape, [4, W, H]);
  assert.equal(buf.data.buffer, img.data.buffer);
  assert.deepEqual([...buf.data], [...img.data]);
  img.data[(2 * W + 4) * 4 + 1] = 201;  // G at (4, 2)
  assert.equal(buf.data[(2 * W + 4) * 4 + 1], 201);
  buf.data[0] = 99;
  assert.equal(img.data[0], 99);
  // A view of part of a larger buffer stays on that part.
  const big = new Uint8ClampedArray(8 + W * H * 4);
  const part = { data: big.subarray(8), width: W, height: H };
  const view = fromImageData(part, { layout: 'interleaved' });
  assert.deepEqual([view.data.byteOffset, view.data.length], [8, W * H * 4]);
  // Back, it is a copy: the output must not change when the input does.
  const back = toImageData(buf, { layout: 'interleaved' });
  assert.deepEqual(back.data, img.data);
  img.data[0] = 1;
  assert.equal(back.data[0], 99);
  const clamped = toImageData({ data: img.data, shape: [4, W, H] }, { layout: 'interleaved' });
  assert.notEqual(clamped.data, img.data);
  assert.deepEqual(clamped.data, img.data);
});

test("'interleaved-rgb' is [3, w, h], R, G, B of a pixel together, and comes back opaque", () => {
  const img = image();
  const buf = fromImageData(img, { layout: 'interleaved-rgb' });
  assert.ok(buf.data instanceof Uint8Array);
  assert.deepEqual(buf.shape, [3, W, H]);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      for (let c = 0; c < 3; c++) assert.equal(buf.data[(y * W + x) * 3 + c], rgba(img, x, y, c));
    }
  }
  const back = toImageData(buf, { layout: 'interleaved-rgb' });
  assert.deepEqual([back.width, back.height], [W, H]);
  assert.deepEqual(back.data, img.data.map((v, i) => (i % 4 === 3 ? 255 : v)));
  // Floats in [0, 1] too; the layout is never guessed from [3, w, h].
  const half = toImageData({ data: new Float32Array(3 * W * H).fill(0.5), shape: [3, W, H] },
    { layout: 'interleaved-rgb' });
  assert.deepEqual([...half.data.subarray(0, 4)], [128, 128, 128, 255]);
  assert.throws(() => toImageData({ data: new Uint8Array(30), shape: [3, 5, 2] }), { name: 'RangeError',
    message: /cannot tell the layout of shape \[3, 5, 2\].*for \[3, w, h\] \{ layout: 'interleaved-rgb' \}/ });
  assert.throws(() => toImageData(fromImageData(img), { layout: 'interleaved-rgb' }), {
    name: 'RangeError', message: /layout 'interleaved-rgb' needs shape \[3, width, height\], not \[5, 3, 4\]/ });
});

test("'gray' is (77 R + 150 G + 29 B + 128) >> 8, and comes back as R = G = B", () => {
  const pixels = [[0, 0, 0, 9], [255, 255, 255, 0], [255, 0, 0, 255], [0, 255, 0, 255],
    [0, 0, 255, 255], [10, 20, 30, 40], [128, 64, 200, 255]];
  const img = { data: Uint8ClampedArray.from(pixels.flat()), width: pixels.length, height: 1 };
  const buf = fromImageData(img, { layout: 'gray' });
  assert.deepEqual(buf.shape, [pixels.length, 1]);
  // By hand: 19763 >> 8 = 77, 38378 >> 8 = 149, 7523 >> 8 = 29, 4768 >> 8 = 18, 25384 >> 8 = 99.
  assert.deepEqual([...buf.data], [0, 255, 77, 149, 29, 18, 99]);
  const odd = image();
  const gray = fromImageData(odd, { layout: 'gray' });
  assert.deepEqual(gray.shape, [W, H]);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      assert.equal(gray.data[y * W + x], luma(rgba(odd, x, y, 0), rgba(odd, x, y, 1), rgba(odd, x, y, 2)));
    }
  }
  const back = toImageData(gray);
  assert.deepEqual([back.width, back.height], [W, H]);
  for (let p = 0; p < W * H; p++) {
    assert.deepEqual([...back.data.subarray(p * 4, p * 4 + 4)], [gray.data[p], gray.data[p], gray.data[p], 255]);
  }
});

test('float data is [0, 1] scaled by 255, rounded half up and clamped', () => {
  const values = [-0.25, 0, 1 / 255, 0.2, 0.5, 1, 1.75, NaN, -Infinity, Infinity];
  const bytes = [0, 0, 1, 51, 128, 255, 255, 0, 0, 255];
  for (const Float of [Float32Array, Float64Array]) {
    const back = toImageData({ data: Float.from(values), shape: [values.length, 1] });
    assert.deepEqual([...back.data].filter((_, i) => i % 4 === 0), bytes, Float.name);
    assert.ok([...back.data].every((v, i) => i % 4 !== 3 || v === 255));
  }
  // Planar float with its own alpha, and an rgb float image made opaque.
  const planar = new Float32Array(W * H * 4).fill(0.5);
  planar.fill(2, W * H * 3);
  const p = toImageData({ data: planar, shape: [W, H, 4] });
  assert.ok(p.data.every((v, i) => v === (i % 4 === 3 ? 255 : 128)));
  const rgb = toImageData({ data: new Float64Array(W * H * 3).fill(-1), shape: [W, H, 3] });
  assert.ok(rgb.data.every((v, i) => v === (i % 4 === 3 ? 255 : 0)));
  const inter = new Float32Array(W * H * 4).fill(0.2);
  assert.ok(toImageData({ data: inter, shape: [4, W, H] }, { layout: 'interleaved' }).data.every((v) => v === 51));
});

test('bad images and layouts name what is wrong', () => {
  const img = image();
  for (const layout of ['RGBA', 'hwc', 3, null]) {
    assert.throws(() => fromImageData(img, { layout }), {
      name: 'RangeError',
      message: new RegExp(`^webhal.fromImageData: layout must be one of 'planar', 'rgb', `
        + `'interleaved', 'interleaved-rgb', 'gray', not '?${layout}'?$`),
    });
  }
  assert.throws(() => fromImageData(null), { name: 'TypeError', message: /image must be \{ data: Uint8ClampedArray, width, height \}.*not null/ });
  assert.throws(() => fromImageData(), { name: 'TypeError', message: /image must be .*not undefined/ });
  assert.throws(() => fromImageData({ width: W, height: H }), { name: 'TypeError', message: /image\.data must be a Uint8ClampedArray .*not undefined/ });
  assert.throws(() => fromImageData({ data: new Float32Array(W * H * 4), width: W, height: H }),
    { name: 'TypeError', message: /image\.data must be a Uint8ClampedArray .*not Float32Array/ });
  assert.throws(() => fromImageData({ data: img.data, height: H }), { name: 'TypeError', message: /image\.width and image\.height .*not undefined and 3/ });
  assert.throws(() => fromImageData({ data: img.data, width: 2.5, height: 24 }), { name: 'TypeError', message: /image\.width/ });
  assert.throws(() => fromImageData({ data: img.data, width: W, height: -3 }), { name: 'TypeError', message: /image\.height/ });
  assert.throws(() => fromImageData({ data: img.data.subarray(1), width: W, height: H }),
    { name: 'TypeError', message: /image\.data has 59 bytes, but a 5x3 RGBA image needs width \* height \* 4 = 60/ });
  // Uint8Array bytes are taken as they are.
  assert.deepEqual(fromImageData({ data: new Uint8Array(img.data), width: W, height: H }), fromImageData(img));
});

test('bad buffers name what is wrong', () => {
  const u8 = (shape) => ({ data: new Uint8Array(shape.reduce((a, b) => a * b, 1)), shape });
  assert.throws(() => toImageData(new Uint8Array(4)), { name: 'TypeError', message: /buffer must be \{ data, shape \}.*not Uint8Array/ });
  assert.throws(() => toImageData(null), { name: 'TypeError', message: /buffer must be .*not null/ });
  for (const Bad of [Int16Array, Uint16Array, Int8Array, Uint32Array, Array]) {
    assert.throws(() => toImageData({ data: new Bad(W * H), shape: [W, H] }), {
      name: 'TypeError',
      message: new RegExp(`buffer\\.data is a ${Bad.name}; accepted are Uint8Array and `
        + 'Uint8ClampedArray \\(0 to 255\\), Float32Array and Float64Array \\(0 to 1\\)'),
    });
  }
  assert.throws(() => toImageData({ data: new Uint8Array(10), shape: [W, H] }),
    { name: 'RangeError', message: /buffer\.data has 10 elements, but its shape \[5, 3\] needs 15/ });
  assert.throws(() => toImageData({ data: new Uint8Array(15), shape: '5x3' }), { name: 'RangeError', message: /buffer\.shape must be/ });
  assert.throws(() => toImageData({ data: new Uint8Array(15), shape: [W, -H] }), { name: 'RangeError', message: /buffer\.shape must be/ });
  // A shape that is no layout: [4, w, h] is never guessed, and says to pass it.
  for (const shape of [[4, W, 2], [4, W, 7], [W, H, 2], [W], [W, H, 4, 1]]) {
    assert.throws(() => toImageData(u8(shape)), {
      name: 'RangeError',
      message: new RegExp(`cannot tell the layout of shape \\[${shape.join(', ')}\\].*pass \\{ layout: 'interleaved' \\}`),
    });
  }
  assert.throws(() => toImageData(u8([W, H, 4]), { layout: 'bgr' }),
    { name: 'RangeError', message: /layout must be one of 'planar', 'rgb', 'interleaved', 'interleaved-rgb', 'gray', not 'bgr'/ });
  assert.throws(() => toImageData(u8([W, H, 4]), { layout: 'rgb' }),
    { name: 'RangeError', message: /layout 'rgb' needs shape \[width, height, 3\], not \[5, 3, 4\]/ });
  assert.throws(() => toImageData(u8([W, H, 4]), { layout: 'interleaved' }),
    { name: 'RangeError', message: /layout 'interleaved' needs shape \[4, width, height\], not \[5, 3, 4\]/ });
  assert.throws(() => toImageData(u8([W, H, 4]), { layout: 'gray' }),
    { name: 'RangeError', message: /layout 'gray' needs shape \[width, height\], not \[5, 3, 4\]/ });
  // [4, w, 3] and [4, w, 4] read as 'rgb' and 'planar' (4 pixels wide) unless told otherwise.
  for (const h of [3, 4]) {
    const short = { data: Uint8Array.from({ length: 4 * W * h }, (_, i) => i), shape: [4, W, h] };
    assert.deepEqual([...toImageData(short, { layout: 'interleaved' }).data], [...short.data]);
    assert.deepEqual([toImageData(short).width, toImageData(short).height], [4, W]);
  }
});

test('a plain object without globalThis.ImageData, the constructor with it', () => {
  const buf = fromImageData(image());
  const plain = withImageData(undefined, () => toImageData(buf));
  assert.equal(Object.getPrototypeOf(plain), Object.prototype);
  assert.deepEqual(Object.keys(plain).sort(), ['colorSpace', 'data', 'height', 'width']);
  assert.equal(plain.colorSpace, 'srgb');
  assert.ok(plain.data instanceof Uint8ClampedArray);

  const calls = [];
  class StubImageData {
    constructor(data, width, height) {
      calls.push([data, width, height]);
      Object.assign(this, { data, width, height, colorSpace: 'srgb' });
    }
  }
  const real = withImageData(StubImageData, () => toImageData(buf));
  assert.ok(real instanceof StubImageData);
  assert.equal(calls.length, 1);
  assert.ok(calls[0][0] instanceof Uint8ClampedArray);
  assert.deepEqual(calls[0].slice(1), [W, H]);
  assert.deepEqual(real.data, plain.data);
  assert.notEqual(globalThis.ImageData, StubImageData);  // put back
});
