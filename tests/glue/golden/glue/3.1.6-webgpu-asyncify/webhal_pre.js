// webhal's --pre-js for blur (wasm-32-wasmrt-wasm_simd128-webgpu, Emscripten 3.1.6): it runs
// inside the module factory, before Emscripten's own code.

// The entry function, called with its arguments (numbers and wasm addresses); a promise of
// its result.
// ASYNCIFY: the call may unwind to wait for a GPU readback; ccall resumes it.
Module['webhalCall'] = (args) => ccall("blur", 'number',
  args.map(() => 'number'), args, { async: true });
