"""A SPIR-V module written word by word: result ids, the module's sections in the order the
specification lays them out, and types and constants declared once each.

Instructions are lists of 32-bit words (`instruction`): the first holds the word count and the
opcode; operands are ints (one word), strings (UTF-8, NUL-terminated, padded to a word) or
sequences of either."""

from __future__ import annotations

import struct
from collections.abc import Iterable

from webhal.codegen.spirv.spec import (
    ADDRESSING_LOGICAL,
    GENERATOR,
    MAGIC,
    MEMORY_MODEL_GLSL450,
    Capability,
    Decoration,
    Op,
    StorageClass,
)
from webhal.ir.types import Type

Operand = int | str | Iterable


def string_words(text: str) -> list[int]:
    data = text.encode() + b"\0"
    data += b"\0" * (-len(data) % 4)
    return list(struct.unpack(f"<{len(data) // 4}I", data))


def _words(operands) -> list[int]:
    out: list[int] = []
    for o in operands:
        if isinstance(o, str):
            out += string_words(o)
        elif isinstance(o, int):
            out.append(o & 0xFFFFFFFF)
        else:
            out += _words(o)
    return out


def instruction(op: Op, *operands: Operand) -> list[int]:
    words = _words(operands)
    return [(len(words) + 1) << 16 | op, *words]


