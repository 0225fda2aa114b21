"""Code generators: LLVM (host and wasm32, through llvmlite) and, later, WGSL."""
