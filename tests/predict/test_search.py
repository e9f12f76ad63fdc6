"""search(): parallelism and batch limits ranked under SLOs."""

from __future__ import annotations

import pytest

from servescope.catalog.store import Catalog
from servescope.predict.search import format_search, parse_slos, search, tp_choices
from servescope.predict.workload_input import SyntheticWorkload


def test_parse_slos() -> None:
    slos = parse_slos("ttft_ms<=500, itl_ms<30")
    assert [(s.metric, s.op, s.threshold) for s in slos] == [("ttft_ms", "<=", 500.0), ("itl_ms", "<", 30.0)]
    assert slos[0].ok(500.0) and not slos[1].ok(30.0) and not slos[0].ok(None)
    with pytest.raises(ValueError, match="cannot read SLO"):
        parse_slos("latency<5")


def test_tp_choices() -> None:
    assert tp_choices(8, 64) == [1, 2, 4, 8]
    assert tp_choices(6, 28) == [1, 2]


def test_search_ranks_and_skips(catalog: Catalog) -> None:
    work = SyntheticWorkload((4, 16, 64), 512, 64, requests_per_concurrency=2, min_requests=8)
    # (steady state: prompts join running batches, so p90 ITL at c = 64 is about twice the decode step)
    out = search("llama-3.1-70b", "h100-sxm", 4, "ttft_ms<=5000,itl_ms<=150", work, catalog=catalog, max_num_seqs=(16, 64))
    assert out.configurations == 6
    assert {c.tp for c in out.skipped} == {1, 2}  # 141 and 71 GB of weights per device on 80 GB
    assert [c.tp for c in out.ranked] == [4, 4]
    best = out.ranked[0]
    assert best.per_device is not None and best.output_tokens_per_sec == pytest.approx(best.per_device * 4)
    assert (best.max_num_seqs, best.best_concurrency) == (64, 64)  # 16 slots cap the batch: more queueing, less output
    assert out.ranked[1].output_tokens_per_sec is not None and out.ranked[1].output_tokens_per_sec < best.output_tokens_per_sec
    assert "skipped" in format_search(out)


def test_impossible_slo_leaves_no_winner(catalog: Catalog) -> None:
    work = SyntheticWorkload((1,), 128, 16, num_requests=4)
    out = search("llama-3.1-8b", "h100-sxm", 1, "ttft_ms<=0.001", work, catalog=catalog, max_num_seqs=(8,))
    assert out.ranked[0].per_device is None


@pytest.mark.parametrize("devices", [2, 4])
def test_shared_uncapped_runs_change_nothing(devices: int) -> None:
    """Runs the sequence cap never touched are shared by every smaller cap that
    still holds them: same ranking, same numbers, fewer simulations (with dp > 1
    a replica runs about c / dp sequences, so even small caps share)."""
    wl = SyntheticWorkload((8, 64), 512, 64, requests_per_concurrency=2)
    plain = search("llama-3.1-8b", "l4", devices, "ttft_ms<=2000,itl_ms<=80", wl, max_num_seqs=(16, 32, 64, 128), reuse=False)
    shared = search("llama-3.1-8b", "l4", devices, "ttft_ms<=2000,itl_ms<=80", wl, max_num_seqs=(16, 32, 64, 128), reuse=True)
    rows = [[(c.label, c.per_device, c.best_concurrency, c.measured_at) for c in o.ranked] for o in (plain, shared)]
    assert rows[0] == rows[1]
    assert shared.simulations < plain.simulations


def test_workers_give_the_same_search() -> None:
    wl = SyntheticWorkload((8, 64), 512, 64, requests_per_concurrency=2)
    one = search("llama-3.1-8b", "l4", 4, "ttft_ms<=2000,itl_ms<=80", wl, max_num_seqs=(16, 64), workers=1)
    two = search("llama-3.1-8b", "l4", 4, "ttft_ms<=2000,itl_ms<=80", wl, max_num_seqs=(16, 64), workers=2)
    rows = [[(c.label, c.per_device, c.best_concurrency, c.measured_at) for c in o.ranked] for o in (one, two)]
    assert rows[0] == rows[1]
    assert (one.simulations, one.configurations) == (two.simulations, two.configurations)


