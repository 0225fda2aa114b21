// node --test runtime_js/test: the profiler report's parser (runtime_js/profile.js).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { formatProfile, parseProfile, readProfile, withGpu } from '../profile.js';

// A report as Halide 21 prints it, and one of webhal's with GPU sections.
const HALIDE = `blur
 total time: 52.307693 ms  samples: 49  runs: 10  time per run: 5.230769 ms
 heap allocations: 10  peak heap usage: 1048576 bytes
    blur_x:                       2.130ms (40.7%)    peak: 1048576 num: 1      avg: 1048576
    blur_y:                       3.100ms (59.2%)
`;
const WEBHAL = `square
 total time: 10.000000 ms  samples: 1  runs: 1  time per run: 10.000000 ms
 average threads used: 1.500000
 heap allocations: not tracked by webhal
  [funcs :::::::::::::::::::::   10.000ms (100.0%) ::::]
    square:                      10.000ms (100.0%)
  [gpu kernels :::::::::::::::    2.500ms (25.0%) ::::]
    kernel_0_square:              2.500ms (25.0%)
`;

test('Halide\'s report parses', () => {
  const [p] = parseProfile(HALIDE);
  assert.equal(p.name, 'blur');
  assert.equal(p.runs, 10);
  assert.equal(p.perRunMs, 5.230769);
  assert.deepEqual(p.sections.funcs, [{ name: 'blur_x', ms: 2.13, percent: 40.7 },
    { name: 'blur_y', ms: 3.1, percent: 59.2 }]);
});

test('sections and threads parse', () => {
  const [p] = parseProfile(HALIDE + WEBHAL).slice(1);
  assert.equal(p.threads, 1.5);
  assert.deepEqual(p.sections['gpu kernels'], [{ name: 'kernel_0_square', ms: 2.5, percent: 25 }]);
  assert.equal(p.sections.funcs.length, 1);
});

test('a package without profile has no report', () => {
  assert.equal(readProfile({ _malloc() {} }, () => null), null);
});

// A webgpu variant's device times (GpuProfiler's totals over 2 runs) added to the wasm's report:
// the wait after the wasm is overhead, the sections as webhal/runtime/profiler.py prints them
// (the same text format_report gives for these figures, checked against it).
test('a webgpu variant\'s kernels and copies join the wasm\'s report', () => {
  const wasm = `square
 total time: 8.000000 ms  samples: 2  runs: 2  time per run: 4.000000 ms
 heap allocations: not tracked by webhal
    blur_x:                       1.250ms (31.2%)
    square:                       2.750ms (68.7%)
`;
  const gpu = { runs: 2, afterMs: 2, timing: 'timestamp-query',
    kernels: new Map([['kernel_0_blur_x', [3, 2]], ['kernel_1_square_long_name_xx', [1, 2]]]),
    copies: { 'to device': new Map([['input', [0.5, 2]]]),
      'to host': new Map([['square', [0.7, 2]]]) } };
  const report = withGpu({ text: wasm, pipelines: parseProfile(wasm) }, gpu);
  assert.equal(report.text, `square
 total time: 10.000000 ms  samples: 2  runs: 2  time per run: 5.000000 ms
 heap allocations: not tracked by webhal
 gpu kernels timed by: timestamp-query
  [funcs ::::::::::::::::::::::::::    5.000ms (100.0%) ::::]
    overhead:                          1.000ms (20.0%)
    blur_x:                            1.250ms (25.0%)
    square:                            2.750ms (55.0%)
  [gpu kernels ::::::::::::::::::::    2.000ms (40.0%) ::::]
    kernel_0_blur_x:                   1.500ms (30.0%)
    kernel_1_square_long_name_xx:      0.500ms (10.0%)
  [buffer copies to device ::::::::    0.250ms ( 5.0%) ::::]
    input:                             0.250ms ( 5.0%)
  [buffer copies to host ::::::::::    0.350ms ( 7.0%) ::::]
    square:                            0.350ms ( 7.0%)
`);
  const [p] = report.pipelines;
  assert.equal(p.kernelTiming, 'timestamp-query');
  assert.deepEqual(Object.keys(p.sections), ['funcs', 'gpu kernels', 'buffer copies to device',
    'buffer copies to host']);
  assert.equal(formatProfile({ ...p, threads: null }), report.text);
  // Nothing measured yet, or no report: as it was.
  const plain = { text: wasm, pipelines: parseProfile(wasm) };
  assert.equal(withGpu(plain, { ...gpu, runs: 0 }), plain);
  assert.equal(withGpu(null, gpu), null);
});
