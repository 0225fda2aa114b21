"""hl.BoundaryConditions: Funcs that extend a source beyond its bounds.

Each takes `f`, a Func (bounds required), a Buffer or an ImageParam (bounds default to its
shape), and optional bounds as a list of (min, extent) per dimension: None, or a pair of
undefined hl.Expr(), for a dimension left as is. Argument names are Halide's (f, exterior,
bounds).
"""

from __future__ import annotations

from webhal.errors import CompileError, user_location
from webhal.lang.buffer import Buffer
from webhal.lang.expr import Expr, to_node
from webhal.lang.func import Func
from webhal.lang.functions import cast, clamp, select
from webhal.lang.param import ImageParam
from webhal.lang.var import Var


def _bounds(source, bounds, what: str):
    if isinstance(source, (Buffer, ImageParam)):
        dims = source.dimensions()
        default = [(source.dim(i).min(), source.dim(i).extent()) for i in range(dims)]
    elif isinstance(source, Func):
        dims = source.dimensions()
        default = None
    else:
        raise CompileError(f"{what} needs a Func, Buffer or ImageParam, not {source!r}",
                           user_location())
    if bounds is None:
        if default is None:
            raise CompileError(f"{what} of Func {source.name()} needs bounds: a list of "
                               "(min, extent) per dimension", user_location())
        bounds = default
    bounds = list(bounds)
    if len(bounds) > dims:
        raise CompileError(f"{what}: {source.name()} has {dims} dimensions but {len(bounds)} "
                           "bounds were given", user_location())
    return dims, bounds + [None] * (dims - len(bounds))


def _make(source, bounds, what: str, coord, exterior=None) -> Func:
    dims, bounds = _bounds(source, bounds, what)
    args = [Var.implicit(i) for i in range(dims)]
    coords, inside = [], None
    for v, b in zip(args, bounds):
        if b is None or any(isinstance(e, Expr) and not e.defined() for e in b):
            coords.append(v)
            continue
        lo, extent = Expr(to_node(b[0])), Expr(to_node(b[1]))
        coords.append(coord(v, lo, extent))
        if exterior is not None:
            here = (v >= lo) & (v < lo + extent)
            inside = here if inside is None else inside & here
    f = Func(f"{source.name()}_{what}")
    value = source[tuple(coords)]
    if exterior is not None and inside is not None:
        value = select(inside, value, exterior)
    f[tuple(args)] = value
    return f


def repeat_edge(f, bounds=None) -> Func:
    """Coordinates outside are clamped to the nearest edge."""
    return _make(f, bounds, "repeat_edge", lambda v, lo, ext: clamp(v, lo, lo + ext - 1))


def constant_exterior(f, exterior, bounds=None) -> Func:
    """Outside the bounds the value is `exterior`."""
    t = f.type()
    exterior = Expr(to_node(exterior, like=t)) if not hasattr(exterior, "node") else exterior
    if exterior.type() != t:
        exterior = cast(t, exterior)
    return _make(f, bounds, "constant_exterior",
                 lambda v, lo, ext: clamp(v, lo, lo + ext - 1), exterior)


def repeat_image(f, bounds=None) -> Func:
    """The image tiles the plane."""
    return _make(f, bounds, "repeat_image", lambda v, lo, ext: lo + (v - lo) % ext)


def mirror_image(f, bounds=None) -> Func:
    """Reflected at the edges, the edge pixel repeated: ... 2 1 0 | 0 1 2 ... n-1 | n-1 n-2 ..."""
    def coord(v, lo, ext):
        m = (v - lo) % (2 * ext)
        # The clamp changes no value; it hands bounds inference the tight interval that the
        # select's two arms (each spanning 0 .. 2 ext - 1 on its own) cannot give.
        return clamp(lo + select(m < ext, m, 2 * ext - 1 - m), lo, lo + ext - 1)
    return _make(f, bounds, "mirror_image", coord)


def mirror_interior(f, bounds=None) -> Func:
    """Reflected about the edge pixels, which are not repeated: ... 2 1 | 0 1 2 ... n-1 | n-2 ..."""
    def coord(v, lo, ext):
        period = clamp(2 * ext - 2, 1, 2 ** 30)
        m = (v - lo) % period
        return clamp(lo + select(m < ext, m, period - m), lo, lo + ext - 1)  # as mirror_image
    return _make(f, bounds, "mirror_interior", coord)
