"""The block pool: counts, LRU eviction of cached blocks, prefix hits."""

from __future__ import annotations

from servescope.predict.sim.kv_cache import BlockPool


def test_allocate_and_release_plain_blocks() -> None:
    pool = BlockPool(10, 16, prefix_caching=False)
    assert pool.allocate(7)
    assert (pool.free, pool.used) == (3, 7)
    assert not pool.allocate(4)
    pool.release(7, [])
    assert pool.free == 10


def test_cached_blocks_survive_release_and_hit() -> None:
    pool = BlockPool(10, 16, prefix_caching=True)
    pool.allocate(3)
    owned = pool.register([1, 2, 3])
    assert owned == [1, 2, 3]
    pool.release(0, owned)
    assert pool.free == 10  # idle cached blocks count as free
    assert pool.hits([1, 2, 3, 4], max_blocks=10) == 3
    assert pool.hits([1, 2, 3, 4], max_blocks=2) == 2
    assert pool.hits([9, 1], max_blocks=10) == 0  # a prefix must match from the first block
    assert pool.idle_among([1, 2]) == 2
    pool.acquire([1, 2])
    assert pool.free == 8


def test_eviction_takes_plain_blocks_first_then_lru_tail_first() -> None:
    pool = BlockPool(4, 16, prefix_caching=True)
    pool.allocate(2)
    pool.release(0, pool.register([10, 11]))  # freed tail first: 11 is least recently used
    assert pool.allocate(2)  # the two never-cached blocks
    assert pool.evictions == 0
    assert pool.allocate(1)
    assert pool.evictions == 1
    assert pool.hits([10, 11], 2) == 1  # 11 went first, the prefix 10 survives


def test_shared_hit_is_referenced_once_per_request() -> None:
    pool = BlockPool(4, 16, prefix_caching=True)
    pool.allocate(1)
    a = pool.register([7])
    pool.acquire([7])  # a second request hits block 7 while the first holds it
    assert pool.free == 3
    pool.release(0, a)
    assert pool.free == 3  # still referenced by the second
    pool.release(0, [7])
    assert pool.free == 4


def test_register_skips_blocks_cached_meanwhile() -> None:
    pool = BlockPool(4, 16, prefix_caching=True)
    pool.allocate(2)
    assert pool.register([5]) == [5]
    assert pool.register([5]) == []
