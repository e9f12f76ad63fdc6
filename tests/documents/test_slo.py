"""One SLO parser for runs and for search: per-request SLOs keep their id as written;
a statistic prefix is a search's, refused for a run; a malformed number is one line."""

from __future__ import annotations

import subprocess
import sys

import pytest

from servescope.documents.slo import holds, parse_request_slos, parse_slos


def test_a_runs_slos_keep_their_id_as_written() -> None:
    slos = parse_request_slos("ttft_ms<=500.0, itl_ms<30")
    assert [(s.id, s.metric, s.op, s.threshold) for s in slos] == [("ttft_ms<=500.0", "ttft_ms", "<=", 500.0), ("itl_ms<30", "itl_ms", "<", 30.0)]
    assert parse_request_slos(None) == [] and parse_request_slos("") == []


def test_a_statistic_prefix_is_refused_for_a_run() -> None:
    with pytest.raises(ValueError, match="no p99_ prefix"):
        parse_request_slos("p99_ttft_ms<=500")
    assert parse_slos("p99_ttft_ms<=500")[0].percentile(None) == 99.0


@pytest.mark.parametrize("bad", ["ttft_ms<=1.2.3", "ttft_ms<=", "latency<5", "ttft_ms=5"])
def test_malformed_slos_are_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="cannot read SLO"):
        parse_slos(bad)


def test_holds_is_the_one_comparison() -> None:
    assert holds(5.0, "<=", 5.0) and not holds(5.0, "<", 5.0) and not holds(None, "<=", 1e9)


def test_run_slo_with_a_malformed_number_is_one_usage_line() -> None:
    # once read by a regex that let "1.2.3" through to float(): an internal error (exit 3)
    proc = subprocess.run(
        [sys.executable, "-m", "servescope", "run", "serve-chat-c8-i1k-o256-v1", "--endpoint", "http://127.0.0.1:9/v1", "--slo", "ttft_ms<=1.2.3"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    assert "--slo 'ttft_ms<=1.2.3': write SLOs like" in proc.stderr
