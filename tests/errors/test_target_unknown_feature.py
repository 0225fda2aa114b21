"""A target string or feature that webhal does not know."""

import webhal as hl

from ._util import expect_error


def test_misspelt_feature():
    with expect_error(hl.TargetError, "unknown target feature 'avx3'", "x86-64-linux-avx3",
                      "Did you mean 'avx'"):
        hl.Target("x86-64-linux-avx3")


def test_unknown_feature_added():
    target = hl.Target("wasm-32-wasmrt")
    with expect_error(hl.TargetError, "unknown target feature 'simd'", "wasm_simd128"):
        target.with_feature("simd")
