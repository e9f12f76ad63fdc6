"""SGLang's scheduler (``sglang``), as its event loop runs by default (sgl-project/sglang
python/sglang/srt/managers/scheduler.py ``get_next_batch_to_run`` and
schedule_policy.py ``PrefillAdder``, 0.4-0.5), on top of ``vllm-v1``'s block accounting:

- **Prefill first, alone.** Whenever a prefill batch can be formed - the chunked request
  in progress, or waiting requests the adder takes - it runs as an ``extend`` pass of its
  own, up to ``chunked_prefill_size`` tokens, and the decoding sequences sit it out (no
  token, no KV growth: the gap is in their ITL). Only when no prefill batch forms does
  every running sequence decode. ``--enable-mixed-chunk`` mixes the two (then
  ``vllm-v1`` schedules it).
- **Admission reserves output.** A request joins only while the free KV tokens cover its
  prompt plus its max output (clipped at ``CLIP_MAX_NEW_TOKENS``), beside what the batch
  already took and ``new_token_ratio`` x every running request's remaining output. The
  ratio starts at ``INIT_NEW_TOKEN_RATIO`` x ``--schedule-conservativeness``, falls by
  ``(init - init x MIN_FACTOR) / DECAY_STEPS`` per decode iteration to its floor, returns
  to the start when the engine idles, and after a retraction (a decode that found no KV:
  ``vllm-v1``'s recompute preemption) becomes the running requests' (decoded +
  ``RETRACT_DECODE_STEPS`` each) / (max output + 1).

Constants are SGLang's defaults (``global_config`` / ``envs``:
``SGLANG_INIT_NEW_TOKEN_RATIO`` 0.7, ``SGLANG_MIN_NEW_TOKEN_RATIO_FACTOR`` 0.14,
``SGLANG_NEW_TOKEN_RATIO_DECAY_STEPS`` 600, ``SGLANG_CLIP_MAX_NEW_TOKENS_ESTIMATION`` 4096,
``SGLANG_RETRACT_DECODE_STEPS`` 20). Not modelled: the radix cache's longest-prefix-first
ordering (requests are taken first come, first served, SGLang's ``fcfs``), its retraction
order (the most recently admitted request goes first here). Its overlap scheduler (on by
default) is the step model's (``step_time``'s ``overlap_host``), not the scheduler's.
"""

from __future__ import annotations

from servescope.predict.sim.replica import PlannedStep, Replica
from servescope.predict.sim.request import SimRequest
from servescope.predict.sim.scheduler import VllmV1Scheduler, register_scheduler

INIT_NEW_TOKEN_RATIO = 0.7
MIN_NEW_TOKEN_RATIO_FACTOR = 0.14
NEW_TOKEN_RATIO_DECAY_STEPS = 600
CLIP_MAX_NEW_TOKENS = 4096
RETRACT_DECODE_STEPS = 20


@register_scheduler("sglang")
class SglangScheduler(VllmV1Scheduler):
    limits_admission = True  # the new-token ratio's budget (``_room_for``)

    def __init__(self) -> None:
        self.init_ratio = self.min_ratio = self.decay = -1.0  # set from the engine at the first plan
        self._ratio: dict[int, float] = {}  # new_token_ratio of each replica (one SGLang scheduler each)
        # vllm-v1's hooks, as flags (read once per plan): a decode pass unless in a prefill pass
        self.decodes_run, self.prefills_run = True, False
        self._rem_tokens: float | None = None  # the adder's token budget in the plan under way
        self.ratio = 0.0  # the ratio of the replica being planned

    # --- the hooks vllm-v1's plan calls ---------------------------------------------
    def _room_for(self, r: Replica, req: SimRequest, todo: int) -> bool:
        if self._rem_tokens is None:
            self._rem_tokens = r.pool.free * r.block_size - self.ratio * self._running_left(r)
        total = todo + min(req.max_tokens - req.generated, CLIP_MAX_NEW_TOKENS)
        if total >= self._rem_tokens:
            return False
        self._rem_tokens -= total
        return True

    def _run_ahead(self, r: Replica, nd: int, chunks: list[tuple[int, int]], hold: int, new: list[int], new_base: list[int]) -> int:
        if self.prefills_run and r.n_decoding:
            return 1  # an extend pass: the decoders wait for the next iteration
        return super()._run_ahead(r, nd, chunks, hold, new, new_base)

    # --- one iteration ----------------------------------------------------------------
    def plan(self, r: Replica, now: int) -> PlannedStep | None:
        if self.init_ratio < 0:
            self.init_ratio = min(1.0, INIT_NEW_TOKEN_RATIO * r.engine.schedule_conservativeness)
            self.min_ratio = min(1.0, self.init_ratio * MIN_NEW_TOKEN_RATIO_FACTOR)
            self.decay = (self.init_ratio - self.min_ratio) / NEW_TOKEN_RATIO_DECAY_STEPS
        if not r.running_order and not r.waiting:
            self._ratio[r.index] = self.init_ratio  # idle: SGLang re-initialises the estimate
            return None
        self.ratio = self._ratio.get(r.index, self.init_ratio)
        try:
            return self._plan(r, now)
        finally:
            self._ratio[r.index] = self.ratio

    def _plan(self, r: Replica, now: int) -> PlannedStep | None:
        if r.prefilling or (r.waiting and r.free_slots):
            self.decodes_run, self.prefills_run, self._rem_tokens = False, True, None  # an extend pass
            try:
                step = super().plan(r, now)
            finally:
                self.decodes_run, self.prefills_run, self._rem_tokens = True, False, None
            if step is not None:
                r.pause_decoders(step.first_index)
                return step
        preempted = r.stats.preemptions
        step = super().plan(r, now)
        if step is not None:
            if r.stats.preemptions > preempted:
                self.ratio = self._retract_estimate(r)
            else:
                self.ratio = max(self.min_ratio, self.ratio - self.decay * step.k)
        return step

    @staticmethod
    def _progress(r: Replica) -> list[tuple[int, int]]:
        """(tokens still to generate, max output) of each running request."""
        out = []
        for slot in r.running_order:
            q = r.slot_req[slot]
            if q is not None:
                out.append((r.left_base[slot] - r.clock if r.decoding[slot] else q.max_tokens - q.generated, q.max_tokens))
        return out

    @classmethod
    def _running_left(cls, r: Replica) -> int:
        """Output tokens the running requests have still to generate (each clipped)."""
        return sum(min(left, CLIP_MAX_NEW_TOKENS) for left, _ in cls._progress(r))

    @classmethod
    def _retract_estimate(cls, r: Replica) -> float:
        progress = cls._progress(r)
        decoded = sum(most - left for left, most in progress)
        total = sum(most for _, most in progress)
        return min(1.0, (decoded + RETRACT_DECODE_STEPS * len(progress)) / (total + 1))
