"""Generators, as in Halide's Python bindings: a class that declares its inputs, outputs and
parameters and builds the pipeline in `generate()`.

    @hl.alias(brighten_twice={"gain": 2.0})
    @hl.generator(name="brighten")
    class Brighten:
        gain = hl.GeneratorParam(1.5)
        input = hl.InputBuffer(hl.UInt(8), 2)
        output = hl.OutputBuffer(hl.UInt(8), 2)

        def generate(g):
            x, y = hl.Var("x"), hl.Var("y")
            g.output[x, y] = hl.u8(hl.min(g.input[x, y] * g.gain, 255))

`Brighten(gain=2.0).build_pipeline()` gives the Pipeline; `webhal build` and the generator
command line (hl.main) compile it; `Brighten.call(buffer)` uses it as a stage of another
pipeline, its output a Func. Building runs, in Halide's order: the GeneratorParams are set
(an alias's first), the declared Inputs and Outputs get the types and dimensions they were
declared with or their `NAME.type`/`NAME.dim` GeneratorParams, configure() may add_input() and
add_output(), the Inputs become ImageParams/Params and the Outputs Funcs (attributes of the same
names), generate() defines the Outputs, and add_requirement()'s conditions join the Pipeline.
"""

from __future__ import annotations

import contextvars
import re
import warnings

from webhal.errors import CompileError, SourceLocation, user_location
from webhal.ir.types import Bool, Float, Int, Type, UInt
from webhal.lang.buffer import Buffer
from webhal.lang.func import Func
from webhal.lang.param import ImageParam, Param
from webhal.lang.pipeline import Pipeline
from webhal.target import Target, get_target_from_environment

_registry: dict[str, type] = {}
_context_target: contextvars.ContextVar = contextvars.ContextVar("webhal_target", default=None)

# Python's types where a generator's Inputs and Outputs take them, mapped as Halide maps them.
_PYTHON_TYPES = {bool: Bool(), int: Int(32), float: Float(32)}
# A name of a GeneratorParam, Input or Output: a C identifier without a leading underscore or
# a double one (Halide's rule; `generator_params` is call()'s keyword).
_NAME = re.compile(r"^(?!.*__)[A-Za-z0-9][A-Za-z0-9_]*$")


def _check_name(name: str, what: str) -> str:
    if not _NAME.match(name) or name == "generator_params":
        raise CompileError(f"the name {name!r} is not valid for a {what}: use letters, digits "
                           "and single underscores, not starting with one", user_location())
    return name


def _declared_types(types, what: str) -> list[Type]:
    """A declaration's types as a list: [] where not given (None), Python's bool/int/float as
    hl.Bool(), hl.Int(32), hl.Float(32)."""
    if types is None:
        return []
    out = []
    for t in types if isinstance(types, (list, tuple)) else [types]:
        t = _PYTHON_TYPES.get(t, t) if isinstance(t, type) else t
        if not isinstance(t, Type):
            raise CompileError(f"{what} needs an hl type (or bool, int, float), not {t!r}",
                               user_location())
        out.append(t)
    return out


class GeneratorParam:
    """A compile-time constant of the generator (bool, int, float, str or hl.Type), set by
    keyword or on the command line (`name=value`) when it is created."""

    def __init__(self, default):
        self.default = default

    def parse(self, name: str, value):
        """`value` (maybe a string from the command line) as the default's type."""
        default = self.default
        try:
            if isinstance(default, bool):
                if isinstance(value, str):
                    if value.strip().lower() not in ("true", "false", "1", "0"):
                        raise ValueError
                    return value.strip().lower() in ("true", "1")
                return bool(value)
            if isinstance(default, Type):
                types = _types_named(value, name)
                return types[0] if len(types) == 1 else types
            if isinstance(default, (int, float, str)):
                return type(default)(value)
        except (TypeError, ValueError):
            pass
        raise CompileError(f"GeneratorParam {name}={value!r}: not a {type(default).__name__}",
                           user_location())