def test_search_over_engines_and_dtypes(catalog: Catalog) -> None:
    """Each configuration is labelled by engine@version and dtype; fp8 halves the
    weights, so the 70B fits on fewer devices; every pair is searched."""
    from servescope.predict.search import parse_dtypes, parse_engines

    wl = SyntheticWorkload((8,), 512, 64, requests_per_concurrency=2, min_requests=8)
    out = search("llama-3.1-70b", "h100-sxm", 4, "ttft_ms<=5000,itl_ms<=200", wl, catalog=catalog,
                 engines="vllm@0.11.0,sglang@0.5.2", weight_dtypes="bf16,fp8", max_num_seqs=(32,))  # fmt: skip
    assert out.configurations == 2 * 2 * 3  # engines x dtypes x tp in {1, 2, 4}
    ranked = {c.label: c for c in out.ranked}
    skipped = {c.label: c.skipped for c in out.skipped}
    assert "sglang@0.5.2-fp8-tp2-dp2-seqs32" in ranked and "vllm@0.11.0-bf16-tp4-dp1-seqs32" in ranked
    # bf16 needs tp4: at tp2 65.7 GiB of weights per device leave vLLM no KV pool for Llama 3.1's 131,072 tokens
    assert "65.7 GiB of weights per device" in (skipped["vllm@0.11.0-bf16-tp2-dp2-seqs32"] or "")
    assert "vLLM would not start" in (skipped["vllm@0.11.0-bf16-tp2-dp2-seqs32"] or "")
    fp8, bf16 = ranked["vllm@0.11.0-fp8-tp4-dp1-seqs32"], ranked["vllm@0.11.0-bf16-tp4-dp1-seqs32"]
    assert fp8.per_device is not None and bf16.per_device is not None and fp8.per_device > bf16.per_device
    assert out.ranked[0].weight_dtype == "fp8" and "sglang@0.5.2" in format_search(out)
    assert out.warnings() == [] and all(c.warnings == [] for c in out.ranked)
    assert parse_engines("vllm@0.11.0, trt-llm@1.0.0") == [("vllm", "0.11.0"), ("trt-llm", "1.0.0")]
    assert parse_dtypes("BF16,fp8") == ["bf16", "fp8"]
    for bad, fn in (("vllm", parse_engines), ("vllm@0.11.0,vllm@0.11.0", parse_engines), ("fp9", parse_dtypes),
                    ("", parse_dtypes)):  # fmt: skip
        with pytest.raises(ValueError):
            fn(bad)


@pytest.mark.parametrize(
    ("model", "work"),
    [
        ("llama-3.1-8b", SyntheticWorkload((16, 64, 256), 1024, 256, requests_per_concurrency=2, min_requests=16)),
        ("llama-3.1-70b", SyntheticWorkload((16, 64, 256), 1024, 256, requests_per_concurrency=2, min_requests=16)),
        ("llama-3.1-8b", SyntheticWorkload((32,), 512, 128, num_requests=32)),
    ],
    ids=["8b-three-levels", "70b-three-levels", "8b-one-level"],
)
def test_giving_up_on_a_broken_ttft_changes_no_ranking(catalog: Catalog, model: str, work: SyntheticWorkload) -> None:
    """The benchmark cases (benchmarks/predict_speed.py): runs stopped once their p90
    TTFT is certain to break the SLO leave the ranking, every score and every level
    that was simulated to its end as they were; the stopped level reads None."""
    args = (model, "h100-sxm", 8, "ttft_ms<=1000,itl_ms<=50", work)
    full = search(*args, catalog=catalog, give_up=False)
    fast = search(*args, catalog=catalog, give_up=True)
    assert [(c.label, c.per_device, c.best_concurrency) for c in fast.ranked] == [(c.label, c.per_device, c.best_concurrency) for c in full.ranked]
    for a, b in zip(full.ranked, fast.ranked, strict=True):
        assert list(a.measured_at) == list(b.measured_at)
        for level, figures in b.measured_at.items():
            if level in b.gave_up:
                assert set(figures.values()) == {None}
                ttft = a.measured_at[level]["ttft_ms"]
                assert ttft is not None and ttft > 1000  # the full run breaks the TTFT SLO there
            else:
                assert figures == a.measured_at[level]
    assert full.gave_up == 0
    if model == "llama-3.1-8b" and len(work.concurrency) == 3:
        assert fast.gave_up >= 3 and fast.simulations <= full.simulations  # small caps queue at c = 256


