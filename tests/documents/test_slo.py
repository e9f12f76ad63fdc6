"""One SLO parser for runs and for search: per-request SLOs keep their id as written;
a statistic prefix is a search's, refused for a run; a malformed number is one line."""

from __future__ import annotations

import subprocess
import sys

import pytest

from servescope.documents.slo import SloSyntaxError, holds, parse_request_slos, parse_slos


def test_a_runs_slos_keep_their_id_as_written() -> None:
    slos = parse_request_slos("ttft_ms<=500.0, itl_ms<30")
    assert [(s.id, s.metric, s.op, s.threshold) for s in slos] == [("ttft_ms<=500.0", "ttft_ms", "<=", 500.0), ("itl_ms<30", "itl_ms", "<", 30.0)]
    assert parse_request_slos(None) == [] and parse_request_slos("") == []


def test_a_statistic_prefix_is_refused_for_a_run() -> None:
    with pytest.raises(ValueError, match="no p99_ prefix"):
        parse_request_slos("p99_ttft_ms<=500")
    assert parse_slos("p99_ttft_ms<=500")[0].percentile(None) == 99.0


@pytest.mark.parametrize("bad", ["ttft_ms<=1.2.3", "ttft_ms<=", "latency<5", "ttft_ms=5", "p100_ttft_ms<=1", "p0_ttft_ms<=1"])
def test_malformed_slos_are_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="cannot read SLO"):
        parse_slos(bad)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        # each names the bad part and what is wrong with it, not only how SLOs look
        ("ttft<=5", "unknown metric 'ttft'; one of ttft_ms, itl_ms, tpot_ms, e2e_ms"),
        ("TTFT_MS<=500", "unknown metric 'TTFT_MS' (names are lower case: ttft_ms)"),
        ("ttft_ms>=5", "operator '>=' is not taken; an SLO is an upper bound"),
        ("ttft_ms==5", "operator '==' is not taken"),
        ("ttft_ms<=-1", "threshold '-1': give a finite number of milliseconds >= 0"),
        ("ttft_ms<=inf", "threshold 'inf': give a finite number of milliseconds >= 0"),
        ("ttft_ms<=nan", "threshold 'nan': give a finite number of milliseconds >= 0"),
        ("ttft_ms<=1e999", "threshold '1e999': give a finite number of milliseconds >= 0"),
        ("ttft_ms<=500s", "threshold '500s': give a plain number of milliseconds (the metric's _ms is the unit)"),
        ("ttft_ms<=500 ms", "threshold '500 ms': give a plain number of milliseconds"),
        ("ttft_ms<=1_000", "threshold '1_000' is not a number"),
        ("p100_ttft_ms<=5", "percentile 'p100': give p1..p99"),
        ("ttft_ms", "no comparison"),
        # a stray comma and a metric given twice: refused, never dropped or held twice
        ("ttft_ms<=5,", "an empty part (a stray comma)"),
        ("ttft_ms<=5,,itl_ms<=3", "an empty part (a stray comma)"),
        ("ttft_ms<=5,ttft_ms<=10", "ttft_ms is given twice (ttft_ms<=5, ttft_ms<=10); give one bound per metric"),
        ("p99_ttft_ms<=5, p99_ttft_ms<10", "p99_ttft_ms is given twice"),
    ],
)
def test_a_bad_slo_names_its_part_and_what_is_wrong(text: str, reason: str) -> None:
    with pytest.raises(SloSyntaxError) as info:
        parse_slos(text)
    assert reason in info.value.reason and "\n" not in str(info.value)
    assert info.value.part in text


def test_distinct_statistics_of_one_metric_are_two_slos() -> None:
    assert [s.name for s in parse_slos("p99_ttft_ms<=900,mean_ttft_ms<=300,ttft_ms<=500")] == ["p99_ttft_ms", "mean_ttft_ms", "ttft_ms"]
    assert [s.id for s in parse_request_slos(" ttft_ms <= 5e2 ")] == ["ttft_ms<=5e2"]


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
    assert "--slo 'ttft_ms<=1.2.3': threshold '1.2.3' is not a number; write SLOs like" in proc.stderr