class InputBuffer:
    """An input image: `hl.InputBuffer(hl.UInt(8), 2)`; a type or dimensions of None are given
    later by the GeneratorParams `NAME.type` and `NAME.dim`. An ImageParam in generate()."""

    def __init__(self, type, dimensions: int | None):  # noqa: A002
        types = _declared_types(type, "InputBuffer")
        if len(types) > 1:
            raise CompileError("an InputBuffer has one type", user_location())
        self.type = types[0] if types else None
        self.dimensions = dimensions


class InputScalar:
    """A scalar input: `hl.InputScalar(hl.Float(32))` (or float). A Param in generate().
    allow_nonfinite (webhal's): a float input that may be NaN or infinite (see hl.Param)."""

    def __init__(self, type, *, allow_nonfinite: bool = False):  # noqa: A002
        types = _declared_types(type, "InputScalar")
        if len(types) > 1:
            raise CompileError("an InputScalar has one type", user_location())
        self.type = types[0] if types else None
        self.dimensions = 0
        self.allow_nonfinite = allow_nonfinite


class OutputBuffer:
    """An output: `hl.OutputBuffer(hl.Float(32), 2)`, or a Tuple's types as a list; None for
    what the GeneratorParams `NAME.type` (`float32,float32` for a Tuple) and `NAME.dim` give.
    A Func of those types and dimensions in generate()."""

    def __init__(self, types, dimensions: int | None):
        self.types = _declared_types(types, type(self).__name__)
        self.type = None if not self.types else \
            self.types[0] if len(self.types) == 1 else list(self.types)
        self.dimensions = dimensions


class OutputScalar(OutputBuffer):
    """A zero-dimensional output: `hl.OutputScalar(hl.Float(32))`, defined with
    `g.out[()] = value`."""

    def __init__(self, types):
        super().__init__(types, 0)


_INPUTS = (InputBuffer, InputScalar)
_OUTPUTS = (OutputBuffer, OutputScalar)


class GeneratorContext:
    """Halide's GeneratorContext: generators made (and built) inside `with` use its target.
    Also what create_callable_from_generator takes."""

    def __init__(self, target, autoscheduler_params=None):
        if autoscheduler_params:
            _refuse_autoscheduler("GeneratorContext", autoscheduler_params)
        self._target = Target(target)
        self._tokens: list = []

    def target(self) -> Target:
        return self._target

    def __enter__(self) -> GeneratorContext:
        self._tokens.append(_context_target.set(self._target))
        return self

    def __exit__(self, *exc) -> None:
        _context_target.reset(self._tokens.pop())


def _refuse_autoscheduler(who: str, asked) -> None:
    raise CompileError(f"{who}: autoscheduler_params={asked} are not supported here by "
                       "webhal; give the generator autoscheduler=NAME (and autoscheduler.PARAM="
                       "value) as GeneratorParams instead", user_location())


class _ClassOrInstance:
    """A method that gets the class, and the instance when called on one."""

    def __init__(self, fn):
        self._fn = fn
        self.__doc__ = fn.__doc__

    def __get__(self, obj, cls):
        return lambda *a, **k: self._fn(cls, obj, *a, **k)


