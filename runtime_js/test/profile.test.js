// node --test runtime_js/test: the profiler report's parser (runtime_js/profile.js).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { parseProfile, readProfile } from '../profile.js';

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
