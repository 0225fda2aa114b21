"""Halide's names for what ahead-of-time compilation writes: hl.OutputFileType (the keys of
compile_to's dict) and hl.StmtOutputFormat (compile_to_lowered_stmt's format)."""

from __future__ import annotations

import enum


class StmtOutputFormat(enum.Enum):
    Text = 0
    HTML = 1


class OutputFileType(enum.Enum):
    """Every member of Halide's enum; compile_to writes those in webhal.aot.OUTPUT_FILES and
    refuses the others by name."""

    assembly = "assembly"
    bitcode = "bitcode"
    c_header = "c_header"
    c_source = "c_source"
    compiler_log = "compiler_log"
    cpp_stub = "cpp_stub"
    featurization = "featurization"
    function_info_header = "function_info_header"
    hlpipe = "hlpipe"
    llvm_assembly = "llvm_assembly"
    object = "object"
    python_extension = "python_extension"
    pytorch_wrapper = "pytorch_wrapper"
    registration = "registration"
    schedule = "schedule"
    static_library = "static_library"
    stmt = "stmt"
    conceptual_stmt = "conceptual_stmt"
    stmt_html = "stmt_html"
    conceptual_stmt_html = "conceptual_stmt_html"
    device_code = "device_code"
