"""The front end: what users write (Halide's Python API), recorded but not lowered."""
