"""How many tokens of KV cache a replica holds, from its memory.

vLLM's rule (``gpu_memory_utilization``): of each device's memory, the engine may
use ``utilization * memory``; weights and the activation peak of a profiling
forward pass (``max_num_batched_tokens`` tokens) come off first, plus the
runtime's own reserve (CUDA context, CUDA graphs, NCCL buffers); the rest is cut
into KV blocks of ``block_size`` tokens. Engines that preallocate a fixed
context instead (llama.cpp ``--ctx-size``) pass ``fixed_tokens``.

The activation and runtime reserves are estimates, stated here:

- activations: per batched token, the widest live tensors of one layer in the
  activation dtype: the gated MLP's ``2 * intermediate / tp``, the q/k/v
  projections ``(heads + 2 * kv_heads) * head_dim / tp`` and four copies of the
  hidden state; plus fp32 logits for ``max_num_seqs`` rows of the vocabulary;
- runtime reserve: 1 GiB per GPU (CUDA context and graphs, NCCL), 0 on CPUs; vLLM's V0
  engine (graphs captured after the pool is sized): its logged non-torch memory, 0.35 GiB;
- SGLang: ``mem_fraction_static`` of what is free before its weights load (the device less
  its setup: CUDA context, and from tp 4 NCCL's NVLS buffers, ``SGLANG_SETUP_BYTES``), less the
  weights; its activations and CUDA graphs live in the fraction's complement;
- the driver's own reserve: CUDA exposes ~0.5 GiB less than ``nvidia-smi``'s total
  (vLLM logs ``total_gpu_memory`` 79.11-79.33 GiB on H100 80GB HBM3, whose nvidia-smi
  total is 81,559 MiB = 79.65 GiB; 23.58 GiB on an RTX 3090 of 24,576 MiB, vLLM issue
  #10517), and the engines' fractions are of what CUDA exposes.

vLLM's V0 engine (releases before 0.8) profiles with chunked prefill off for
contexts up to 32k, so its activation peak is that of ``max_model_len`` tokens at once
(``profile_tokens``; seen in vLLM issue #10517: 2.07 GiB for Llama 3.1 8B at 20k tokens,
this estimate 2.0 GiB).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from servescope.predict.step_time import StepTimeModel

GIB = 1024**3
GPU_RUNTIME_RESERVE_BYTES = 1.0 * GIB
#: What vLLM's V0 engine logs as non_torch_memory at tp 1 (median of seven public logs, 0.09-0.65 GiB);
#: V0 captured CUDA graphs after sizing its pool, so nothing else is reserved.
V0_RUNTIME_RESERVE_BYTES = 0.35 * GIB
CUDA_DRIVER_RESERVE_BYTES = 0.5 * GIB
#: What SGLang holds before it loads weights (CUDA context, NCCL), read from its "Load weight begin. avail
#: mem=" line against the device's memory: 78.32-78.81 GiB on an H100 at tp 1-2 (five public logs,
#: 2025-01 to 2026-08; median 78.43 against 79.15), 137.29 GiB on an H200 at tp 8 (sgl-project/sglang
#: PR #11716's log; against 139.90), where NCCL's NVLink SHARP buffers come in beside the context.
SGLANG_SETUP_BYTES = 0.7 * GIB
SGLANG_SETUP_BYTES_TP4 = 2.6 * GIB


def sglang_setup_bytes(tp: int) -> float:
    """SGLang's memory in use before its weights load (``SGLANG_SETUP_BYTES``): tp 4 and more pay NCCL's NVLS buffers."""
    return SGLANG_SETUP_BYTES_TP4 if tp >= 4 else SGLANG_SETUP_BYTES


@dataclass(frozen=True)
class KvCapacity:
    """Per-device memory budget and the KV pool it leaves, in bytes and blocks."""

    device_memory_bytes: float
    usable_bytes: float
    weight_bytes: float
    activation_bytes: float
    reserve_bytes: float
    kv_pool_bytes: float
    kv_bytes_per_token: float
    block_size: int
    num_blocks: int
    state_bytes_per_sequence: float = 0.0
    """What one running sequence holds on a device whatever its length (0: none): a linear-attention
    state, and under a windowed engine its sliding-window layers' window of KV."""

    @property
    def tokens(self) -> int:
        return self.num_blocks * self.block_size

    @property
    def state_blocks(self) -> int:
        """Pool blocks each running sequence's linear-attention state takes: vLLM V1's hybrid
        KV manager allocates a request's state from the same pool as its KV pages
        (vllm/v1/core/single_type_kv_cache_manager.py ``MambaManager``: one state per request)."""
        per_block = self.block_size * self.kv_bytes_per_token
        return math.ceil(self.state_bytes_per_sequence / per_block) if self.state_bytes_per_sequence and per_block else 0

    @property
    def fits(self) -> bool:
        return self.num_blocks > 0

    @property
    def memory_used_bytes(self) -> float:
        return self.weight_bytes + self.activation_bytes + self.reserve_bytes + self.kv_pool_bytes