class Generator:
    """Base of generator classes (the decorator adds it)."""

    _halide_name = ""
    _alias_params: dict = {}

    def __init__(self, generator_params: dict | None = None, **more_params):
        """GeneratorParams by keyword, or as a dict as in Halide's bindings
        (`Brighten(generator_params={"gain": 2.0})`), after those of an hl.alias. Also the
        implicit `NAME.type` and `NAME.dim` of an Input or Output declared without them."""
        if generator_params is not None and not isinstance(generator_params, dict):
            raise CompileError("generator_params must be a dict", user_location())
        cls = type(self)
        given = {**self._alias_params, **(generator_params or {}), **more_params}
        known = self.generator_params()
        declared = dict(self._declared_io())
        self._target = _context_target.get()
        self._io_params: dict[str, dict[str, object]] = {}
        asked = {k: v for k, v in given.items()
                 if k == "autoscheduler" or k.startswith("autoscheduler.")}
        # Halide's implicit GeneratorParams autoscheduler=NAME and autoscheduler.PARAM=value:
        # build_pipeline applies that autoscheduler (webhal's, under any of its names).
        self._autoscheduler = (str(asked.get("autoscheduler") or ""),
                               {k.split(".", 1)[1]: v for k, v in asked.items()
                                if k != "autoscheduler"})
        for k, v in given.items():
            owner, _, what = k.rpartition(".")
            if k in known:
                object.__setattr__(self, k, known[k].parse(k, v))
            elif owner in declared and what in ("type", "dim"):
                self._io_params.setdefault(owner, {})[what] = \
                    self._io_param(owner, declared[owner], what, v)
            elif k not in asked:
                raise CompileError(f"generator {cls._halide_name} has no GeneratorParam {k}; it "
                                   f"has {', '.join(known) or 'none'}", user_location())
        for k, p in known.items():
            if k not in given:
                object.__setattr__(self, k, p.default)
        self._pipeline = None
        self._io: dict[str, object] | None = None  # name -> declaration, after configure()
        self._bound: dict[str, object] = {}  # inputs given by call()
        self._objects: dict[str, object] = {}  # name -> ImageParam, Param or Func
        self._requirements: list[tuple] = []
        self._in_configure = False

    def _io_param(self, owner: str, decl, what: str, value):
        """`NAME.type` or `NAME.dim` for a declaration that left it out."""
        name = self._halide_name
        if what == "type":
            if decl.type is not None:
                raise CompileError(f"Cannot set the GeneratorParam {owner}.type for {name} "
                                   "because the value is explicitly specified in the Python "
                                   "source", user_location())
            types = _types_named(value, f"{owner}.type")
            if len(types) > 1 and not isinstance(decl, _OUTPUTS):
                raise CompileError(f"{owner}.type={value}: an input has one type",
                                   user_location())
            return types
        if decl.dimensions is not None:
            raise CompileError(f"Cannot set the GeneratorParam {owner}.dim for {name} because "
                               "the value is explicitly specified in the Python source",
                               user_location())
        try:
            return int(value)
        except (TypeError, ValueError):
            raise CompileError(f"{owner}.dim={value!r}: not an int", user_location()) from None

    # -- what it declares ----------------------------------------------------------------------

    @classmethod
    def generator_params(cls) -> dict[str, GeneratorParam]:
        return {k: v for k, v in _declared(cls) if isinstance(v, GeneratorParam)}

    @classmethod
    def _declared_io(cls) -> list[tuple[str, object]]:
        return [(k, v) for k, v in _declared(cls) if isinstance(v, _INPUTS + _OUTPUTS)]

    @_ClassOrInstance
    def arguments(cls, self) -> list[tuple[str, object]]:
        """Inputs and outputs with their declarations (InputBuffer, InputScalar, OutputBuffer,
        OutputScalar), in declaration order; on a generator, with those configure() adds."""
        if self is None:
            return cls._declared_io()
        return list(self._configured().items())

    @classmethod
    def name(cls) -> str:
        return cls._halide_name

    def target(self) -> Target:
        """The target it builds for: the GeneratorContext's it was made in (or is built in),
        else HL_TARGET's."""
        return self._target or _context_target.get() or get_target_from_environment()

    def context(self) -> GeneratorContext:
        return GeneratorContext(self.target())

    def natural_vector_size(self, t: Type) -> int:
        return self.target().natural_vector_size(t)

    def using_autoscheduler(self) -> bool:
        """Whether autoscheduler=NAME was given: generate() then sets estimates and leaves
        the schedule to it."""
        return bool(self._autoscheduler[0])

    def allow_out_of_order_inputs_and_outputs(self) -> bool:
        """Override to declare Inputs after Outputs without a warning."""
        return False

    # -- building ------------------------------------------------------------------------------

    def configure(self):
        """Override to add Inputs and Outputs that depend on GeneratorParams, with add_input()
        and add_output(); runs before generate()."""

    def add_input(self, name: str, declaration) -> None:
        """An Input added by configure(): hl.InputBuffer or hl.InputScalar, after those the
        class declares."""
        self._add_io("add_input", name, declaration, _INPUTS)

    def add_output(self, name: str, declaration) -> None:
        """An Output added by configure(): hl.OutputBuffer or hl.OutputScalar."""
        self._add_io("add_output", name, declaration, _OUTPUTS)

    def _add_io(self, what: str, name: str, declaration, kinds) -> None:
        if not self._in_configure:
            raise CompileError(f"Can only call {what}() from the configure() method",
                               user_location())
        _check_name(name, "Input or Output")
        if hasattr(self, name):
            raise CompileError(f"Cannot call {what}('{name}') because the class already has a "
                               "member of that name", user_location())
        if not isinstance(declaration, kinds):
            raise CompileError(f"Cannot call {what}() with an object of type "
                               f"'{type(declaration).__name__}'", user_location())
        self._io[name] = declaration

    def add_requirement(self, condition, *error_args) -> None:
        """A condition the pipeline checks before it runs (Pipeline.add_requirement), failing
        with error_args as the message."""
        if self._pipeline is not None:
            raise CompileError(f"generator {self._halide_name}: add_requirement must be called "
                               "before the pipeline is built (in generate())", user_location())
        self._requirements.append((condition, error_args))

    def _configured(self) -> dict[str, object]:
        """The Inputs and Outputs, configure() run once."""
        if self._io is None:
            self._io = {}
            outputs_seen = False
            for k, v in self._declared_io():
                _check_name(k, "Input or Output")
                if isinstance(v, _INPUTS) and outputs_seen and \
                        not self.allow_out_of_order_inputs_and_outputs():
                    warnings.warn(f"generator {self._halide_name} declares Input {k} after an "
                                  "Output; its compiled function takes all Inputs first",
                                  stacklevel=3)
                outputs_seen |= isinstance(v, _OUTPUTS)
                self._io[k] = v
            self._in_configure = True
            try:
                self.configure()
            finally:
                self._in_configure = False
            if not any(isinstance(v, _OUTPUTS) for v in self._io.values()):
                raise CompileError(f"generator {self._halide_name} declares no hl.OutputBuffer "
                                   "(nor hl.OutputScalar)", user_location())
        return self._io

    def _shape(self, name: str, decl) -> tuple[list[Type], int]:
        """The types and dimensions of an Input or Output, checked to be given."""
        given = self._io_params.get(name, {})
        types = given.get("type") or (decl.types if isinstance(decl, _OUTPUTS) else
                                      [decl.type] if decl.type is not None else [])
        dims = given.get("dim", decl.dimensions)
        if not types or dims is None:
            what, param = ("a type", "type") if not types else ("dimensions", "dim")
            raise CompileError(f"generator {self._halide_name}: {name} is declared without "
                               f"{what}; give it in the declaration or with the GeneratorParam "
                               f"{name}.{param}=...", user_location())
        return types, dims

    def build_pipeline(self) -> Pipeline:
        """Create the inputs as ImageParams/Params and the outputs as Funcs, run generate(),
        and return the Pipeline. The inputs, in declaration order, are `self.inputs()`."""
        if self._pipeline is not None:
            return self._pipeline
        outputs = []
        for k, decl in self._configured().items():
            types, dims = self._shape(k, decl)
            if k in self._bound:
                obj = self._bound[k]
            elif isinstance(decl, InputBuffer):
                obj = ImageParam(types[0], dims, k)
            elif isinstance(decl, InputScalar):
                obj = Param(types[0], k, allow_nonfinite=decl.allow_nonfinite)
            else:
                obj = Func(types if len(types) > 1 else types[0], dims, k)
                outputs.append(obj)
            self._objects[k] = obj
            object.__setattr__(self, k, obj)
        with self.context():
            self.generate()
        for f in outputs:
            if not f.defined():
                # The mistake is in generate(), which the user may not call themselves (the CLI
                # does), so point at its def line rather than at the caller.
                code = type(self).generate.__code__
                raise CompileError(
                    f"generator {self._halide_name}: generate() did not define its output "
                    f"{f.name()}; assign it, e.g. `self.{f.name()}[x, ...] = ...`",
                    SourceLocation(code.co_filename, code.co_firstlineno))
        pipeline = Pipeline(outputs)
        for condition, error_args in self._requirements:
            pipeline.add_requirement(condition, *error_args)
        if self.using_autoscheduler():
            from webhal.autoschedule.interface import AutoschedulerParams
            name, extra = self._autoscheduler
            pipeline.apply_autoscheduler(self.target(), AutoschedulerParams(name, extra))
        self._pipeline = pipeline
        return pipeline

    def __setattr__(self, name, value):
        # As in Halide: from generate() on, an Input, Output or GeneratorParam is not replaced.
        made = self.__dict__.get("_objects")
        if made and (name in made or name in self.generator_params()):
            raise AttributeError(f"Invalid write to field '{name}'")
        object.__setattr__(self, name, value)

    def inputs(self) -> list:
        """The ImageParams and Params of the Inputs, in order."""
        self.build_pipeline()
        return [self._objects[k] for k, v in self._io.items() if isinstance(v, _INPUTS)]

    def compile_to_callable(self):
        """The pipeline compiled for this generator's target, as an hl.Callable taking the
        inputs and then the outputs, in declaration order (or by name)."""
        return self.build_pipeline().compile_to_callable(self.inputs(), self.target())

    def generate(self):
        raise CompileError(f"generator {self._halide_name} must define generate()",
                           user_location())

    # -- one generator as a stage of another ---------------------------------------------------

    @classmethod
    def call(cls, *args, generator_params=None, **kwargs):
        """This generator's outputs as Funcs of a pipeline being built (Halide's generator
        stub): the Inputs by position and/or name (a Buffer or ImageParam for an InputBuffer, a
        Param or a Python number for an InputScalar), GeneratorParams as the dict
        generator_params. Returns the one output Func, or a tuple of them in order."""
        if generator_params is not None and not isinstance(generator_params, dict):
            raise CompileError("generator_params must be a dict", user_location())
        g = cls(generator_params or {})
        inputs = [k for k, v in g._configured().items() if isinstance(v, _INPUTS)]
        if len(args) > len(inputs):
            raise CompileError(f"Generator '{cls._halide_name}' allows at most {len(inputs)} "
                               f"positional args, but {len(args)} were specified.",
                               user_location())
        for k, v in zip(inputs, args):
            g._bind(k, v)
        for k, v in kwargs.items():
            if k not in inputs:
                raise CompileError(f"Unknown input '{k}' specified via keyword argument.",
                                   user_location())
            if k in g._bound:
                raise CompileError(f"Input {k} specified multiple times.", user_location())
            g._bind(k, v)
        if len(g._bound) != len(inputs):
            raise CompileError(f"Generator '{cls._halide_name}' requires {len(inputs)} args, but "
                               f"{len(g._bound)} were specified.", user_location())
        g.build_pipeline()
        outs = [g._objects[k] for k, v in g._io.items() if isinstance(v, _OUTPUTS)]
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _bind(self, name: str, value) -> None:
        """Input `name` of call(): the ImageParam or Param standing for `value`."""
        decl = self._io[name]
        types, dims = self._shape(name, decl)
        if isinstance(decl, InputBuffer):
            if not isinstance(value, (Buffer, ImageParam)):
                raise CompileError(f"Input {name} requires an ImageParam or Buffer argument when "
                                   f"using call(), but saw {value!r}", user_location())
            if isinstance(value, Buffer):
                image = ImageParam(value.type(), value.dimensions(), name)
                image.set(value)
                value = image
            got_type, got_dims = value.type(), value.dimensions()
        else:
            if isinstance(value, (bool, int, float)):
                param = Param(types[0], name)
                param.set(value)
                value = param
            elif not isinstance(value, Param):
                raise CompileError(f"Input {name} requires a Param (or scalar literal) argument "
                                   f"when using call(), but saw {value!r}.", user_location())
            got_type, got_dims = value.type(), 0
        if got_type != types[0] or got_dims != dims:
            raise CompileError(f"Input {name} of generator {self._halide_name} is {types[0]} "
                               f"with {dims} dimensions, but call() gave {got_type} with "
                               f"{got_dims}", user_location())
        self._bound[name] = value


