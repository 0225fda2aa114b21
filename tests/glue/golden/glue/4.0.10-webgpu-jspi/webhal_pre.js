// webhal's --pre-js for blur (wasm-32-wasmrt-wasm_simd128-webgpu, Emscripten 4.0.10): it runs
// inside the module factory, before Emscripten's own code.

// The entry function, called with its arguments (numbers and wasm addresses); a promise of
// its result.
// JSPI: the export itself returns a promise when it waits.
Module['webhalCall'] = async (args) => Module["_blur"](...args);
