"""webhal's runtime in Python: what compiled pipelines call when run from Python (host JIT
through ctypes, wasm through wasmtime). The wasm-side contract is in docs/abi.md."""