def test_search_keeps_each_configurations_warnings(catalog: Catalog) -> None:
    """A configuration the simulator approximates carries the deployment's warnings (without the
    generated scenario's name); the outcome groups them by message over the ranked configurations."""
    from servescope.predict.search import format_warnings

    wl = SyntheticWorkload((8,), 256, 32, requests_per_concurrency=2, min_requests=8)
    out = search("llama-3.1-8b", "h100-sxm", 2, "ttft_ms<=5000", wl, catalog=catalog,
                 engines="vllm@0.11.0,sglang@0.4.0", max_num_seqs=(32,))  # fmt: skip
    by_label = {c.label: c.warnings for c in out.ranked}
    assert by_label["vllm@0.11.0-bf16-tp1-dp2-seqs32"] == [] and by_label["vllm@0.11.0-bf16-tp2-dp1-seqs32"] == []
    old = [by_label["sglang@0.4.0-bf16-tp1-dp2-seqs32"], by_label["sglang@0.4.0-bf16-tp2-dp1-seqs32"]]
    assert all(len(w) == 1 and w[0].startswith("engine.version: 0.4.0: SGLang before 0.5") for w in old), old
    [(message, labels)] = out.warnings()
    assert message == old[0][0] and sorted(labels) == ["sglang@0.4.0-bf16-tp1-dp2-seqs32", "sglang@0.4.0-bf16-tp2-dp1-seqs32"]
    [line] = format_warnings(out)
    assert line.endswith("(2 of 4 configurations: " + ", ".join(labels) + ")")
    assert format_warnings(out, most_labels=1)[0].endswith(f"(2 of 4 configurations: {labels[0]}, ...)")


def test_default_sweep_climbs_each_configuration_to_its_slots(catalog: Catalog) -> None:
    """Without levels of its own the search sweeps powers of two up to devices x the largest
    max_num_seqs; each configuration stops at its first level breaking an SLO or filling every
    slot (dp x max_num_seqs), and the output names the levels tried."""
    from servescope.predict.search import SWEEP_CEILING, levels_lines, sweep_levels

    assert sweep_levels(2, (8, 16)) == [1, 2, 4, 8, 16, 32]
    assert sweep_levels(3, (8,)) == [1, 2, 4, 8, 16, 32]  # the first power of two at or above 24
    assert sweep_levels(8, (512,))[-1] == SWEEP_CEILING
    wl = SyntheticWorkload((1,), 256, 32, requests_per_concurrency=2, min_requests=8)
    out = search("llama-3.1-8b", "h100-sxm", 2, "ttft_ms<=5000,itl_ms<=200", wl, catalog=catalog, max_num_seqs=(8, 16), concurrency="sweep")
    assert out.swept and out.levels == [1, 2, 4, 8, 16, 32]
    for cand in out.ranked:
        slots = cand.dp * cand.max_num_seqs
        assert max(cand.measured_at) == slots  # a loose SLO: every configuration climbs to its full slots, no further
        assert cand.best_concurrency is not None and cand.best_concurrency > 1
    assert {c.label for c in out.at_top_level} == {"vllm@0.11.0-bf16-tp1-dp2-seqs16"}
    tried, higher = levels_lines(out)
    assert tried.startswith("concurrency levels tried: 1, 2, 4, 8, 16, 32 (default sweep")
    assert higher.startswith("1 of 4 configurations still met the SLO at 32")
    assert f"{tried}\n{higher}\n" in format_search(out)
    given = search("llama-3.1-8b", "h100-sxm", 2, "ttft_ms<=5000,itl_ms<=200", wl, catalog=catalog, max_num_seqs=(8, 16))
    assert not given.swept and given.levels == [1] and levels_lines(given)[0] == "concurrency levels tried: 1"
    assert levels_lines(given)[1].startswith("4 of 4 configurations still met the SLO at 1, the highest level tried")