def activation_bytes(model: StepTimeModel, max_num_batched_tokens: int, max_num_seqs: int) -> float:
    a, tp = model.arch, model.tp
    mlp = 2 * a.expert_intermediate * a.experts_per_tok if a.experts else 2 * a.intermediate
    per_token = (mlp / tp + (a.heads + 2 * a.kv_heads) * a.head_dim / tp + 4 * a.hidden) * model.act_bytes
    logits = max_num_seqs * a.vocab * 4.0
    return max_num_batched_tokens * per_token + logits


def kv_capacity(
    model: StepTimeModel,
    *,
    gpu_memory_utilization: float = 0.9,
    block_size: int = 16,
    max_num_batched_tokens: int = 8192,
    max_num_seqs: int = 256,
    fixed_tokens: int | None = None,
    profile_tokens: int | None = None,
    rule: str = "vllm",
    reserve_bytes: float | None = None,
    max_tokens: int | None = None,
    windowed: bool = False,
) -> KvCapacity:
    """The KV pool of one replica (each of its devices holds 1/tp of every token's KV).

    ``rule``: ``vllm``: the fraction is of the device, and weights, activations and the
    runtime reserve come out of it; ``sglang``: ``mem_fraction_static`` is of the memory free
    before the weights load (the device less ``reserve_bytes``, SGLang's setup), and only the
    weights come out of it: ``profile_max_num_token`` takes the pool as the memory free after
    loading less ``free_before x (1 - fraction)``, so activations and CUDA graphs live in the
    rest (a log of SGLang's own docs, Llama 3.1 8B on an H100 at 0.88: 0.88 x 78.81 - 15.09 GiB
    is its 54.26 GiB of K and V; kv_pool_check.py); ``trt-llm``: TensorRT-LLM's ``free_gpu_memory_fraction`` is of the memory
    still free once weights, activations and the runtime are in place, and its
    ``max_tokens`` caps the pool (the smaller wins, its log says).

    ``windowed``: the engine keeps a sliding-window layer's KV only for the window (vLLM V1's
    hybrid KV cache manager frees the blocks that leave it, ``SlidingWindowManager``;
    TensorRT-LLM's per-layer ``max_attention_window``): the pool's tokens
    are then counted in full-attention bytes, and each running sequence holds its window's
    worth of the sliding layers' KV beside them, as a constant (``state_blocks``, like a
    linear-attention state; at most the window: a shorter sequence is charged the whole window)."""
    hw = model.hardware
    memory = hw.device_memory_bytes
    if hw.device_type == "gpu":
        memory -= CUDA_DRIVER_RESERVE_BYTES
    weights = model.weight_bytes_per_device
    per_token = model.kv_bytes_per_token_per_device
    state = model.state_bytes_per_sequence
    if windowed and model.window_bytes_per_sequence and model.kv_full_bytes_per_token_per_device:
        per_token = model.kv_full_bytes_per_token_per_device
        state += model.window_bytes_per_sequence
    if fixed_tokens is not None:
        blocks = fixed_tokens // block_size
        pool = blocks * block_size * per_token
        usable = memory
        acts = 0.0
        reserve = 0.0
        if weights + pool > memory:
            blocks = 0
    else:
        acts = activation_bytes(model, profile_tokens or max_num_batched_tokens, max_num_seqs)
        reserve = reserve_bytes if reserve_bytes is not None else GPU_RUNTIME_RESERVE_BYTES if hw.device_type != "cpu" else 0.0
        if rule == "trt-llm":
            usable = memory
            pool = max(0.0, (memory - weights - acts - reserve) * gpu_memory_utilization)
        elif rule == "sglang":
            acts = 0.0  # (the fraction's complement holds them)
            usable = (memory - reserve) * gpu_memory_utilization
            pool = max(0.0, usable - weights)
        else:
            usable = memory * gpu_memory_utilization
            pool = max(0.0, usable - weights - acts - reserve)
        blocks = math.floor(pool / (block_size * per_token)) if per_token > 0 else 0
        if max_tokens is not None and blocks * block_size > max_tokens:
            blocks = -(-max_tokens // block_size)
            pool = blocks * block_size * per_token
    return KvCapacity(
        device_memory_bytes=memory,
        usable_bytes=usable,
        weight_bytes=weights,
        activation_bytes=acts,
        reserve_bytes=reserve,
        kv_pool_bytes=pool,
        kv_bytes_per_token=per_token,
        block_size=block_size,
        num_blocks=blocks,
        state_bytes_per_sequence=state,
    )
