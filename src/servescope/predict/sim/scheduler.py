"""Scheduling policies, registered by name. ``vllm-v1`` is continuous batching
as vLLM's v1 scheduler does it, per iteration:

1. every running sequence in decode gets one token; a sequence that needs a new
   KV block when none is free preempts the most recently admitted running
   request (recompute: its blocks are freed, it goes back to the front of the
   queue and later prefills prompt + generated tokens again);
2. running sequences still in prefill get the next chunk of their prompt, up to
   the token budget left (``max_num_batched_tokens``);
3. if nothing was preempted, waiting requests are admitted in order while a
   sequence slot (``max_num_seqs``), budget and KV blocks remain; a request's
   leading blocks found in the prefix cache are not recomputed (at least one
   token always is, as in vLLM).

Under TensorRT-LLM's default capacity policy (``EngineConfig.reserve_to_completion``,
GUARANTEED_NO_EVICT) step 3 admits a request only while the blocks of every running
request's prompt plus max output, and its own, fit in the pool, so step 1 never preempts.
A preempted request's computed blocks stay in the prefix cache when prefix caching is on
(``Replica._cache_own_blocks``, as vLLM's V1 KV manager does).

With TensorRT-LLM's batch waiting (engine args ``batch_wait_timeout_iters`` and
``batch_wait_max_tokens_ratio``), step 3 is skipped while decodes run, the batch
would hold fewer than ratio x budget tokens, and the oldest waiting request has
been seen by fewer than that many iterations.

Decodes are served before prefill chunks (vLLM walks its running list in
admission order; the difference only shows when a budget smaller than the
batch splits it). When an iteration holds only decodes and no request can join
— or when it completes every prompt in flight and nobody waits — the decode-only
iterations after it until the first completion (or until KV blocks run out) are
planned with it as one step and timed with one vectorised call; an arrival that
could join cuts such a step at the next iteration boundary. Deciding every
iteration afresh gives the same times (tested); this is what makes the
simulation's cost grow with events, not tokens.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from servescope.predict.sim.kv_cache import BlockPool
from servescope.predict.sim.replica import PlannedStep, Replica
from servescope.predict.sim.request import SimRequest

MAX_RUN = 1 << 16
_SHORT_RUN = 32  # iterations up to which a run's end times are summed in plain Python (numpy's per-call cost dominates)
_EMPTY = np.zeros(0, dtype=np.int64)


class Scheduler(Protocol):
    def plan(self, replica: Replica, now: int) -> PlannedStep | None: ...


SCHEDULERS: dict[str, Callable[[], Scheduler]] = {}


def register_scheduler(name: str) -> Callable[[Callable[[], Scheduler]], Callable[[], Scheduler]]:
    def wrap(factory: Callable[[], Scheduler]) -> Callable[[], Scheduler]:
        SCHEDULERS[name] = factory
        return factory

    return wrap


def make_scheduler(name: str) -> Scheduler:
    try:
        return SCHEDULERS[name]()
    except KeyError:
        raise ValueError(f"unknown scheduler {name!r}; known: {', '.join(sorted(SCHEDULERS))}") from None


def _take(pool: BlockPool, n: int) -> None:
    """Allocate blocks the plan has already checked for; failing is a bug, not a state."""
    if not pool.allocate(n):
        _accounting_error(pool, n)


def _accounting_error(pool: BlockPool, n: int) -> None:
    raise RuntimeError(f"KV accounting error: {n} blocks planned, {pool.free} free")


@register_scheduler("vllm-v1")
class VllmV1Scheduler:
    #: ``_room_for`` can refuse an admission (vLLM's never does: the admission loop skips the call)
    limits_admission: bool = False
    #: Hooks other engines' schedulers set (``SglangScheduler``'s prefill and decode passes),
    #: flags rather than methods (a plan reads them once, without two calls): decoding
    #: sequences get their token in the iteration being planned; prompt chunks (running
    #: prefills, then admissions) may join it.
    decodes_run: bool = True
    prefills_run: bool = True

    @staticmethod
    def _promised_blocks(r: Replica) -> int:
        """KV blocks the running requests hold or will hold by their last token (prompt + max output)."""
        bs = r.block_size
        total = 0
        for slot in r.running_order:
            q = r.slot_req[slot]
            if q is not None:
                total += -(-(q.prompt_tokens + q.max_tokens) // bs)
        return total + r.pool.state_blocks * len(r.running_order)

    def plan(self, r: Replica, now: int) -> PlannedStep | None:
        if not r.running_order and not r.waiting:
            return None
        eng = r.engine
        pool = r.pool
        bs = r.block_size
        budget = eng.max_num_batched_tokens
        preempted = False

        # 1. decodes: one token each; make room for the blocks they need now and take them
        # (a decoder holds ceil(ctx / bs) blocks: it needs one more when ctx is a multiple of bs)
        clock = r.clock
        decodes = self.decodes_run
        prefills = self.prefills_run
        nd = r.n_decoding if decodes else 0  # (SGLang's prefill passes: the decoders sit out)
        # (r.dec_res[(-t) % bs] is r.dec_on_boundary(t), inlined on this path)
        if nd and pool.free < nd:
            need = r.dec_res[(-clock) % bs]
            while need > pool.free and r.running_order:
                r.preempt(r.running_order[-1], now)
                preempted = True
                need = r.dec_res[(-clock) % bs]
            nd = r.n_decoding
        if nd:
            need = r.dec_res[(-clock) % bs]
            if need and not pool.allocate(need):  # (most iterations: no decoder crosses a block boundary)
                _accounting_error(pool, need)
            r.ahead = 1
        model = r.model
        budget -= nd * model.decode_query_tokens  # (k + 1 under speculative decoding: vLLM counts each)

        # 2. running prefills, in admission order
        chunks: list[tuple[int, int]] = []
        for slot in list(r.prefilling) if r.prefilling and prefills else ():
            if budget <= 0:
                break
            req = r.slot_req[slot]
            if req is None:  # preempted while making room above
                continue
            q = min(req.target - req.computed, budget)
            if not eng.enable_chunked_prefill and q < req.target - req.computed:
                break
            need = -(-(req.computed + q) // bs) - r.nblocks[slot]
            while need > pool.free and r.running_order and r.running_order[-1] != slot:
                r.preempt(r.running_order[-1], now)
                preempted = True
            if need > pool.free:
                r.preempt(slot, now)
                preempted = True
                break
            _take(pool, need)
            r.nblocks[slot] += need
            chunks.append((slot, q))
            budget -= q
        if preempted and decodes:
            nd = r.n_decoding

        # 3. admissions (TensorRT-LLM's batch waiting may hold them while decodes run)
        hold = self._batch_wait(r, nd) if eng.batch_wait_iters and nd and not preempted else 0
        waiting = r.waiting
        if not preempted and not hold and prefills and waiting:
            # GUARANTEED_NO_EVICT (TensorRT-LLM): blocks promised to running requests to their max length
            reserve = eng.reserve_to_completion
            promised = self._promised_blocks(r) if reserve else 0
            chunked, caching, state, free_slots = eng.enable_chunked_prefill, pool.prefix_caching, pool.state_blocks, r.free_slots
            while waiting and free_slots and budget > 0:
                req = waiting[0]
                hit = 0
                computed = req.computed
                if caching and computed == 0 and req.block_hashes:
                    hit = pool.hits(req.block_hashes, (req.target - 1) // bs)
                begin = hit * bs if computed == 0 else computed
                todo = req.target - begin
                q = todo if todo < budget else budget  # (min(todo, budget))
                if q < todo and not chunked:
                    break
                new_blocks = -(-(begin + q) // bs) - hit
                if hit:
                    hashes = req.block_hashes[:hit]
                    if new_blocks + state > pool.free - pool.idle_among(hashes):
                        break
                elif new_blocks + state > pool.free:
                    break
                if reserve:
                    whole = -(-(req.prompt_tokens + req.max_tokens) // bs) - hit + state
                    if promised + whole > pool.num_blocks and r.running_order:
                        break
                    promised += whole
                if self.limits_admission and not self._room_for(r, req, todo):
                    break
                slot = r.admit_next(now)  # (req leaves the queue for a slot)
                if hit:
                    pool.acquire(hashes)
                    req.hashed = list(hashes)
                elif req.hashed:  # (a queued request holds none: its blocks went back when it was preempted)
                    req.hashed = []
                if not pool.allocate(new_blocks + state):
                    _accounting_error(pool, new_blocks + state)
                req.computed = begin
                if not req.hit_counted:
                    req.hit_counted = True
                    req.cached_tokens = hit * bs
                    stats = r.stats
                    stats.prompt_tokens += req.prompt_tokens
                    stats.hit_tokens += hit * bs
                r.nblocks[slot] = hit + new_blocks
                chunks.append((slot, q))
                budget -= q

        if not nd and not chunks:
            return None
        first = r.n_steps
        window = model.arch.sliding_window
        new: list[int] = []
        new_base: list[int] = []
        k = 1 if preempted else self._run_ahead(r, nd, chunks, hold, new, new_base)

        head_s = 0.0
        ctx_sum = r.dec_cb_sum + nd * clock  # the decoders' KV tokens
        # the decoders' KV lengths themselves (ascending slots) matter only to sliding-window layers
        ctx_d = r.dec_contexts() if window and nd else _EMPTY
        if chunks:
            keys_full = float(ctx_sum) + nd if nd else 0.0
            keys_slide = float(np.minimum(ctx_d + 1, window).sum()) if window and nd else 0.0
            if len(chunks) == 1:  # (most prefill iterations: one prompt)
                s0, q0 = chunks[0]
                req0 = r.slot_req[s0]
                assert req0 is not None
                prefill = [(q0, req0.computed)]
                finishing = 1 if req0.computed + q0 >= req0.target else 0
            else:
                prefill = [(q, r.slot_req[s].computed) for s, q in chunks]  # type: ignore[union-attr]
                finishing = sum(1 for s, q in chunks if r.slot_req[s].computed + q >= r.slot_req[s].target)  # type: ignore[union-attr,misc]  # misc: mypy misreads sum() once the union-attr is ignored
            head_s = model.step_time(nd, keys_full, keys_slide, prefill, nd + finishing)
        # KV blocks in use: u0 during the first iteration, from u1 (the first decode-only
        # iteration's blocks taken) to u2 (all taken) over the rest; block-time is the trapezoid.
        u0 = u1 = pool.num_blocks - pool.free  # (pool.used)
        if k > 1:
            lead = 1 if chunks else 0  # a decode that ran in the first iteration holds one more token
            size = nd + len(new)
            # each running sequence holds ceil((base + 1) / bs) blocks: the next
            # iteration needs one more exactly when base + 1 fills its last block
            if chunks and nd:
                u1 += r.dec_res[(-(clock + 1)) % bs]
            # blocks for k tokens past each base: ceil((base + k) / bs)
            grow = r.dec_grow(clock + 1, clock + k) if nd else 0
            keys = ctx_sum  # + the new decoders' bases
            if new:  # (the prompts this step completes: it has chunks)
                nblocks = r.nblocks
                # (by index: zip(..., strict=True) costs ~0.1 us more a call, on every plan)
                for i in range(len(new)):
                    b = new_base[i]
                    keys += b
                    if (b + 1) % bs == 0:
                        u1 += 1
                    slot = new[i]
                    tgt = -(-(b + k) // bs)
                    grow += tgt - nblocks[slot]
                    nblocks[slot] = tgt
            if grow and not pool.allocate(grow):
                _accounting_error(pool, grow)
            r.ahead = k
            keys_sum = float(keys) + lead * size
            line = model.decode_line(size, keys_sum)  # (None with sliding-window layers)
            if line is not None and k - lead <= _SHORT_RUN:
                # a short run's end times in plain Python: the floats decode_run's arrays hold
                # (j * slope + first), the same rounding (round() is half to even, as np.rint)
                # and the same integer running sum
                first_s, slope = line
                ends = []
                end = now
                if lead:
                    step_ns = round(head_s * 1e9)
                    end += step_ns if step_ns >= 1 else 1
                    ends.append(end)
                if slope >= 0.0 and first_s * 1e9 > 0.5:
                    # (no iteration is shorter than the first, which rounds to 1 ns or more: the
                    # 1 ns floor cannot bind, and the loop goes without its test)
                    for j in range(k - lead):
                        end += round((j * slope + first_s) * 1e9)
                        ends.append(end)
                else:
                    for j in range(k - lead):
                        step_ns = round((j * slope + first_s) * 1e9)
                        end += step_ns if step_ns >= 1 else 1
                        ends.append(end)
                durations = None
            elif line is not None:
                # a long run on the line in hand: decode_run's array (j * slope + first, the lead's
                # duration first) without its second decode_line, and without the 1 ns floor where
                # no iteration can fall below it (slope >= 0: none is shorter than the first or the lead)
                first_s, slope = line
                durations = np.arange(-lead, k - lead, dtype=np.float64)
                durations *= slope
                durations += first_s
                if lead:
                    durations[0] = head_s
                floor = not (slope >= 0.0 and first_s * 1e9 > 0.5 and (not lead or head_s * 1e9 > 0.5))
            else:
                if window:
                    contexts = np.concatenate((ctx_d, np.array(new_base, dtype=np.int64))) if new else ctx_d
                    if lead:
                        contexts = contexts + lead
                else:  # (full attention: the count and sum of the contexts are all that matter)
                    contexts = r.zeros[:size]
                durations = model.decode_run(contexts, k - lead, keys_sum=keys_sum, lead=head_s if chunks else None)
                floor = True
        else:
            # one iteration: its end in plain Python (round() rounds half to even, as np.rint)
            if chunks:
                one = head_s
            else:
                line = model.decode_line(nd, float(ctx_sum))
                one = line[0] if line is not None else float(model.decode_run(ctx_d if window else r.zeros[:nd], 1, keys_sum=float(ctx_sum))[0])
            step_ns = round(one * 1e9)
            end = now + (step_ns if step_ns >= 1 else 1)
            ends = [end]
            durations = None
        if durations is not None:
            ns = durations  # (a fresh array: scaled in place)
            ns *= 1e9
            np.rint(ns, out=ns)
            if floor:
                np.maximum(ns, 1.0, out=ns)
            ends_a = ns.astype(np.int64)
            ends_a[0] += now  # (the running sum then starts at now: one array pass fewer)
            np.add.accumulate(ends_a, out=ends_a)  # (np.cumsum adds ~3 us of Python dispatch per step)
            ends = ends_a.tolist()
            end = ends[-1]
        span = end - now
        u2 = pool.num_blocks - pool.free
        if chunks:
            head_ns = ends[0] - now
            run_area = (u1 + u2) / 2 * (span - head_ns)
            kv_area = u0 * head_ns + run_area
        else:
            run_area = kv_area = (u0 + u2) / 2 * span
        stats = r.stats
        stats.busy_ns += span
        stats.kv_area += kv_area
        stats.iterations += k
        r.n_steps = first + k
        step = r.pending = PlannedStep(now, first, ends, chunks, kv_area, new, new_base, run_area, r.index)
        return step

    # --- what other engines' schedulers change (SglangScheduler) ---------------------
    def _room_for(self, r: Replica, req: SimRequest, todo: int) -> bool:
        """The engine's own admission budget beside blocks and slots (none in vLLM)."""
        return True

    def _run_ahead(self, r: Replica, nd: int, chunks: list[tuple[int, int]], hold: int, new: list[int], new_base: list[int]) -> int:
        """How many iterations this step holds: 1, plus the decode-only iterations that
        can follow it without a new decision — until the first completion, while KV
        blocks last, with nobody waiting (a prefill step) and no prompt left half done.
        Fills in the prompts this step completes that decode in the rest of it (``new``)
        and their KV tokens before the step's second iteration, less one (``new_base``)."""
        pool, bs = r.pool, r.block_size
        if not chunks:
            # max(1, min(fewest left, MAX_RUN, hold or MAX_RUN)), without the calls
            # (r.min_left(), inline: the completion heap's live front)
            k = r.dec_heap[0][0] - r.clock
            if k > MAX_RUN:
                k = MAX_RUN
            if hold and k > hold:
                k = hold
            if k < 1:
                k = 1
            if k > 1 and pool.free < nd * (k // bs + 1):  # else it fits for sure (see _fit_blocks)
                k = self._fit_blocks(r, [], [], pool.free, k)
            return k
        if r.waiting or len(chunks) != len(r.prefilling):
            return 1
        if len(chunks) == 1:  # (the common case, without the generators)
            slot0, n0 = chunks[0]
            req0 = r.slot_req[slot0]
            assert req0 is not None
            if req0.computed + n0 < req0.target:
                return 1
            left = req0.max_tokens - req0.generated
            new.append(slot0)
            new_base.append(req0.target - 1)
        else:
            reqs = [r.slot_req[s] for s, _ in chunks]
            if not all(req.computed + n >= req.target for req, (_, n) in zip(reqs, chunks, strict=True)):  # type: ignore[union-attr]
                return 1
            # each prompt's last chunk yields its first token: max_tokens - generated - 1 to go
            left = min(req.max_tokens - req.generated for req in reqs)  # type: ignore[union-attr]
            new.extend(s for s, _ in chunks)
            new_base.extend(req.target - 1 for req in reqs)  # type: ignore[union-attr]
        # (new and new_base hold the step's prompts from here; emptied again if it stays one iteration)
        if nd:
            fewest = r.dec_heap[0][0] - r.clock  # (r.min_left(), inline)
            if fewest < left:
                left = fewest
        k = left if left < MAX_RUN + 1 else MAX_RUN + 1
        if k > 1 and pool.free < (nd + len(new)) * (k // bs + 1):
            k = self._fit_blocks(r, new, new_base, pool.free, k)
        if k <= 1:
            new.clear()
            new_base.clear()
            return 1
        return k

    @staticmethod
    def _batch_wait(r: Replica, n_decodes: int) -> int:
        """Iterations the waiting requests are still held (0: admit now). Held while
        decodes + waiting prompt tokens stay under the engine's threshold and the
        oldest has waited fewer than ``batch_wait_iters`` iterations."""
        if not r.waiting:
            return 0
        eng = r.engine
        waiting_tokens = sum(q.target - q.computed for q in r.waiting)
        if n_decodes + waiting_tokens >= eng.batch_wait_tokens:
            return 0
        oldest = r.waiting[0]
        if oldest.enqueued_step < 0:
            oldest.enqueued_step = r.n_steps
        return max(0, eng.batch_wait_iters - (r.n_steps - oldest.enqueued_step))

    @staticmethod
    def _fit_blocks(r: Replica, new: list[int], new_base: list[int], free: int, k: int) -> int:
        """Largest j <= k such that the decoders (holding step 1's blocks, ceil((ctx + 1) / bs))
        and the prompts ``new`` (holding ceil((base + 1) / bs)) fit ``j`` more tokens of KV
        past their bases in the free blocks (j = 1 already fits)."""
        bs = r.block_size
        clock = r.clock
        held = r.dec_blocks(clock + 1)
        have = [r.nblocks[s] for s in new]

        if _fit_need(r, clock, held, new_base, have, bs, k) <= free:
            return k
        lo, hi = 1, k  # need(lo) <= free is guaranteed by step 1
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if _fit_need(r, clock, held, new_base, have, bs, mid) <= free:
                lo = mid
            else:
                hi = mid
        return lo


def _fit_need(r: Replica, clock: int, held: int, new_base: list[int], have: list[int], bs: int, j: int) -> int:
    """KV blocks beyond those held that ``_fit_blocks``'s requests need for ``j`` more tokens (a function,
    not a closure: mypyc does not compile a closure in a static method)."""
    return r.dec_blocks(clock + j) - held + sum(-(-(b + j) // bs) - h for b, h in zip(new_base, have, strict=True))
