"""Bytes per element of weight and KV dtypes, and the compute dtype a GEMM runs in.

Block-quantised formats carry their scales: GGUF ``q8_0`` stores 32 int8 values
plus one fp16 scale (34 bytes / 32 weights = 8.5 bits), ``q4_0`` 18 bytes / 32
(4.5 bits), ``q4_k_m`` ≈ 4.85 bits, ``q5_k_m`` ≈ 5.69 bits and ``q6_k`` 6.5625
bits per weight (llama.cpp's quantisation table, ``ggml-quants`` block layouts);
``mxfp4`` (OCP Microscaling spec) stores 32 fp4 values plus an 8-bit shared
exponent (4.25 bits); ``fp4`` is NVIDIA's NVFP4 (what ModelOpt's FP4 checkpoints
and Blackwell's fp4 tensor cores use): 16 E2M1 values plus one FP8 E4M3 scale, 72
bits per 16 weights (4.5 bits; the per-tensor FP32 scale is negligible); ``int4``
is the group-quantised AWQ / GPTQ layout at its usual group size 128: 128 4-bit
weights plus one fp16 scale and one packed 4-bit zero point (``qzeros``) per group,
4 + 20 / 128 = 4.156 bits.
"""

from __future__ import annotations

BYTES_PER_ELEMENT: dict[str, float] = {
    "fp32": 4.0,
    "tf32": 4.0,
    "bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    "q8_0": 34 / 32,
    "q6_k": 6.5625 / 8,
    "q5_k_m": 5.69 / 8,
    "q4_k_m": 4.85 / 8,
    "q4_0": 18 / 32,
    "int4": (128 * 4 + 16 + 4) / 128 / 8,
    "fp4": 4.5 / 8,
    "mxfp4": 4.25 / 8,
}

# Peak-rate ratios relative to bf16 dense tensor throughput, used only to derive
# a missing dtype from one a datasheet does give (Hopper/Blackwell/CDNA3 datasheets
# all double the rate at each halving of width: fp8 = 2 x bf16, fp4 = 4 x bf16).
RATE_VS_BF16: dict[str, float] = {
    "fp32": 0.5,
    "tf32": 0.5,
    "bf16": 1.0,
    "fp16": 1.0,
    "fp8": 2.0,
    "int8": 2.0,
    "fp4": 4.0,
    "int4": 4.0,
}

_HF_TORCH_DTYPES = {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32", "float": "fp32", "half": "fp16"}


def bytes_per(dtype: str) -> float:
    """Bytes of one element of ``dtype`` (case-insensitive)."""
    key = dtype.lower()
    if key not in BYTES_PER_ELEMENT:
        raise ValueError(f"unknown dtype {dtype!r}; known: {', '.join(sorted(BYTES_PER_ELEMENT))}")
    return BYTES_PER_ELEMENT[key]


def from_torch_dtype(name: str | None) -> str | None:
    """HF ``torch_dtype`` (``bfloat16``) → servescope dtype (``bf16``)."""
    if name is None:
        return None
    return _HF_TORCH_DTYPES.get(name.lower().removeprefix("torch."))


def kv_dtype_for(kv_dtype: str, weight_dtype: str, model_dtype: str | None = None) -> str:
    """What ``kv_dtype: auto`` means: the model's activation dtype (vLLM's rule,
    ``--kv-cache-dtype auto`` = model dtype), never a weight-only quantised format."""
    if kv_dtype != "auto":
        return kv_dtype
    if weight_dtype in ("fp32",):
        return "fp32"
    if weight_dtype in ("bf16", "fp16"):
        return weight_dtype
    return model_dtype if model_dtype in ("bf16", "fp16", "fp32") else "bf16"


def compute_dtype_for(weight_dtype: str) -> str:
    """The tensor-core dtype GEMMs run in: W8A8 fp8/int8 and fp4 run natively;
    weight-only formats (int4 AWQ/GPTQ, GGUF k-quants, mxfp4 on pre-Blackwell)
    are dequantised and multiplied in 16-bit; fp32 stays fp32."""
    if weight_dtype in ("fp8", "int8", "fp4", "fp32"):
        return weight_dtype
    return "bf16"
