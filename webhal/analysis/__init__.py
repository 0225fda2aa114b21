"""Analyses over IR: intervals of expressions and the boxes of Funcs and buffers touched."""
