"""Paged KV blocks with a prefix cache keyed by block hashes (vLLM v1's
``BlockPool`` + ``KVCacheManager``, reduced to counts).

- ``free`` counts blocks no running request references, cached ones included:
  a cached block with no reference stays reusable until it is evicted.
- Allocation takes never-cached free blocks first, then evicts cached ones in
  least-recently-freed order (vLLM's free queue is LRU; a request's blocks are
  freed tail first, so a prompt's last blocks are evicted before its first).
- A prefix hit is the longest run of a prompt's leading block hashes present in
  the cache; hit blocks gain a reference (and leave the free count if idle).
- A multi-turn session's answer: its full blocks, just released as plain ones, are
  cached idle (``cache_released``), as vLLM caches every full block it computed.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence


class BlockPool:
    def __init__(self, num_blocks: int, block_size: int, prefix_caching: bool, state_blocks: int = 0) -> None:
        self.num_blocks = num_blocks
        self.block_size = block_size
        self.prefix_caching = prefix_caching
        # blocks a running request's linear-attention state takes beside its KV blocks
        # (taken at admission, given back with them; ``KvCapacity.state_blocks``)
        self.state_blocks = state_blocks
        self.free = num_blocks
        self.refs: dict[int, int] = {}
        self.idle: OrderedDict[int, None] = OrderedDict()
        self.evictions = 0
        # most blocks ever held at once, cached idle ones included: a pool at least this
        # large would have run the same simulation (no allocation refused, nothing evicted)
        self.peak_occupied = 0

    @property
    def used(self) -> int:
        return self.num_blocks - self.free

    def hits(self, hashes: Sequence[int], max_blocks: int) -> int:
        """Leading blocks of ``hashes`` (at most ``max_blocks``) present in the cache."""
        if not self.prefix_caching:
            return 0
        n = 0
        refs = self.refs
        for h in hashes[:max_blocks]:
            if h not in refs:
                break
            n += 1
        return n

    def idle_among(self, hashes: Sequence[int]) -> int:
        """How many of these cached blocks nobody references (they count as free now)."""
        refs = self.refs
        return sum(1 for h in hashes if refs.get(h) == 0)

    def acquire(self, hashes: Sequence[int]) -> None:
        """Reference cached blocks (prefix hits)."""
        refs, idle = self.refs, self.idle
        for h in hashes:
            if refs[h] == 0:
                del idle[h]
                self.free -= 1
            refs[h] += 1

    def allocate(self, n: int) -> bool:
        """Take ``n`` blocks; evict idle cached blocks when never-cached ones run out."""
        if n <= 0:
            return True
        free = self.free
        if n > free:
            return False
        idle = self.idle
        if idle:  # (no cached block idle - prefix caching off, or none freed yet - is the common case)
            plain = free - len(idle)
            if n > plain:
                refs = self.refs
                for _ in range(n - plain):
                    h, _ = idle.popitem(last=False)
                    del refs[h]
                    self.evictions += 1
        free = self.free = free - n
        occupied = self.num_blocks - free + len(idle)
        if occupied > self.peak_occupied:
            self.peak_occupied = occupied
        return True

    def register(self, hashes: Sequence[int]) -> list[int]:
        """A request computed these full blocks (it already holds them as plain
        blocks): cache them. Returns the hashes it now owns (a hash cached meanwhile
        by another request stays a plain block of this one)."""
        if not self.prefix_caching:
            return []
        owned = []
        refs = self.refs
        for h in hashes:
            if h not in refs:
                refs[h] = 1
                owned.append(h)
        return owned

    def release(self, plain: int, hashed: Sequence[int]) -> None:
        """Return a request's blocks: ``plain`` uncached ones and its cached ones
        (given in prompt order; the tail becomes least recently used first)."""
        self.free += plain
        refs, idle = self.refs, self.idle
        for h in reversed(hashed):
            r = refs[h] - 1
            refs[h] = r
            if r == 0:
                idle[h] = None
                self.free += 1

    def cache_released(self, hashes: Sequence[int]) -> None:
        """Blocks a request has just released as plain ones (counted free), in its order,
        cached now: idle, and evicted first as the released tail is (a multi-turn session's
        answer, which its next turn resends). A hash already cached stays as it is."""
        if not self.prefix_caching:
            return
        refs, idle = self.refs, self.idle
        for h in hashes:
            if h not in refs:
                refs[h] = 0
                idle[h] = None
                idle.move_to_end(h, last=False)
