"""WGSL code generation: one module per pipeline, one compute entry point per kernel."""
