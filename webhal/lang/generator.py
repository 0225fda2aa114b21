"""Generators, as in Halide's Python bindings: a class that declares its inputs, outputs and
parameters and builds the pipeline in `generate()`.

    @hl.generator(name="brighten")
    class Brighten:
        gain = hl.GeneratorParam(1.5)
        input = hl.InputBuffer(hl.UInt(8), 2)
        output = hl.OutputBuffer(hl.UInt(8), 2)

        def generate(g):
            x, y = hl.Var("x"), hl.Var("y")
            g.output[x, y] = hl.u8(hl.min(g.input[x, y] * g.gain, 255))

`Brighten(gain=2.0).build_pipeline()` gives the Pipeline; `webhal build` compiles it.
"""

from __future__ import annotations

import contextlib
import contextvars

from webhal.errors import CompileError, SourceLocation, user_location
from webhal.ir.types import Bool, Float, Int, Type, UInt
from webhal.lang.func import Func
from webhal.lang.param import ImageParam, Param
from webhal.lang.pipeline import Pipeline
from webhal.target import Target, get_target_from_environment

_registry: dict[str, type] = {}
_context_target: contextvars.ContextVar = contextvars.ContextVar("webhal_target", default=None)


class GeneratorParam:
    """A compile-time constant of the generator, set by keyword when it is created."""

    def __init__(self, default):
        self.default = default


class InputBuffer:
    def __init__(self, type: Type, dimensions: int):  # noqa: A002
        self.type, self.dimensions = type, dimensions


class InputScalar:
    def __init__(self, type: Type):  # noqa: A002
        self.type = type


class OutputBuffer:
    def __init__(self, type: Type, dimensions: int):  # noqa: A002
        self.type, self.dimensions = type, dimensions


@contextlib.contextmanager
def GeneratorContext(target):  # noqa: N802 - Halide's name
    """Within this block, generators build for `target`."""
    token = _context_target.set(Target(target))
    try:
        yield
    finally:
        _context_target.reset(token)


class Generator:
    """Base of generator classes (the decorator adds it)."""

    _halide_name = ""

    def __init__(self, generator_params: dict | None = None, **more_params):
        """GeneratorParams by keyword, or as a dict as in Halide's bindings
        (`Brighten(generator_params={"gain": 2.0})`)."""
        generator_params = {**(generator_params or {}), **more_params}
        cls = type(self)
        known = self.generator_params()
        # "<input or output>.type" and ".dim": Halide's implicit GeneratorParams of each
        # Input/Output, which set the type or dimensions it was declared without.
        self._io_params: dict[str, dict[str, object]] = {}
        io = dict(self.arguments())
        for k in [k for k in generator_params if "." in k]:
            owner, what = k.rsplit(".", 1)
            if owner in io and what in ("type", "dim"):
                value = generator_params.pop(k)
                self._io_params.setdefault(owner, {})[what] = \
                    _type_named(value, k) if what == "type" else int(value)
        asked = generator_params.get("autoscheduler")
        if asked:  # Halide's implicit GeneratorParam; running unscheduled would hide it
            raise CompileError(f"generator {cls._halide_name}: autoscheduler={asked} asks for "
                               "an autoscheduler, and webhal has none; build it without "
                               "autoscheduler= (its own schedule, using_autoscheduler() False)",
                               user_location())
        generator_params = {k: v for k, v in generator_params.items()
                            if k != "autoscheduler" and not k.startswith("autoscheduler.")}
        for k, v in generator_params.items():
            if k not in known:
                raise CompileError(f"generator {cls._halide_name} has no GeneratorParam {k}; it "
                                   f"has {', '.join(known) or 'none'}", user_location())
            default = known[k].default
            if isinstance(default, bool):
                v = v if isinstance(v, bool) else str(v).lower() in ("1", "true", "yes")
            elif isinstance(default, (int, float)) and not isinstance(v, Type):
                v = type(default)(v)
            setattr(self, k, v)
        for k, p in known.items():
            if k not in generator_params:
                setattr(self, k, p.default)
        self._pipeline = None

    @classmethod
    def generator_params(cls) -> dict[str, GeneratorParam]:
        return {k: v for k, v in _declared(cls) if isinstance(v, GeneratorParam)}

    @classmethod
    def arguments(cls) -> list[tuple[str, object]]:
        """Inputs and outputs, in declaration order."""
        return [(k, v) for k, v in _declared(cls)
                if isinstance(v, (InputBuffer, InputScalar, OutputBuffer))]

    @classmethod
    def name(cls) -> str:
        return cls._halide_name

    def target(self):
        return _context_target.get() or get_target_from_environment()

    def natural_vector_size(self, t: Type) -> int:
        return self.target().natural_vector_size(t)

    def using_autoscheduler(self) -> bool:
        return False

    def build_pipeline(self):
        """Create the inputs as ImageParams/Params, the outputs as Funcs, run generate(), and
        return the Pipeline. The inputs, in declaration order, are `self.inputs()`."""
        if self._pipeline is not None:
            return self._pipeline
        self._inputs, outputs = [], []
        for k, v in self.arguments():
            given = self._io_params.get(k, {})
            t = given.get("type", v.type)
            dims = given.get("dim", getattr(v, "dimensions", 0))
            if t is None or dims is None:
                what, param = ("a type", f"{k}.type") if t is None else \
                    ("dimensions", f"{k}.dim")
                raise CompileError(f"generator {self._halide_name}: {k} is declared without "
                                   f"{what}; give it with the GeneratorParam {param}=...",
                                   user_location())
            if isinstance(v, InputBuffer):
                obj = ImageParam(t, dims, k)
                self._inputs.append(obj)
            elif isinstance(v, InputScalar):
                obj = Param(t, k)
                self._inputs.append(obj)
            else:
                obj = Func(t, dims, k)
                outputs.append(obj)
            setattr(self, k, obj)
        if not outputs:
            raise CompileError(f"generator {self._halide_name} declares no hl.OutputBuffer",
                               user_location())
        self.generate()
        for f in outputs:
            if not f.defined():
                # The mistake is in generate(), which the user may not call themselves (the CLI
                # does), so point at its def line rather than at the caller.
                code = type(self).generate.__code__
                raise CompileError(
                    f"generator {self._halide_name}: generate() did not define its output "
                    f"{f.name()} (an hl.OutputBuffer); assign it, e.g. "
                    f"`self.{f.name()}[x, ...] = ...`",
                    SourceLocation(code.co_filename, code.co_firstlineno))
        self._pipeline = Pipeline(outputs)
        return self._pipeline

    def inputs(self) -> list:
        self.build_pipeline()
        return list(self._inputs)

    def compile_to_callable(self):
        """The pipeline compiled for this generator's target, as an hl.Callable taking the
        inputs and then the outputs, in declaration order (or by name)."""
        return self.build_pipeline().compile_to_callable(self.inputs(), self.target())

    def generate(self):
        raise CompileError(f"generator {self._halide_name} must define generate()",
                           user_location())