def _types_named(value, param: str) -> list[Type]:
    """hl.Types from themselves, a list of them, or names ("uint8", "float32,float32")."""
    if isinstance(value, Type):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _types_named(v, param)]
    out = []
    widths = {"uint": (8, 16, 32, 64), "int": (8, 16, 32, 64), "float": (16, 32, 64)}
    for text in str(value).split(","):
        text = text.strip()
        found = Bool() if text == "bool" else None
        for code, make in (("uint", UInt), ("int", Int), ("float", Float)):
            bits = text[len(code):]
            if found is None and text.startswith(code) and bits.isdigit() and \
                    int(bits) in widths[code]:
                found = make(int(bits))
        if found is None:
            raise CompileError(f"{param}={value}: not a type name (uint8, int16, float32, ...; "
                               "a Tuple's types separated by commas)", user_location())
        out.append(found)
    return out


def _declared(cls) -> list[tuple[str, object]]:
    seen, out = set(), []
    for klass in reversed(cls.__mro__):
        for k, v in vars(klass).items():
            if isinstance(v, (GeneratorParam, *_INPUTS, *_OUTPUTS)):
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
        for k, _ in _declared(cls):
            _check_name(k, "GeneratorParam, Input or Output")
        _registry[gen_name] = cls
        return cls
    return wrap


