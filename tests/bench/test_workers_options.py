"""``--workers`` and ``--ray`` checked before anything starts: one line each."""

from __future__ import annotations

import importlib.util
import re
import socket

import pytest

from servescope.bench.run_checks import check_workers, check_workers_kind
from servescope.bench.worker_links import check_ray_address
from servescope.errors import UsageError
from servescope.testing.truth.server import TruthServer


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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_ray_address_nothing_listens_on_is_one_line_at_once() -> None:
    """Ray itself retries such an address for minutes. A bad address is bad input (exit 2), as search says it."""
    port = _free_port()
    with pytest.raises(UsageError, match=rf"^--ray 127\.0\.0\.1:{port}: nothing accepts connections there \(.*Connection refused\)"):
        check_ray_address(f"127.0.0.1:{port}")


@pytest.mark.integration
def test_a_ray_address_that_is_not_a_ray_cluster_is_one_line() -> None:
    """An HTTP/1 server (here the timing-truth server) is not a cluster's gRPC address."""
    with TruthServer() as srv:
        address = srv.base_url.split("//", 1)[1]
        with pytest.raises(UsageError, match=rf"^--ray {re.escape(address)}: something answers there, but not a Ray cluster"):
            check_ray_address(address)


@pytest.mark.parametrize("address", ["127.0.0.1:http", "127.0.0.1:0", "127.0.0.1:70000", "garbage", ":6379"])
def test_a_ray_address_without_a_port_number_is_refused(address: str) -> None:
    with pytest.raises(UsageError, match=r"give the cluster's host:port"):
        check_ray_address(address)


def test_more_local_processes_than_four_a_cpu_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    check_workers(8, None)
    with pytest.raises(UsageError) as exc:
        check_workers(9, None)
    assert str(exc.value) == (
        "--workers 9: this host has 2 CPUs, and more than 4 client processes a CPU only compete for them; "
        "give --workers ≤ 8, or place them on a Ray cluster with --ray ADDRESS"
    )
    check_workers(9, "auto")  # a cluster has CPUs of its own (counted when it is joined)
