"""One engine replica: its running sequences (as numpy slot arrays, so a decode
iteration costs O(1) Python work, not O(batch)), its waiting queue, its KV block
pool, the end time of every iteration it ran, and its statistics.

The scheduling *policy* (which requests an iteration takes) lives in
``scheduler``; this module owns the state and applies an iteration's effects.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

import numpy as np

from servescope.predict.deployment import EngineConfig
from servescope.predict.sim.kv_cache import BlockPool
from servescope.predict.sim.request import SimRequest
from servescope.predict.step_time import StepTimeModel


class LateWatch(Protocol):
    """Told of every measured request admitted ``late_ns`` or more after it was sent
    before its first token (``simulator.TtftGiveUp``)."""

    late_ns: int

    def late(self, req: SimRequest, now: int) -> None: ...


@dataclass(slots=True)
class PlannedStep:
    """``k`` consecutive iterations decided at ``start_ns``. The first may hold
    prefill chunks; the rest are decodes only. The replica's decoders decode in all
    k (only a plan changes who decodes); ``new_slots`` are prompts that the first
    iteration completes and that decode in the other k - 1 (their KV then holds
    ``new_base`` + j tokens after iteration j). A cut (``Replica.truncate``) shortens
    it in place and its new end event is pushed: that one pops first (it is earlier)
    and finishes the step, so the old one finds the step no longer pending."""

    start_ns: int
    first_index: int
    ends_ns: list[int]
    chunks: list[tuple[int, int]]
    kv_area: float
    new_slots: list[int] = field(default_factory=list)
    new_base: list[int] = field(default_factory=list)
    run_area: float = 0.0
    """KV block-time of the decode-only iterations (those an arrival can cut)."""
    replica: int = -1
    """The replica that runs it (``Simulation.run`` keeps the step itself in its heap as
    the step's end event: no ``StepEnd`` object per planned step)."""

    @property
    def k(self) -> int:
        return len(self.ends_ns)

    @property
    def end_ns(self) -> int:
        return self.ends_ns[-1]


@dataclass(slots=True)
class ReplicaStats:
    """Integrals over a window (reset at each measured phase)."""

    window_start_ns: int = 0
    busy_ns: int = 0
    kv_area: float = 0.0
    queue_area: float = 0.0
    queue_max: int = 0
    preemptions: int = 0
    prompt_tokens: int = 0
    hit_tokens: int = 0
    iterations: int = 0


class Replica:
    def __init__(self, index: int, engine: EngineConfig, step_model: StepTimeModel, pool: BlockPool) -> None:
        cap = engine.max_num_seqs
        self.index = index
        self.engine = engine
        self.model = step_model
        self.pool = pool
        self.block_size = engine.block_size
        # A decoding slot's KV tokens are ctx_base + clock and its tokens still to generate
        # left_base - clock: every decoder gains one token per iteration, so a step of k
        # iterations is one Python addition to ``clock`` instead of two array updates.
        self.clock = 0
        # (per-slot scalars as Python lists: a plan reads them one at a time, and a list
        # item costs a third of a numpy scalar's)
        self.ctx_base = [0] * cap
        self.left_base = [0] * cap
        # Blocks of a slot in prefill; a decoder's are derived (``blocks_of``): it holds
        # ceil((ctx_base + clock + ahead) / bs), ``ahead`` being the iterations a plan has
        # reserved KV for beyond the clock (0 between steps, 1 after step 1, k for a run).
        self.nblocks = [0] * cap
        self.ahead = 0
        # The decoders as running totals, so a plan costs O(block size) Python arithmetic,
        # not numpy calls on the batch: with ctx_base = bs * q + r (0 <= r < bs), the sum of
        # q, the count of each residue r, the sum of ctx_base; and a heap of
        # (left_base, serial, slot) - a decoder is done once left_base <= clock - whose
        # entries are live while ``dec_serial[slot]`` is their serial (preemption leaves
        # its entry behind, dead).
        self.dec_q_sum = 0
        self.dec_res = [0] * engine.block_size
        self.dec_cb_sum = 0
        self.dec_heap: list[tuple[int, int, int]] = []
        self.dec_serial = [0] * cap
        self._serial = 0
        # (a full-attention decode run's time needs only the batch size: a view of this stands in for the contexts)
        self.zeros = np.zeros(cap, dtype=np.int64)
        self.decoding = [False] * cap
        self.seg_start = [0] * cap
        self.slot_req: list[SimRequest | None] = [None] * cap
        self.free_slots: list[int] = list(range(cap - 1, -1, -1))
        self.running_order: list[int] = []
        self.n_decoding = 0
        self.prefilling: list[int] = []
        self.waiting: deque[SimRequest] = deque()
        self.step_ends = np.zeros(1024, dtype=np.int64)
        self._ends: list[int] = []
        self.n_steps = 0
        self.pending: PlannedStep | None = None
        self.stats = ReplicaStats()
        self._queue_since = 0
        # most sequences ever running at once: a max_num_seqs at least this large (with
        # this cap never reached) would have run the same simulation
        self.peak_running = 0
        self.watch: LateWatch | None = None

    # --- queue --------------------------------------------------------------------
    @property
    def load(self) -> int:
        return len(self.running_order) + len(self.waiting)

    def _queue_mark(self, now: int) -> None:
        """Account the queue length held since the last change (a length held for
        no time, e.g. a request admitted the instant it arrived, is not a queue)."""
        s = self.stats
        n = len(self.waiting)
        if now > self._queue_since:
            s.queue_area += n * (now - self._queue_since)
            if n > s.queue_max:
                s.queue_max = n
        self._queue_since = now

    def enqueue(self, req: SimRequest, now: int, front: bool = False) -> None:
        # (_queue_mark inline: it runs for every request that arrives)
        since = self._queue_since
        if now > since:
            s = self.stats
            n = len(self.waiting)
            s.queue_area += n * (now - since)
            if n > s.queue_max:
                s.queue_max = n
        self._queue_since = now
        req.enqueued_step = -1  # set by the first plan that sees it (a pending run may still be cut)
        if front:
            self.waiting.appendleft(req)
        else:
            self.waiting.append(req)

    def admit_next(self, now: int) -> int:
        """The queue's front leaves the queue and takes a free slot (returned)."""
        # (_queue_mark inline: it runs for every request admitted)
        since = self._queue_since
        waiting = self.waiting
        if now > since:
            s = self.stats
            n = len(waiting)
            s.queue_area += n * (now - since)
            if n > s.queue_max:
                s.queue_max = n
        self._queue_since = now
        req = waiting.popleft()
        watch = self.watch
        # a measured request admitted this late has its first token later still (search's give-up rule)
        if watch is not None and req.phase == "measured" and not req.generated and now - req.start_ns >= watch.late_ns:
            watch.late(req, now)
            # those still queued that were sent before it are later still (the queue is in arrival order)
            for other in waiting:
                if now - other.start_ns < watch.late_ns:
                    break
                if other.phase == "measured" and not other.generated:
                    watch.late(other, now)
        slot = self.free_slots.pop()
        self.slot_req[slot] = req
        req.slot = slot
        self.decoding[slot] = False
        running = self.running_order
        running.append(slot)
        self.prefilling.append(slot)
        if len(running) > self.peak_running:
            self.peak_running = len(running)
        return slot

    def reset_stats(self, now: int) -> None:
        self._queue_mark(now)
        self.stats = ReplicaStats(window_start_ns=now)
        self._queue_since = now

    def close_stats(self, now: int) -> ReplicaStats:
        """A snapshot of the window's statistics (later phases keep counting into the live object)."""
        self._queue_mark(now)
        return replace(self.stats)

    # --- decoders as running totals ------------------------------------------------
    def _stop_decoding(self, slot: int) -> None:
        cb = self.ctx_base[slot]
        q, rem = divmod(cb, self.block_size)
        self.dec_q_sum -= q
        self.dec_res[rem] -= 1
        self.dec_cb_sum -= cb
        serial = self.dec_serial
        serial[slot] = 0
        self.decoding[slot] = False
        self.n_decoding -= 1
        # its heap entry is dead now: the heap's front is kept live (min_left is then a peek)
        heap = self.dec_heap
        while heap and serial[heap[0][2]] != heap[0][1]:
            heapq.heappop(heap)

    def dec_blocks(self, t: int) -> int:
        """The decoders' blocks at ``t`` tokens past their bases: sum of ceil((ctx_base + t) / bs).
        With t = bs * Q + R, a decoder of residue r holds q + Q + ceil((r + R) / bs) blocks,
        and ceil((r + R) / bs) is 0 for r + R = 0, 2 for r + R > bs and 1 otherwise."""
        n = self.n_decoding
        if not n:
            return 0
        bs = self.block_size
        big, rem = divmod(t, bs)
        total = self.dec_q_sum + n * big + n
        if rem == 0:
            total -= self.dec_res[0]
        elif rem >= 2:
            total += sum(self.dec_res[bs + 1 - rem :])
        return total

    def dec_grow(self, t0: int, t1: int) -> int:
        """``dec_blocks(t1) - dec_blocks(t0)`` in one call (the sum of q cancels)."""
        n = self.n_decoding
        if not n:
            return 0
        bs, res = self.block_size, self.dec_res
        big1, rem1 = divmod(t1, bs)
        big0, rem0 = divmod(t0, bs)
        total = n * (big1 - big0)
        if rem1 and rem0:
            # (the common case: the two partial sums of residues below overlap, and their
            # difference is one shorter sum; for rem = 1 the slice from bs is empty)
            if rem1 >= rem0:
                return total + sum(res[bs + 1 - rem1 : bs + 1 - rem0])
            return total - sum(res[bs + 1 - rem0 : bs + 1 - rem1])
        if rem1 == 0:
            total -= res[0]
        elif rem1 >= 2:
            total += sum(res[bs + 1 - rem1 :])
        if rem0 == 0:
            total += res[0]
        elif rem0 >= 2:
            total -= sum(res[bs + 1 - rem0 :])
        return total

    def dec_on_boundary(self, t: int) -> int:
        """Decoders whose ctx_base + t is a multiple of the block size (their next token needs a new block)."""
        return self.dec_res[(-t) % self.block_size]

    def min_left(self) -> int:
        """Fewest tokens a decoder has left to generate (there is one): the heap's front,
        which is live (a stopped decoder's dead entries are popped once they reach it)."""
        return self.dec_heap[0][0] - self.clock

    def dec_contexts(self) -> np.ndarray:
        """The decoders' KV tokens, in ascending slot order (only sliding-window layers need them one by one)."""
        clock, ctx_base = self.clock, self.ctx_base
        return np.array([ctx_base[s] + clock for s, on in enumerate(self.decoding) if on], dtype=np.int64)

    def blocks_of(self, slot: int) -> int:
        if self.decoding[slot]:
            return -(-(self.ctx_base[slot] + self.clock + self.ahead) // self.block_size)
        return self.nblocks[slot]

    def _clear(self, slot: int) -> None:
        self.slot_req[slot] = None
        if self.decoding[slot]:
            self._stop_decoding(slot)
        self.nblocks[slot] = 0
        self.ctx_base[slot] = 0
        self.left_base[slot] = 0
        self.running_order.remove(slot)
        if slot in self.prefilling:
            self.prefilling.remove(slot)
        self.free_slots.append(slot)

    def release_blocks(self, slot: int, req: SimRequest) -> None:
        plain = self.blocks_of(slot) - len(req.hashed) + self.pool.state_blocks  # (its linear-attention state too)
        self.pool.release(plain, req.hashed)
        req.hashed = []

    def _cache_own_blocks(self, slot: int, req: SimRequest) -> None:
        """With prefix caching on, vLLM's V1 KV manager hashes every full block a request has
        computed, its own unique ones too, and freeing a preempted request returns them to the
        free queue with their hashes; re-admitted, the request finds the ones not yet evicted
        (``get_computed_blocks``) and recomputes only the rest (vllm-project/vllm
        vllm/v1/core/kv_cache_manager.py ``allocate_slots``/``free``, block_pool.py
        ``cache_full_blocks``/``free_blocks``, scheduler.py ``_preempt_request``). The blocks
        beyond the prompt's own hashes get ids of this request (negative: prompt hashes are
        unsigned), so no other request can hit them."""
        bs = self.block_size
        kv_tokens = self.ctx_base[slot] + self.clock if self.decoding[slot] else req.computed
        full = min(kv_tokens, req.target) // bs
        known = len(req.block_hashes)
        if full <= known:
            # a multi-turn session's turn has hashes past its prompt: its decoded full blocks are its session's
            done = req.computed // bs
            if full > done:
                req.hashed.extend(self.pool.register(req.block_hashes[done:full]))
            return
        own = tuple(-(1 + (req.index << 24) + b) for b in range(known, full))
        req.hashed.extend(self.pool.register(own))
        req.block_hashes = req.block_hashes + own

    def preempt(self, slot: int, now: int) -> SimRequest:
        """Recompute preemption: free every block, back to the front of the queue."""
        req = self.slot_req[slot]
        assert req is not None
        if self.decoding[slot]:
            req.generated = req.max_tokens - (self.left_base[slot] - self.clock)
            last = self.n_steps - 1
            if last >= self.seg_start[slot]:
                req.segments.append((self.seg_start[slot], last))
        req.target = req.prompt_tokens + req.generated
        if self.pool.prefix_caching:
            self._cache_own_blocks(slot, req)
        req.computed = 0
        req.preemptions += 1
        self.stats.preemptions += 1
        self.release_blocks(slot, req)
        self._clear(slot)
        req.slot = -1
        self.enqueue(req, now, front=True)
        return req

    def pause_decoders(self, first: int) -> None:
        """Every decoding sequence sits out iteration ``first`` (SGLang's prefill-only pass):
        no token and no KV growth there. The step still moves the clock on by one, so each
        decoder's bases move back one (KV base - 1, tokens-left base + 1) and the running
        totals with them, and its run of token iterations closes before ``first`` and
        resumes after it."""
        if not self.n_decoding:
            return
        res = self.dec_res
        self.dec_q_sum -= res[0]  # a base of residue 0 drops to the block below
        self.dec_res = res[1:] + res[:1]  # residue r -> r - 1, 0 -> bs - 1
        self.dec_cb_sum -= self.n_decoding
        self.dec_heap = [(left + 1, ser, slot) for left, ser, slot in self.dec_heap]  # (a uniform shift keeps it a heap)
        self.ahead = 1  # their blocks, unchanged, are those of clock + 1 on the shifted bases
        ctx_base, left_base, seg_start, slot_req = self.ctx_base, self.left_base, self.seg_start, self.slot_req
        for slot, on in enumerate(self.decoding):
            if not on:
                continue
            ctx_base[slot] -= 1
            left_base[slot] += 1
            start = seg_start[slot]
            if start <= first - 1:
                req = slot_req[slot]
                assert req is not None
                req.segments.append((start, first - 1))
            seg_start[slot] = first + 1

    # --- iterations ---------------------------------------------------------------
    def record_ends(self, first: int, ends: list[int]) -> None:
        # (a Python list while the run goes: one list extend per step instead of a numpy
        # write; ``seal_ends`` makes the array once it ends)
        lst = self._ends
        if first == len(lst):
            lst += ends
        else:
            if first > len(lst):  # (not reached: steps finish in order)
                lst += [0] * (first - len(lst))
            lst[first:] = ends

    def seal_ends(self) -> None:
        """The iteration end times as an array (zeros past the last finished step, as before)."""
        lst = self._ends
        size = 1024
        while size < len(lst) or size < self.n_steps:
            size *= 2
        arr = np.zeros(size, dtype=np.int64)
        arr[: len(lst)] = np.fromiter(lst, dtype=np.int64, count=len(lst))  # (half the time of assigning the list)
        self.step_ends = arr

    def truncate(self, now: int) -> PlannedStep | None:
        """Cut the pending decode run at the first iteration boundary at or after
        ``now`` (a new request can join there). Returns the step, shortened in place
        (its end event at the old end is then stale), or None when it already ends there."""
        step = self.pending
        if step is None:
            return None
        ends = step.ends_ns
        k = len(ends)
        if k <= 1:
            return None
        j = bisect_left(ends, now)  # (np.searchsorted's side="left")
        keep = j + 1
        if keep >= k:
            return None
        last = ends[-1]
        dropped_ns = last - ends[keep - 1]
        span = last - (step.start_ns if not step.chunks else ends[0])
        dropped_area = step.run_area * dropped_ns / (span if span > 1 else 1)  # (/ max(1, span))
        stats = self.stats
        stats.busy_ns -= dropped_ns
        stats.kv_area -= dropped_area
        stats.iterations -= k - keep
        # give back the blocks reserved for the iterations that will not run
        bs = self.block_size
        if self.n_decoding:
            self.pool.free -= self.dec_grow(self.clock + self.ahead, self.clock + keep)  # (dec_blocks(ahead) - dec_blocks(keep))
        self.ahead = keep
        n = step.new_slots
        if n:
            nblocks, new_base = self.nblocks, step.new_base
            back = 0
            for i in range(len(n)):  # (by index: zip(..., strict=True) costs ~0.1 us more)
                slot = n[i]
                kept = -(-(new_base[i] + keep) // bs)
                back += nblocks[slot] - kept
                nblocks[slot] = kept
            self.pool.free += back
        del ends[keep:]
        step.kv_area -= dropped_area
        step.run_area -= dropped_area
        self.n_steps = step.first_index + keep
        return step

    def finish(self, step: PlannedStep) -> Sequence[SimRequest]:
        """Apply a finished step; return the requests that completed."""
        ends = step.ends_ns
        k = len(ends)
        first = step.first_index
        lst = self._ends
        if first == len(lst):  # (record_ends' common case, inline)
            lst += ends
        else:
            self.record_ends(first, ends)
        last = first + k - 1
        clock = self.clock = self.clock + k
        self.ahead = 0
        pool = self.pool
        bs = self.block_size
        caching = pool.prefix_caching
        for slot, q in step.chunks:
            req = self.slot_req[slot]
            assert req is not None
            before = req.computed
            req.computed = before + q
            if caching and req.block_hashes:
                done_before = before // bs
                upto = min(req.computed // bs, len(req.block_hashes))
                if upto > done_before:
                    req.hashed.extend(pool.register(req.block_hashes[done_before:upto]))
            if req.computed >= req.target:
                req.generated += 1
                self.prefilling.remove(slot)
                self.seg_start[slot] = first
                # it decoded in the step's other k - 1 iterations (new_slots; all the
                # step's prompts complete when k > 1); it holds ceil((computed + k - 1) / bs) blocks:
                # it starts decoding with these bases: the slot joins the running totals and the
                # completion heap (inline here, its one place: once per request)
                ctx_b = req.computed + (k - 1) - clock
                left_b = req.max_tokens - req.generated - (k - 1) + clock
                self.decoding[slot] = True
                self.n_decoding += 1
                self.ctx_base[slot] = ctx_b
                self.left_base[slot] = left_b
                q_, rem = divmod(ctx_b, bs)
                self.dec_q_sum += q_
                self.dec_res[rem] += 1
                self.dec_cb_sum += ctx_b
                ser = self._serial = self._serial + 1
                self.dec_serial[slot] = ser
                heapq.heappush(self.dec_heap, (left_b, ser, slot))
        # the decoders done (left_base <= clock: the heap's front); in ascending slot
        # order, as a scan of all slots gives
        heap, serial = self.dec_heap, self.dec_serial
        if not heap or heap[0][0] > clock:  # (most steps: none; the front is live)
            self.pending = None
            return ()
        done: list[SimRequest] = []
        finished: list[int] = []
        while heap:
            left_base, ser, slot = heap[0]
            if serial[slot] != ser:
                heapq.heappop(heap)
            elif left_base <= clock:
                heapq.heappop(heap)
                finished.append(slot)
            else:
                break
        if len(finished) > 1:
            finished.sort()
        if finished:
            slot_req, seg_start, ctx_base = self.slot_req, self.seg_start, self.ctx_base
            res, running_order = self.dec_res, self.running_order
            q_sum = cb_sum = 0
            for slot in finished:
                req = slot_req[slot]
                assert req is not None
                req.segments.append((seg_start[slot], last))
                req.generated = req.max_tokens
                req.done = True
                cb = ctx_base[slot]
                if req.hashed:
                    self.release_blocks(slot, req)
                else:  # (release_blocks without cached blocks: a decoder holds ceil((ctx_base + clock) / bs), ahead being 0 here)
                    pool.free += -(-(cb + clock) // bs) + pool.state_blocks
                # _clear and _stop_decoding inline (once per completion; a decoder is not
                # among the prefilling), the running totals' sums taken off once below
                q, rem = divmod(cb, bs)
                q_sum += q
                res[rem] -= 1
                cb_sum += cb
                serial[slot] = 0
                self.decoding[slot] = False
                slot_req[slot] = None
                self.nblocks[slot] = 0
                ctx_base[slot] = 0
                self.left_base[slot] = 0
                running_order.remove(slot)
                self.free_slots.append(slot)
                done.append(req)
            self.dec_q_sum -= q_sum
            self.dec_cb_sum -= cb_sum
            self.n_decoding -= len(finished)
        self.pending = None
        return done
