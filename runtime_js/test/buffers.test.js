// node --test runtime_js/test: the argument checks of runtime_js/buffers.js.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { HALIDE_BUFFER_T, HALIDE_DIMENSION_T, packType } from '../abi.js';
import { checkBuffer, checkScalar, checkShape, parseType, writeBuffer } from '../buffers.js';

const u8image = { name: 'input', kind: 'buffer', type: 'uint8', dimensions: 2 };

test('a buffer needs its typed array and a shape that fits', () => {
  assert.equal(checkBuffer('f.run', u8image, { data: new Uint8Array(6), shape: [3, 2] }), 6);
  assert.throws(() => checkBuffer('f.run', u8image, { data: new Int8Array(6), shape: [3, 2] }),
    { name: 'TypeError', message: 'f.run: input.data must be a Uint8Array (uint8), not a Int8Array' });
  assert.throws(() => checkBuffer('f.run', u8image, { data: new Uint8Array(6), shape: [3, 3] }),
    { name: 'RangeError', message: /has 6 elements, but its shape \[3, 3\] needs 9/ });
  assert.throws(() => checkBuffer('f.run', u8image, new Uint8Array(6)), { name: 'TypeError' });
  assert.throws(() => checkShape('f.run', u8image, [3]), { name: 'RangeError' });
  assert.throws(() => checkShape('f.run', u8image, [3, -1]), { name: 'RangeError' });
  assert.throws(() => checkShape('f.run', u8image, [3, 1.5]), { name: 'RangeError' });
});

test('scalars are checked against their type', () => {
  const s = (type) => ({ name: 'k', kind: 'scalar', type });
  assert.equal(checkScalar('f.run', s('uint8'), 255), 255);
  assert.throws(() => checkScalar('f.run', s('uint8'), 256), { name: 'RangeError' });
  assert.throws(() => checkScalar('f.run', s('int16'), -32769), { name: 'RangeError' });
  assert.throws(() => checkScalar('f.run', s('int32'), 1.5), { name: 'RangeError' });
  assert.throws(() => checkScalar('f.run', s('int32'), '1'), { name: 'TypeError' });
  assert.equal(checkScalar('f.run', s('bool'), true), 1);
  assert.throws(() => checkScalar('f.run', s('bool'), 1), { name: 'TypeError' });
});

test('NaN and infinities are a RangeError unless the Param allows them', () => {
  const gain = { name: 'gain', kind: 'scalar', type: 'float32', range: [null, null], nonfinite: false };
  assert.equal(checkScalar('f.run', gain, -1.5), -1.5);
  for (const v of [NaN, Infinity, -Infinity]) {
    assert.throws(() => checkScalar('f.run', gain, v), { name: 'RangeError',
      message: `f.run: gain is ${v}, and the generator takes only finite values for it (float32); `
        + 'declare it hl.InputScalar(hl.Float(..), allow_nonfinite=True) to pass NaN or infinities' });
  }
  const any = { ...gain, nonfinite: true };
  assert.ok(Number.isNaN(checkScalar('f.run', any, NaN)));
  assert.equal(checkScalar('f.run', any, -Infinity), -Infinity);
  // A package built before ranges were recorded: finite floats only, as for the others.
  assert.throws(() => checkScalar('f.run', { name: 'k', kind: 'scalar', type: 'float64' }, NaN),
    { name: 'RangeError' });
  const ranged = { ...gain, range: [0, 2] };
  assert.equal(checkScalar('f.run', ranged, 2), 2);
  assert.throws(() => checkScalar('f.run', ranged, 2.5), { name: 'RangeError',
    message: 'f.run: gain is 2.5, outside the range the generator sets for it, [0, 2]' });
  assert.throws(() => checkScalar('f.run', { ...ranged, type: 'int32', range: [1, null] }, 0),
    { name: 'RangeError', message: /outside the range the generator sets for it, \[1, Infinity\]/ });
});

