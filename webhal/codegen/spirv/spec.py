"""The numbers of the SPIR-V binary format that webhal writes: opcodes and the operand enums,
from the Khronos SPIR-V 1.6 specification and its GLSL.std.450 extended instruction set. Only
what the code generator uses is listed."""

from __future__ import annotations

import enum

MAGIC = 0x07230203
GENERATOR = 0  # no registered generator id: tools print "Unknown(0)"


class Op(enum.IntEnum):
    Name = 5
    MemberName = 6
    Extension = 10
    ExtInstImport = 11
    ExtInst = 12
    MemoryModel = 14
    EntryPoint = 15
    ExecutionMode = 16
    Capability = 17
    TypeVoid = 19
    TypeBool = 20
    TypeInt = 21
    TypeFloat = 22
    TypeVector = 23
    TypeArray = 28
    TypeRuntimeArray = 29
    TypeStruct = 30
    TypePointer = 32
    TypeFunction = 33
    ConstantTrue = 41
    ConstantFalse = 42
    Constant = 43
    ConstantComposite = 44
    SpecConstant = 50
    SpecConstantComposite = 51
    Function = 54
    FunctionEnd = 56
    Variable = 59
    Load = 61
    Store = 62
    AccessChain = 65
    Decorate = 71
    MemberDecorate = 72
    CompositeConstruct = 80
    CompositeExtract = 81
    ConvertFToU = 109
    ConvertFToS = 110
    ConvertSToF = 111
    ConvertUToF = 112
    UConvert = 113
    SConvert = 114
    FConvert = 115
    Bitcast = 124
    SNegate = 126
    FNegate = 127
    IAdd = 128
    FAdd = 129
    ISub = 130
    FSub = 131
    IMul = 132
    FMul = 133
    UDiv = 134
    SDiv = 135
    FDiv = 136
    UMod = 137
    SRem = 138
    IsNan = 156
    LogicalEqual = 164
    LogicalNotEqual = 165
    LogicalOr = 166
    LogicalAnd = 167
    LogicalNot = 168
    Select = 169
    IEqual = 170
    INotEqual = 171
    UGreaterThan = 172
    SGreaterThan = 173
    UGreaterThanEqual = 174
    SGreaterThanEqual = 175
    ULessThan = 176
    SLessThan = 177
    ULessThanEqual = 178
    SLessThanEqual = 179
    FOrdEqual = 180
    FUnordNotEqual = 183
    FOrdLessThan = 184
    FOrdGreaterThan = 186
    FOrdLessThanEqual = 188
    FOrdGreaterThanEqual = 190
    ShiftRightLogical = 194
    ShiftRightArithmetic = 195
    ShiftLeftLogical = 196
    BitwiseOr = 197
    BitwiseXor = 198
    BitwiseAnd = 199
    Not = 200
    BitCount = 205
    ControlBarrier = 224
    AtomicLoad = 227
    AtomicStore = 228
    AtomicAnd = 240
    AtomicOr = 241
    LoopMerge = 246
    SelectionMerge = 247
    Label = 248
    Branch = 249
    BranchConditional = 250
    Return = 253
    ExecutionModeId = 331


class Capability(enum.IntEnum):
    Shader = 1
    Float16 = 9
    Float64 = 10
    Int64 = 11
    Int16 = 22
    Int8 = 39
    StorageBuffer16BitAccess = 4433
    StorageBuffer8BitAccess = 4448


class StorageClass(enum.IntEnum):
    Input = 1
    Uniform = 2
    Workgroup = 4
    Function = 7
    PushConstant = 9
    StorageBuffer = 12


class Decoration(enum.IntEnum):
    SpecId = 1
    Block = 2
    BufferBlock = 3
    ArrayStride = 6
    BuiltIn = 11
    NonWritable = 24
    Binding = 33
    DescriptorSet = 34
    Offset = 35


class BuiltIn(enum.IntEnum):
    WorkgroupId = 26
    LocalInvocationId = 27


class Scope(enum.IntEnum):
    Device = 1
    Workgroup = 2


class Semantics(enum.IntFlag):
    Relaxed = 0
    AcquireRelease = 0x8
    WorkgroupMemory = 0x100


EXECUTION_MODEL_GLCOMPUTE = 5
ADDRESSING_LOGICAL = 0
MEMORY_MODEL_GLSL450 = 1
EXECUTION_MODE_LOCAL_SIZE = 17
EXECUTION_MODE_LOCAL_SIZE_ID = 38


class GLSL(enum.IntEnum):
    """GLSL.std.450 instruction numbers."""

    RoundEven = 2
    Trunc = 3
    FAbs = 4
    SAbs = 5
    Floor = 8
    Ceil = 9
    Sin = 13
    Cos = 14
    Tan = 15
    Asin = 16
    Acos = 17
    Atan = 18
    Sinh = 19
    Cosh = 20
    Tanh = 21
    Asinh = 22
    Acosh = 23
    Atanh = 24
    Atan2 = 25
    Pow = 26
    Exp = 27
    Log = 28
    Sqrt = 31
    UMin = 38
    SMin = 39
    UMax = 41
    SMax = 42
    PackHalf2x16 = 58
    UnpackHalf2x16 = 62
    FindILsb = 73
    FindUMsb = 75
