"""``--workers`` and ``--ray`` checked before anything starts: one line each."""

from __future__ import annotations

import importlib.util

import pytest

from servescope.bench.run_checks import check_workers, check_workers_kind
from servescope.errors import UsageError


def test_ray_not_installed_says_which_extra_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "ray" else real(name, *a))
    with pytest.raises(UsageError) as exc:
        check_workers(2, "auto")
    assert str(exc.value) == "--ray needs Ray, which is not installed: pip install 'servescope[ray]'"
    check_workers(2, None)  # local processes need nothing beyond the base install


@pytest.mark.parametrize("workers", [0, -1, 1025])
def test_a_count_outside_1_to_1024_is_refused(workers: int) -> None:
    with pytest.raises(UsageError, match=rf"^--workers {workers}: give a number of client processes in 1\.\.1024"):
        check_workers(workers, None)


def test_an_empty_ray_address_is_refused() -> None:
    with pytest.raises(UsageError, match=r"^--ray ' ': give the cluster's address"):
        check_workers(1, " ")


@pytest.mark.parametrize("kind", ["eval", "image"])
def test_kinds_with_their_own_running_do_not_split(kind: str) -> None:
    with pytest.raises(UsageError, match=f"^--workers 2: a workload of kind {kind} runs in one client process"):
        check_workers_kind(2, None, kind)
    with pytest.raises(UsageError, match=r"^--ray: "):
        check_workers_kind(1, "auto", kind)
    check_workers_kind(1, None, kind)  # one process: today's path