def _type_named(value, param: str) -> Type:
    """An hl.Type, from itself or its name ("uint8", "float32", "bool")."""
    if isinstance(value, Type):
        return value
    text = str(value).strip()
    widths = {"uint": (8, 16, 32, 64), "int": (8, 16, 32, 64), "float": (16, 32, 64)}
    for code, make in (("uint", UInt), ("int", Int), ("float", Float)):
        bits = text[len(code):]
        if text.startswith(code) and bits.isdigit() and int(bits) in widths[code]:
            return make(int(bits))
    if text == "bool":
        return Bool()
    raise CompileError(f"{param}={value}: not a type name (uint8, int16, float32, ...)",
                       user_location())


def _declared(cls) -> list[tuple[str, object]]:
    seen, out = set(), []
    for klass in reversed(cls.__mro__):
        for k, v in vars(klass).items():
            if isinstance(v, (GeneratorParam, InputBuffer, InputScalar, OutputBuffer)):
                if k in seen:
                    out = [(kk, vv) for kk, vv in out if kk != k]
                seen.add(k)
                out.append((k, v))
    return out


def generator(name: str | None = None):
    """Class decorator registering a generator under `name` (default: the class name)."""
    def wrap(cls):
        gen_name = name or cls.__name__
        if not issubclass(cls, Generator):
            cls = type(cls.__name__, (cls, Generator), {"__module__": cls.__module__,
                                                         "__qualname__": cls.__qualname__})
        cls._halide_name = gen_name
        _registry[gen_name] = cls
        return cls
    return wrap


def registered_generators() -> dict[str, type]:
    return dict(_registry)


def create_callable_from_generator(context, name: str, generator_params=None):
    """Halide's: generator `name` built with `generator_params` for a Target (or a target
    string, or an hl.GeneratorContext), compiled to an hl.Callable."""
    target = context
    if not isinstance(context, (Target, str)):  # GeneratorContext(target)
        target = getattr(context, "args", (None,))[0]
    with GeneratorContext(target):
        return create_generator(name, **(generator_params or {})).compile_to_callable()


def create_generator(name: str, **generator_params) -> Generator:
    if name not in _registry:
        raise CompileError(f"no generator named {name}; registered: "
                           f"{', '.join(sorted(_registry)) or 'none'}", user_location())
    return _registry[name](**generator_params)
