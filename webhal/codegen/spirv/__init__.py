"""SPIR-V for Vulkan compute, written as binary words (no assembler): `spec` holds the
format's numbers, `builder` the module and its sections, `kernel` one entry point from a
legalized kernel, `module` the pipeline's module and its binding manifest."""