class ModuleBuilder:
    """One SPIR-V module. Sections fill in any order; `words()` joins them in the specification's
    order (capabilities, extensions, imports, memory model, entry points, execution modes,
    debug names, decorations, types/constants/globals, functions)."""

    def __init__(self, version: tuple[int, int], names: bool = True):
        self.version = version
        self.keep_names = names
        self.bound = 1
        self.capabilities: set[Capability] = {Capability.Shader}
        self.extensions: set[str] = set()
        self.entry_points: list[int] = []
        self.execution_modes: list[int] = []
        self.names: list[int] = []
        self.annotations: list[int] = []
        self.globals: list[int] = []
        self.functions: list[int] = []
        self._declared: dict[tuple, int] = {}
        self._glsl: int | None = None

    def id(self) -> int:
        self.bound += 1
        return self.bound - 1

    def name(self, target: int, text: str) -> None:
        if self.keep_names:
            self.names += instruction(Op.Name, target, text)

    def decorate(self, target: int, decoration: Decoration, *values: int) -> None:
        self.annotations += instruction(Op.Decorate, target, decoration, values)

    def member_decorate(self, struct_id: int, member: int, decoration: Decoration,
                        *values: int) -> None:
        self.annotations += instruction(Op.MemberDecorate, struct_id, member, decoration, values)

    def glsl(self) -> int:
        """The id of the GLSL.std.450 extended instruction set, imported on first use."""
        if self._glsl is None:
            self._glsl = self.id()
        return self._glsl

    # -- types and constants, each declared once -----------------------------------------------

    def _declare(self, key: tuple, op: Op, *operands: Operand) -> int:
        """The id of the type or constant `key`, declared by `op` on first use. A constant's
        first operand is its type, which comes before its result id."""
        found = self._declared.get(key)
        if found is None:
            found = self._declared[key] = self.id()
            if op in (Op.Constant, Op.ConstantTrue, Op.ConstantFalse):
                self.globals += instruction(op, operands[0], found, *operands[1:])
            else:
                self.globals += instruction(op, found, *operands)
        return found

    def declares_scalar(self, t: Type) -> bool:
        """Whether a scalar type of t's kind and width is declared (either signedness)."""
        if t.is_float():
            return ("float", t.bits) in self._declared
        return any(("int", t.bits, signed) in self._declared for signed in (False, True))

    def void(self) -> int:
        return self._declare(("void",), Op.TypeVoid)

    def bool(self) -> int:
        return self._declare(("bool",), Op.TypeBool)

    def int(self, bits: int, signed: bool) -> int:
        return self._declare(("int", bits, signed), Op.TypeInt, bits, int(signed))

    def float(self, bits: int) -> int:
        return self._declare(("float", bits), Op.TypeFloat, bits)

    def vector(self, element: int, lanes: int) -> int:
        return self._declare(("vector", element, lanes), Op.TypeVector, element, lanes)

    def type(self, t: Type) -> int:
        """The SPIR-V type of an IR type (a vector of its lanes when it has several)."""
        if t.lanes > 1:
            return self.vector(self.type(t.element_of()), t.lanes)
        if t.is_bool():
            return self.bool()
        if t.is_float():
            return self.float(t.bits)
        return self.int(t.bits, t.is_int())

    def pointer(self, storage: StorageClass, pointee: int) -> int:
        return self._declare(("pointer", storage, pointee), Op.TypePointer, storage, pointee)

    def function_type(self, result: int, *params: int) -> int:
        return self._declare(("function", result, params), Op.TypeFunction, result, params)

    def array(self, element: int, length: int, stride: int | None = None) -> int:
        n = self.constant_of(self.int(32, False), length)
        found = self._declare(("array", element, n, stride), Op.TypeArray, element, n)
        if stride is not None and ("stride", found) not in self._declared:
            self._declared[("stride", found)] = found
            self.decorate(found, Decoration.ArrayStride, stride)
        return found

    def runtime_array(self, element: int, stride: int) -> int:
        found = self._declare(("runtime_array", element, stride), Op.TypeRuntimeArray, element)
        if ("stride", found) not in self._declared:
            self._declared[("stride", found)] = found
            self.decorate(found, Decoration.ArrayStride, stride)
        return found

    def struct(self, *members: int) -> int:
        """A new struct type (never shared: its decorations are its own)."""
        result = self.id()
        self.globals += instruction(Op.TypeStruct, result, members)
        return result

    def constant_of(self, type_id: int, value: int) -> int:
        """An integer constant of a 32-bit (or narrower) integer type, by value."""
        return self._declare(("const", type_id, value & 0xFFFFFFFF), Op.Constant, type_id,
                             value & 0xFFFFFFFF)

    def constant(self, t: Type, value) -> int:
        """A constant of scalar IR type t, bit-exact."""
        tid = self.type(t)
        if t.is_bool():
            op = Op.ConstantTrue if value else Op.ConstantFalse
            return self._declare(("bool", bool(value)), op, tid)
        if t.is_float():
            fmt = {16: "<e", 32: "<f", 64: "<d"}[t.bits]
            bits = int.from_bytes(struct.pack(fmt, value), "little")
        else:
            bits = int(value) & ((1 << t.bits) - 1)
            if t.is_int() and t.bits < 32 and bits >> (t.bits - 1):
                bits |= (0xFFFFFFFF << t.bits) & 0xFFFFFFFF  # narrow signed: sign-extended
        words = [bits & 0xFFFFFFFF] + ([bits >> 32] if t.bits == 64 else [])
        return self._declare(("const", tid, *words), Op.Constant, tid, words)

    def variable(self, storage: StorageClass, pointee: int) -> int:
        """A module-scope variable (not shared: each has its own decorations)."""
        result = self.id()
        self.globals += instruction(Op.Variable, self.pointer(storage, pointee), result, storage)
        return result

    def spec_constant(self, t: Type, default: int, spec_id: int) -> int:
        result = self.id()
        self.globals += instruction(Op.SpecConstant, self.type(t), result, default)
        self.decorate(result, Decoration.SpecId, spec_id)
        return result

    # -- the binary ----------------------------------------------------------------------------

    def words(self) -> list[int]:
        major, minor = self.version
        glsl = [] if self._glsl is None else \
            instruction(Op.ExtInstImport, self._glsl, "GLSL.std.450")
        body = [*(w for c in sorted(self.capabilities) for w in instruction(Op.Capability, c)),
                *(w for e in sorted(self.extensions) for w in instruction(Op.Extension, e)),
                *glsl,
                *instruction(Op.MemoryModel, ADDRESSING_LOGICAL, MEMORY_MODEL_GLSL450),
                *self.entry_points, *self.execution_modes, *self.names, *self.annotations,
                *self.globals, *self.functions]
        return [MAGIC, major << 16 | minor << 8, GENERATOR, self.bound, 0, *body]

    def binary(self) -> bytes:
        words = self.words()
        return struct.pack(f"<{len(words)}I", *words)
