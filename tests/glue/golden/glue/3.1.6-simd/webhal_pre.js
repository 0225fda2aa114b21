// webhal's --pre-js for blur (wasm-32-wasmrt-wasm_simd128, Emscripten 3.1.6): it runs
// inside the module factory, before Emscripten's own code.

// The entry function, called with its arguments (numbers and wasm addresses); a promise of
// its result.
// Nothing in it waits: the GPU outputs are read back after it returns.
Module['webhalCall'] = async (args) => Module["_blur"](...args);
