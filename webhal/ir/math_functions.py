"""The math functions of the IR (`Call`s of type PURE_EXTERN), once, with what each backend and
runtime calls them. Every one takes and returns floats of one width; float16 is computed in
float32. Each name is also C's double function and Python's `math` function."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MathFunction:
    name: str
    arity: int
    numpy: str | None   # numpy's ufunc, where numpy has one
    wgsl: str | None    # WGSL's builtin, where WGSL has one
    instruction: bool = False  # LLVM computes it inline (llvm.<name>), not through libm

    @property
    def libm(self) -> tuple[str, str]:
        """C's float and double functions, the symbols compiled code may import."""
        return self.name + "f", self.name


def _f(name: str, numpy: str | None = None, arity: int = 1, wgsl: str | None = "",
       instruction: bool = False) -> MathFunction:
    return MathFunction(name, arity, numpy if numpy is not None else name,
                        name if wgsl == "" else wgsl, instruction)


FUNCTIONS = {f.name: f for f in (
    _f("sqrt", instruction=True),
    _f("exp"),
    _f("log"),
    _f("pow", "power", arity=2),
    _f("sin"),
    _f("cos"),
    _f("tan"),
    _f("asin", "arcsin"),
    _f("acos", "arccos"),
    _f("atan", "arctan"),
    _f("atan2", "arctan2", arity=2),
    _f("sinh"),
    _f("cosh"),
    _f("tanh"),
    _f("asinh", "arcsinh"),
    _f("acosh", "arccosh"),
    _f("atanh", "arctanh"),
    MathFunction("erf", 1, numpy=None, wgsl=None),
)}
