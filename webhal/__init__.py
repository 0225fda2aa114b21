"""webhal: Halide-style pipelines (algorithm + schedule) compiled for the web.

`import webhal as hl` gives the names of Halide's Python bindings: Func, Var, RDom, Buffer,
ImageParam, Param, Target, the expression functions and the scheduling types.
"""

from webhal import imageio
from webhal.autoschedule.interface import (
    AutoschedulerParams,
    AutoSchedulerResults,
    load_plugin,
)
from webhal.errors import (
    BufferError,
    CompileError,
    HalideError,
    ScheduleError,
    TargetError,
    ToolchainError,
)
from webhal.ir.schedule import DeviceAPI, LoopLevel, MemoryType, Partition, TailStrategy
from webhal.ir.types import Bool, Float, Handle, Int, Type, TypeCode, UInt
from webhal.lang import boundary as BoundaryConditions  # noqa: N812 - Halide's name
from webhal.lang.autodiff import Derivative, propagate_adjoints
from webhal.lang.buffer import Buffer
from webhal.lang.callable import Callable
from webhal.lang.evaluate import evaluate, evaluate_may_gpu
from webhal.lang.expr import Expr
from webhal.lang.func import (
    Func,
    FuncRef,
    FuncTupleElementRef,
    OutputImageParam,
    funcs,
    lambda_func,
)
from webhal.lang.functions import (
    abs,
    absd,
    acos,
    acosh,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    cast,
    ceil,
    clamp,
    cos,
    cosh,
    count_leading_zeros,
    count_trailing_zeros,
    erf,
    exp,
    f16,
    f32,
    f64,
    fast_inverse,
    fast_inverse_sqrt,
    floor,
    fract,
    i8,
    i16,
    i32,
    i64,
    is_finite,
    is_inf,
    is_nan,
    lerp,
    likely,
    log,
    logical_not,
    max,
    min,
    mux,
    popcount,
    pow,
    reinterpret,
    round,
    saturating_cast,
    select,
    sin,
    sinh,
    sqrt,
    tan,
    tanh,
    trunc,
    tuple_select,
    u8,
    u16,
    u32,
    u64,
)
from webhal.lang.generator import (
    Generator,
    GeneratorContext,
    GeneratorParam,
    InputBuffer,
    InputScalar,
    OutputBuffer,
    OutputScalar,
    alias,
    create_callable_from_generator,
    create_generator,
    generator,
    registered_generators,
)
from webhal.lang.generator_main import main
from webhal.lang.output_types import OutputFileType, StmtOutputFormat
from webhal.lang.param import ImageParam, Param
from webhal.lang.pipeline import Pipeline
from webhal.lang.printing import print, print_when  # noqa: A004 - Halide's names
from webhal.lang.random import random_float, random_int, random_uint
from webhal.lang.reductions import argmax, argmin, maximum, minimum, product, sum
from webhal.lang.serialization import (
    deserialize_parameters,
    deserialize_pipeline,
    serialize_pipeline,
)
from webhal.lang.stage import Stage
from webhal.lang.tuple import Tuple
from webhal.lang.var import IMPLICIT_VARS, PLACEHOLDER, Range, RDom, RVar, Var, vars
from webhal.runtime.device import host_supports_target_device
from webhal.target import (
    Target,
    TargetArch,
    TargetFeature,
    TargetOS,
    get_host_target,
    get_jit_target_from_environment,
    get_target_from_environment,
    target_feature_for_device_api,
)

_0, _1, _2, _3, _4, _5, _6, _7, _8, _9 = IMPLICIT_VARS
_ = PLACEHOLDER
del IMPLICIT_VARS, PLACEHOLDER

__all__ = [name for name in dir() if not name.startswith("_")]
