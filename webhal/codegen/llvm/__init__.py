"""LLVM code generation through llvmlite: types, expressions, statements, the module, targets."""
