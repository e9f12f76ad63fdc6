"""Bytes per weight of the block-scaled formats: each carries its scales."""

from __future__ import annotations

import pytest

from servescope.predict.dtypes import bytes_per


def test_block_formats_carry_their_scales() -> None:
    # NVFP4: 16 E2M1 values + one FP8 E4M3 scale = 72 bits per 16 weights
    assert bytes_per("fp4") == pytest.approx((16 * 4 + 8) / 16 / 8)
    # MXFP4 (OCP): 32 E2M1 values + one E8M0 exponent = 136 bits per 32 weights
    assert bytes_per("mxfp4") == pytest.approx((32 * 4 + 8) / 32 / 8)
    # AWQ / GPTQ, group size 128: an fp16 scale and a 4-bit zero per 128 weights
    assert bytes_per("int4") == pytest.approx((128 * 4 + 16 + 4) / 128 / 8)
    # GGUF q4_0: 32 nibbles + one fp16 scale = 18 bytes per 32 weights
    assert bytes_per("q4_0") == pytest.approx(18 / 32)
    assert bytes_per("FP8") == 1.0 and bytes_per("bf16") == 2.0
    with pytest.raises(ValueError, match="unknown dtype"):
        bytes_per("fp3")
