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
- runtime reserve: 1 GiB per GPU (CUDA context and graphs, NCCL), 0 on CPUs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from servescope.predict.step_time import StepTimeModel

GIB = 1024**3
GPU_RUNTIME_RESERVE_BYTES = 1.0 * GIB


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

    @property
    def tokens(self) -> int:
        return self.num_blocks * self.block_size

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
) -> KvCapacity:
    """The KV pool of one replica (each of its devices holds 1/tp of every token's KV)."""
    hw = model.hardware
    memory = hw.device_memory_bytes
    weights = model.weight_bytes_per_device
    per_token = model.kv_bytes_per_token_per_device
    if fixed_tokens is not None:
        blocks = fixed_tokens // block_size
        pool = blocks * block_size * per_token
        usable = memory
        acts = 0.0
        reserve = 0.0
        if weights + pool > memory:
            blocks = 0
    else:
        usable = memory * gpu_memory_utilization
        acts = activation_bytes(model, max_num_batched_tokens, max_num_seqs)
        reserve = GPU_RUNTIME_RESERVE_BYTES if hw.device_type != "cpu" else 0.0
        pool = max(0.0, usable - weights - acts - reserve)
        blocks = int(math.floor(pool / (block_size * per_token))) if per_token > 0 else 0
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
    )