// As webhal/glue/npm_arguments.py writes them for output.dim(0).set_bounds(0, 3) over (c, x, y).
const rgb = { name: 'output', kind: 'buffer', type: 'uint8', dimensions: 3, output: true,
  axes: ['c', 'x', 'y'], constraints: [
    { dim: 0, field: 'min', value: 0, text: 'output.dim(0).min() == 0' },
    { dim: 0, field: 'extent', value: 3, text: 'output.dim(0).extent() == 3' },
    { dim: 1, field: 'extent', value: null, text: 'output.dim(1).extent() == input.dim(1).extent()' }] };

test('a shape that breaks a constraint of the generator names it', () => {
  assert.equal(checkShape('sepia.run', rgb, [3, 5, 2]), 30);
  assert.throws(() => checkShape('sepia.run', rgb, [5, 2, 3]), { name: 'RangeError',
    message: 'sepia.run: output.shape[0] is 5, but the generator requires output.dim(0).extent() '
      + '== 3; output\'s shape is [3, x, y], not [5, 2, 3]' });
  assert.throws(() => checkShape('sepia.run', rgb, [3, 5]), { name: 'RangeError',
    message: 'sepia.run: output.shape must be 3 non-negative integers, [3, x, y], not [3,5]' });
  assert.throws(() => checkBuffer('sepia.run', { ...rgb, output: false, name: 'input' }, {}),
    { name: 'TypeError', message: /input must be \{ data, shape \} \(a Uint8Array and its shape \[3, x, y\]/ });
  // A stride the dense buffers run() passes cannot have (an interleaved layout by strides).
  const strided = { ...rgb, constraints: [
    { dim: 2, field: 'stride', value: 1, text: 'output.dim(2).stride() == 1' }] };
  assert.throws(() => checkShape('sepia.run', strided, [3, 5, 2]), { name: 'RangeError',
    message: /the stride of output's dimension 2 \(run\(\) passes dense buffers, dimension 0 innermost\) is 15, but the generator requires output.dim\(2\).stride\(\) == 1/ });
});

test('a constrained min is passed as the min', () => {
  const heap = new Uint8Array(1024);
  let next = 64;
  const module = { HEAPU8: heap, _malloc: (n) => { const at = next; next += n; return at; } };
  const arg = { ...rgb, constraints: [{ dim: 1, field: 'min', value: 7, text: 'output.dim(1).min() == 7' }] };
  const at = writeBuffer(module, arg, [3, 4, 2], 512, false);
  const view = new DataView(heap.buffer);
  const dim = view.getUint32(at + HALIDE_BUFFER_T.dim, true);
  const min = (d) => view.getInt32(dim + d * HALIDE_DIMENSION_T.size + HALIDE_DIMENSION_T.min, true);
  assert.deepEqual([min(0), min(1), min(2)], [0, 7, 0]);
});

test('halide_buffer_t is laid out as abi.js says', () => {
  // A heap with a bump allocator stands in for the module's malloc: what is checked is the
  // layout writeBuffer produces, which the compiled pipelines read (tests/glue run them).
  const heap = new Uint8Array(1024);
  let next = 64;
  const module = { HEAPU8: heap, _malloc: (n) => { const at = next; next += n; return at; } };
  const at = writeBuffer(module, { name: 'b', type: 'int16' }, [5, 3, 2], 512, true);
  const view = new DataView(heap.buffer);
  assert.equal(view.getUint32(at + HALIDE_BUFFER_T.host, true), 512);
  assert.equal(view.getUint32(at + HALIDE_BUFFER_T.flags, true), 1);
  assert.equal(view.getUint32(at + HALIDE_BUFFER_T.type, true), packType('int', 16));
  assert.equal(view.getInt32(at + HALIDE_BUFFER_T.dimensions, true), 3);
  const dim = view.getUint32(at + HALIDE_BUFFER_T.dim, true);
  const field = (d, f) => view.getInt32(dim + d * HALIDE_DIMENSION_T.size + HALIDE_DIMENSION_T[f], true);
  assert.deepEqual([0, 1, 2].map((d) => [field(d, 'min'), field(d, 'extent'), field(d, 'stride')]),
    [[0, 5, 1], [0, 3, 5], [0, 2, 15]]);
  assert.deepEqual(parseType('bool'), { code: 'uint', bits: 1, bytes: 1 });
});