def alias(**variants):
    """Class decorator (above @hl.generator) registering variants of a generator under other
    names, each with its own GeneratorParams: `@hl.alias(blur_wide={"radius": 5})`; each is a
    generator of its own for `-g`, `webhal build` and create_callable_from_generator."""
    def wrap(cls):
        if not (isinstance(cls, type) and issubclass(cls, Generator) and cls._halide_name):
            raise CompileError("@hl.alias can only be used with @hl.generator (written above "
                               "it)", user_location())
        for k, params in variants.items():
            _check_name(k, "generator alias")
            if not isinstance(params, dict):
                raise CompileError(f"the generator alias {k} gives {params!r}, not a dict of "
                                   "GeneratorParams", user_location())
            variant = type(k, (cls,), {"_halide_name": k, "_alias_params": dict(params),
                                       "__module__": cls.__module__,
                                       "__qualname__": cls.__qualname__})
            _registry[k] = variant
        return cls
    return wrap


def registered_generators() -> dict[str, type]:
    return dict(_registry)


def create_callable_from_generator(context, name: str, generator_params=None):
    """Halide's: generator `name` built with `generator_params` for a GeneratorContext (or a
    Target, or a target string), compiled to an hl.Callable."""
    target = context.target() if isinstance(context, GeneratorContext) else context
    with GeneratorContext(target):
        return create_generator(name, **(generator_params or {})).compile_to_callable()


def create_generator(name: str, **generator_params) -> Generator:
    if name not in _registry:
        raise CompileError(f"no generator named {name}; registered: "
                           f"{', '.join(sorted(_registry)) or 'none'}", user_location())
    return _registry[name](**generator_params)
