// webhal's --extern-pre-js for blur (wasm-32-wasmrt-wasm_simd128-wasm_threads, Emscripten 4.0.10): the top
// of the ES module, before Emscripten's factory. Emscripten's Node support reads __filename
// there, which no ES module has: bound here (undefined), so that a bundler does not replace
// `typeof __filename` but leave `__filename` itself (webpack), which then throws in browsers.
var __filename;
