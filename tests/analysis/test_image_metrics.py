"""s_per_image: from each measured render's raw.payload, live and from a records file
alike; null when nothing was rendered; shown by summarize and compare."""

from __future__ import annotations

from pathlib import Path

from servescope.analysis.metrics import aggregate, seconds_per_image
from servescope.bench.records import RecordWriter, read_columns
from servescope.documents.record import RequestRecord


def _record(i: int, spi: float | None, phase: str = "measured", ok: bool = True) -> RequestRecord:
    raw = {"payload": {"timing_source": "lane", "s_per_image": spi}} if spi is not None else None
    return RequestRecord(
        request_id=f"r{i}", phase=phase, point=0, concurrency=1, start_ns=i * 10**9, end_ns=i * 10**9 + 5 * 10**8, ok=ok, raw=raw,  # type: ignore[arg-type]
        category=None if ok else "malformed-output", stage=None if ok else "stream",
    )  # fmt: skip


def test_s_per_image_is_the_distribution_over_measured_renders() -> None:
    records = [_record(0, 9.0, phase="warmup"), _record(1, 0.2), _record(2, 0.4), _record(3, None, ok=False)]
    m = aggregate(records).metrics
    assert m["s_per_image"]["count"] == 2 and abs(m["s_per_image"]["mean"] - 0.3) < 1e-12
    assert m["s_per_image"]["max"] == 0.4  # the warm-up render is excluded
    assert aggregate([_record(1, None, ok=False)]).metrics["s_per_image"] is None  # nothing rendered: null, never 0


def test_a_records_file_gives_the_same_s_per_image(tmp_path: Path) -> None:
    records = [_record(0, 9.0, phase="warmup"), _record(1, 0.2), _record(2, 0.4)]
    path = tmp_path / "records.jsonl"
    with RecordWriter(path) as w:
        w.write_header({"run_id": "r", "workload_id": "image-t2i-64-s4-v1"})
        for r in records:
            w.write(r)
    _, points, _ = read_columns(path)
    assert sorted(points[0].s_per_image) == [0.2, 0.4]


def test_only_finite_non_negative_numbers_are_seconds() -> None:
    for bad in (None, {}, {"payload": None}, {"payload": {"s_per_image": "1"}}, {"payload": {"s_per_image": -1}}, {"payload": {"s_per_image": True}}):
        assert seconds_per_image(bad) is None
    assert seconds_per_image({"payload": {"s_per_image": 0.5}}) == 0.5