def test_lengths_beyond_every_context_are_refused_not_ranked_as_missing_the_slo(catalog: Catalog) -> None:
    """D16: every configuration was ranked "(no level meets the SLO)" while every request overflowed the context."""
    from servescope.errors import BadArgument

    work = SyntheticWorkload((8,), 1_000_000, 32, num_requests=4)
    with pytest.raises(BadArgument) as info:
        search("llama-3.1-8b", "h100-sxm", 2, "ttft_ms<=500", work, catalog=catalog, max_num_seqs=(8,), workers=1)
    text = str(info.value)
    assert text.startswith("--isl 1,000,000 + --osl 32 exceeds llama-3.1-8b's context of 131,072 tokens (max_model_len)"), text
    assert "\n" not in text and info.value.exit_code == 2


def test_a_search_over_the_limit_names_what_search_takes(catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    """D15: the refusal counted no configurations and pointed at options search does not have."""
    from servescope import limits

    monkeypatch.setattr(limits, "MAX_SEARCH_CANDIDATES", 3)
    work = SyntheticWorkload((8,), 128, 16, num_requests=4)
    with pytest.raises(ValueError) as info:
        search("llama-3.1-8b", "h100-sxm", 2, "ttft_ms<=500", work, catalog=catalog, max_num_seqs=(8, 16), weight_dtypes="bf16,fp8")
    text = str(info.value)
    assert "this search would try 8 configurations (1 --engines x 2 --dtypes x 2 tp sizes of --gpus 2 x 2 --max-num-seqs)" in text, text
    assert "give fewer --max-num-seqs, --engines or --dtypes" in text and "--num-requests" not in text, text


@pytest.mark.parametrize("command", ["search", "run"])
def test_help_keeps_the_extra_in_brackets(command: str) -> None:
    """D1: rich read ``[ray]`` of ``pip install 'servescope[ray]'`` as markup and dropped it."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "COLUMNS": "400"}
    proc = subprocess.run([sys.executable, "-m", "servescope", command, "--help"], capture_output=True, text=True, timeout=120, env=env, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "pip install 'servescope[ray]'" in proc.stdout, proc.stdout


def test_an_engine_version_that_is_not_a_version_is_one_line() -> None:
    from servescope.predict.search import parse_engines

    with pytest.raises(ValueError, match=r"^--engines 'vllm@banana': 'banana' is not a version; give the engine's release") as info:
        parse_engines("sglang@0.5.2,vllm@banana")
    assert "\n" not in str(info.value)
    assert parse_engines("vllm@v0.8.5,sglang@0.5.5.post1") == [("vllm", "v0.8.5"), ("sglang", "0.5.5.post1")]


def test_the_search_line_says_which_statistic_an_unprefixed_slo_is_checked_on() -> None:
    """``ttft_ms<=500`` is p90 in search (its --percentile), p99 in predict --max-rate, per
    request in run: search's header says which, a prefixed SLO names its own."""

    outcome = search("llama-3.1-8b", "h100-sxm", 8, "ttft_ms<=500,p99_itl_ms<=30", SyntheticWorkload(concurrency=(8,), isl=256, osl=32))
    assert "SLO: ttft_ms<=500 (p90), p99_itl_ms<=30" in format_search(outcome)
    mean = search("llama-3.1-8b", "h100-sxm", 8, "ttft_ms<=500", SyntheticWorkload(concurrency=(8,), isl=256, osl=32), percentile=None)
    assert "SLO: ttft_ms<=500 (mean)" in format_search(mean)
