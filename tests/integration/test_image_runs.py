"""Image workloads and scored image suites end to end, against the tiny diffusion
server (servescope.testing.image: a randomly initialised diffusers pipeline built
offline) on loopback: Results valid with the seed's metrics, the lane's own time
preferred, fidelity against a t2i-reference bundle, OCR and RGBA on real renders,
one clear line for what cannot run, and no image left on disk — even by a run
killed mid-way."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("diffusers", reason="the image extra (torch, diffusers) runs the tiny image engine: pip install 'servescope[image]'")

from servescope.analysis.compare import compare
from servescope.analysis.summarize import group_results, image_lines, summary_rows
from servescope.bench.records import read_records
from servescope.bench.run import RunArtifacts, RunOptions, run_workload
from servescope.catalog.store import Catalog
from servescope.catalog.validate import validate_paths
from servescope.testing.image.server import ImageServer
from servescope.testing.truth.server import TruthServer

pytestmark = pytest.mark.integration

BASE = {"immutable": True, "created": "2026-12-06", "supersedes": None, "description": "image integration test workload"}
SHAPE = {"concurrency": 1, "width": 64, "height": 64, "steps": 2, "seed": 0, "ref_images": 0, "timeout_s": 60}
WORKLOADS: list[dict[str, Any]] = [
    {
        "id": "image-itest-n2-v1",
        "kind": "image",
        "name": "two images per request",
        "dataset_id": "t2i-prompts-v1",
        "params": {**SHAPE, "images_per_request": 2, "num_requests": 2, "repeat": 2, "warmup_requests": 1},
        "metrics_required": ["s_per_image.p50"],
    },
    {
        "id": "image-itest-guided-v1",
        "kind": "image",
        "name": "guidance pinned",
        "dataset_id": "t2i-prompts-v1",
        "params": {**SHAPE, "images_per_request": 1, "num_requests": 2, "guidance": 1.0},
        "metrics_required": ["s_per_image.p50"],
    },
    {
        "id": "image-itest-slow-v1",
        "kind": "image",
        "name": "many renders (to be killed mid-way)",
        "dataset_id": "t2i-prompts-v1",
        "params": {**SHAPE, "images_per_request": 1, "repeat": 6},
        "metrics_required": [],
    },
    {
        "id": "eval-itest-clip-v1",
        "kind": "eval",
        "name": "a clip suite",
        "dataset_id": "itest-clip-v1",
        "params": {"concurrency": 1, "num_requests": 1, "timeout_s": 60},
        "eval": {"scorer": "clip"},
        "metrics_required": ["accuracy"],
    },
]
CLIP_ROWS = [{"id": "clip-0", "text": "a red apple", "render": {"width": 64, "height": 64, "steps": 2, "seed": 0}}]

PNG, JPEG, WEBP, GIF = b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"RIFF", b"GIF8"


@pytest.fixture(scope="module")
def catalog_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("image-catalog")
    (root / "workloads").mkdir()
    (root / "datasets").mkdir()
    for w in WORKLOADS:
        (root / "workloads" / f"{w['id']}.json").write_text(json.dumps(BASE | w, indent=2), encoding="utf-8")
    blob = "".join(json.dumps(r, sort_keys=True) + "\n" for r in CLIP_ROWS).encode()
    (root / "datasets" / "itest-clip-v1.jsonl").write_bytes(blob)
    manifest = {
        "kind": "Dataset",
        "id": "itest-clip-v1",
        "name": "clip rows",
        "rows_file": "itest-clip-v1.jsonl",
        "rows_sha256": hashlib.sha256(blob).hexdigest(),
        "row_count": len(CLIP_ROWS),
        "immutable": True,
        "created": "2026-12-06",
    }
    (root / "datasets" / "itest-clip-v1.json").write_text(json.dumps(manifest), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def catalog(catalog_root: Path) -> Catalog:
    return Catalog.load([catalog_root])


@pytest.fixture(scope="module")
def server() -> Iterator[ImageServer]:
    with ImageServer() as srv:
        yield srv


def _run(workload: str, url: str, out: Path, catalog: Catalog, **kw: Any) -> RunArtifacts:
    return run_workload(RunOptions(workload_id=workload, endpoint=url, out_dir=out, scrape_metrics=False, **kw), catalog=catalog)


def _default_sigint() -> None:
    """In the child, before exec: SIGINT does what Ctrl-C does, whatever this test process inherited or set
    (an ignored SIGINT is inherited across exec, and Python then installs no KeyboardInterrupt)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _cli(*args: str, catalog_root: Path, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    full = {**os.environ, "SERVESCOPE_CATALOG_PATH": str(catalog_root), **(env or {})}
    return subprocess.Popen(
        [sys.executable, "-m", "servescope", *args], env=full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_default_sigint
    )


def _one_line(proc: subprocess.Popen[str], timeout: float = 180) -> tuple[int, str]:
    stdout, stderr = proc.communicate(timeout=timeout)
    assert "Traceback" not in stderr, stderr
    lines = [ln for ln in stderr.strip().splitlines() if ln.startswith("error:")]
    assert len(lines) == 1, stdout + stderr
    return proc.returncode, lines[0]


def _measured(art: RunArtifacts) -> list[Any]:
    return [r for r in read_records(art.records_path) if r.phase == "measured"]


def _image_files(root: Path) -> list[Path]:
    found = []
    for path in root.rglob("*"):
        if path.is_file():
            with path.open("rb") as fh:
                head = fh.read(12)
            if head.startswith((PNG, JPEG, GIF)) or (head.startswith(WEBP) and head[8:12] == b"WEBP"):
                found.append(path)
    return found


def test_image_workload_writes_a_valid_result_with_the_seeds_metrics(server: ImageServer, catalog: Catalog, tmp_path: Path) -> None:
    art = _run("image-t2i-64-s4-v1", server.base_url, tmp_path, catalog)
    report = validate_paths([art.result_path], catalog=catalog)  # metrics_required (s_per_image.p50, ...) checked non-null
    assert all(f.ok for f in report.files) and not [i for f in report.files for i in f.issues], [i for f in report.files for i in f.issues]
    m = art.result.metrics
    assert m.completed_requests == m.total_requests == 16  # 8 prompts x repeat 2; the warm-up render is not counted
    assert m.s_per_image is not None and m.s_per_image.count == 16 and m.s_per_image.p50 is not None and m.s_per_image.p50 > 0
    assert art.result.resolved_params["concurrency"] == 1
    records = list(read_records(art.records_path))
    assert [r.phase for r in records].count("warmup") == 1
    assert all(r.raw is not None and r.raw["payload"]["timing_source"] == "lane" for r in records)
    assert all(r.output_text is None for r in records)
    assert art.result.args["guidance"] == 3.0 and art.result.args["guidance_source"] == "lane-reported"  # guidance: null = the lane's default
    assert _image_files(tmp_path) == []
    # downstream: summarize's image columns and Images section, compare's s_per_image pair
    groups = group_results([art.result])
    [row] = summary_rows(groups, "v0.3")
    assert row["image_renders"] == 16 and row["s_per_image_p50_mean"] == m.s_per_image.p50
    assert "## Images" in image_lines(groups)
    pairs = [p for p in compare(art.result, art.result).pairs if p.metric == "s_per_image"]
    assert len(pairs) == 1 and pairs[0].a == m.s_per_image.mean and pairs[0].error_pct == 0.0


def test_the_lanes_own_time_is_preferred_and_the_wall_clock_used_without_it(server: ImageServer, catalog: Catalog, tmp_path: Path) -> None:
    with server.behaving(extra_latency_ms=150) as slow:
        art = _run("image-itest-guided-v1", slow.base_url, tmp_path / "lane", catalog)
    for r in _measured(art):
        p = r.raw["payload"]
        assert p["timing_source"] == "lane" and p["s_per_image"] == pytest.approx(p["lane_total_ms"] / 1000)
        assert p["wall_ms"] >= p["lane_total_ms"] + 140  # the wait outside the lane's own time is not counted
    with server.behaving(timing=False) as silent:
        art = _run("image-itest-guided-v1", silent.base_url, tmp_path / "wall", catalog)
    for r in _measured(art):
        p = r.raw["payload"]
        assert p["timing_source"] == "wall" and p["lane_total_ms"] is None and p["s_per_image"] == pytest.approx(p["wall_ms"] / 1000)
    assert art.result.args["guidance"] == 1.0 and art.result.args["guidance_source"] == "workload"
    with server.behaving(fault="inflated-timing") as liar:  # a lane time longer than the whole request is not its inference time
        art = _run("image-itest-guided-v1", liar.base_url, tmp_path / "liar", catalog)
    for r in _measured(art):
        p = r.raw["payload"]
        assert p["timing_source"] == "wall" and p["lane_total_ms"] > 60_000 and "exceeds the wall clock" in p["timing_note"]
        assert p["s_per_image"] == pytest.approx(p["wall_ms"] / 1000)


def test_several_images_per_request_count_time_per_image(server: ImageServer, catalog: Catalog, tmp_path: Path) -> None:
    art = _run("image-itest-n2-v1", server.base_url, tmp_path, catalog)
    measured = _measured(art)
    assert len(measured) == 4  # 2 prompts x repeat 2
    for r in measured:
        p = r.raw["payload"]
        assert p["images"] == 2 and p["s_per_image"] == pytest.approx(p["lane_total_ms"] / 1000 / 2)


def test_extra_body_fields_reach_the_lane_and_the_args(server: ImageServer, catalog: Catalog, tmp_path: Path) -> None:
    art = _run("image-itest-guided-v1", server.base_url, tmp_path, catalog, extra_body={"negative_prompt": "blurry"})
    assert art.result.metrics.completed_requests == 2 and art.result.args["request.negative_prompt"] == "blurry"


def test_edit_workload_sends_reference_images(server: ImageServer, catalog: Catalog, tmp_path: Path) -> None:
    art = _run("image-edit-64-s4-v1", server.base_url, tmp_path, catalog)
    assert art.result.metrics.completed_requests == 8 and art.result.metrics.failed_requests == 0
    assert _image_files(tmp_path) == []


def test_fidelity_scores_one_against_its_own_bundle_and_refuses_another_spec(server: ImageServer, catalog_root: Path, tmp_path: Path) -> None:
    same = tmp_path / "spec.json"
    same.write_text(json.dumps({"endpoint": server.base_url, "label": "bf16"}), encoding="utf-8")
    other = tmp_path / "spec-8.json"
    other.write_text(json.dumps({"endpoint": server.base_url, "label": "bf16", "render": {"steps": 8}}), encoding="utf-8")
    for spec, out in ((same, "ref"), (other, "ref8")):
        proc = _cli("t2i-reference", "--spec", str(spec), "--out", str(tmp_path / out), catalog_root=catalog_root)
        stdout, stderr = proc.communicate(timeout=300)
        assert proc.returncode == 0, stdout + stderr
    manifest = json.loads((tmp_path / "ref" / "manifest.json").read_text())
    assert set(manifest["cases"]) == {f"fidelity-{i}" for i in range(6)} and all(len(c["phash"]) == 16 for c in manifest["cases"].values())
    assert [p.name for p in (tmp_path / "ref").iterdir()] == ["manifest.json"]  # numbers only, no image

    runs = tmp_path / "runs"
    proc = _cli(
        "run", "eval-t2i-fidelity-v1", "--endpoint", server.base_url, "--reference-bundle", str(tmp_path / "ref"), "--out", str(runs), catalog_root=catalog_root
    )
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stdout + stderr
    [result_path] = runs.glob("*/result.json")
    scores = json.loads(result_path.read_text())["scores"]
    assert scores["accuracy"] == 1.0 and all(i["score"] == 1.0 and i["predicted"] is None for i in scores["items"])
    for item in scores["items"]:  # the render's 64-bit pHash is what the Result keeps of it
        assert item["detail"].startswith(f"pHash {manifest['cases'][item['id']]['phash']} vs reference {manifest['cases'][item['id']]['phash']}: distance 0")

    proc = _cli(
        "run",
        "eval-t2i-fidelity-v1",
        "--endpoint",
        server.base_url,
        "--reference-bundle",
        str(tmp_path / "ref8"),
        "--out",
        str(runs),
        catalog_root=catalog_root,
    )
    code, line = _one_line(proc)
    assert code == 2 and "case fidelity-0's reference was rendered from another spec" in line
    assert len(list(runs.glob("*/result.json"))) == 1  # the refused run wrote nothing

    proc = _cli("run", "eval-t2i-fidelity-v1", "--endpoint", server.base_url, "--out", str(runs), catalog_root=catalog_root)
    code, line = _one_line(proc)
    assert code == 2 and "--reference-bundle DIR" in line


def test_ocr_passes_on_a_render_of_known_text_and_fails_on_noise(server: ImageServer, catalog: Catalog, tmp_path: Path) -> None:
    text = _run("eval-t2i-ocr-v1", server.base_url, tmp_path / "text", catalog, model="tiny-text-render")
    assert text.result.scores is not None and text.result.scores.accuracy == 1.0
    assert all(i.predicted is None for i in text.result.scores.items)  # the reading is generated content: never kept
    noise = _run("eval-t2i-ocr-v1", server.base_url, tmp_path / "noise", catalog)
    assert noise.result.scores is not None and noise.result.scores.accuracy == 0.0
    assert noise.result.metrics.success_rate == 1.0  # wrong renders are not failed requests


def test_rgba_needs_an_alpha_channel_in_use(server: ImageServer, catalog: Catalog, tmp_path: Path) -> None:
    transparent = _run("eval-t2i-rgba-v1", server.base_url, tmp_path / "rgba", catalog, model="tiny-text-render")
    assert transparent.result.scores is not None and transparent.result.scores.accuracy == 1.0
    opaque = _run("eval-t2i-rgba-v1", server.base_url, tmp_path / "rgb", catalog)  # the diffusion model renders RGB
    assert opaque.result.scores is not None and opaque.result.scores.accuracy == 0.0


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGINT])
def test_nothing_is_left_on_disk_by_a_run_killed_mid_way(catalog_root: Path, tmp_path: Path, how: signal.Signals) -> None:
    """Renders are decoded in memory only: a private TMPDIR stays empty and no image file
    appears under the output folder, whether the run is interrupted or SIGKILLed."""
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    runs = tmp_path / "runs"
    with ImageServer(extra_latency_ms=100) as srv:  # its own: a killed client's renders are left queued on it
        proc = _cli("run", "image-itest-slow-v1", "--endpoint", srv.base_url, "--out", str(runs), catalog_root=catalog_root, env={"TMPDIR": str(tmpdir)})
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            found = list(runs.glob("*/records.jsonl"))
            if found and sum(1 for _ in read_records(found[0])) >= 3:
                break
            time.sleep(0.05)
        else:
            pytest.fail("the run never wrote three records")
        proc.send_signal(how)
        proc.communicate(timeout=60)
    [records] = runs.glob("*/records.jsonl")
    assert not (records.parent / "result.json").exists() or how == signal.SIGINT
    assert sum(1 for _ in read_records(records)) < 48  # killed before the end
    assert list(tmpdir.rglob("*")) == []
    assert _image_files(runs) == []


def test_wrong_server_and_non_image_answers(server: ImageServer, catalog_root: Path, catalog: Catalog, tmp_path: Path) -> None:
    with TruthServer(ttft_ms=1, itl_ms=1) as text_server:
        code, line = _one_line(_cli("run", "image-t2i-64-s4-v1", "--endpoint", text_server.base_url, "--out", str(tmp_path), catalog_root=catalog_root))
    assert code == 1 and "does not serve the OpenAI images API" in line
    assert not list(tmp_path.glob("*/records.jsonl"))  # refused before anything was written
    for fault, says in (("not-image", "b64_json is not an image"), ("no-data", "no data[] of images")):
        with server.behaving(fault=fault) as broken:
            art = _run("image-itest-guided-v1", broken.base_url, tmp_path / fault, catalog)
        m = art.result.metrics
        assert m.completed_requests == 0 and m.failed_requests == 2 and m.s_per_image is None  # nothing measured: null, not 0
        [failure] = art.result.failures
        assert failure.category == "malformed-output" and says in failure.message


def test_what_an_image_run_cannot_honour_is_one_line(server: ImageServer, catalog_root: Path, tmp_path: Path) -> None:
    out = str(tmp_path)
    cases = [
        (["run", "image-t2i-64-s4-v1", "--out", out], "needs --endpoint URL of an image server"),
        (["run", "image-t2i-64-s4-v1", "--endpoint", server.base_url, "--concurrency", "2", "--out", out], "--concurrency does not apply"),
        (["run", "image-t2i-64-s4-v1", "--endpoint", server.base_url, "--rate", "2", "--out", out], "--rate does not apply"),
        (["run", "image-t2i-64-s4-v1", "--endpoint", server.base_url, "--extra-body", '{"seed": 3}', "--out", out], "--extra-body sets seed"),
        (["run", "image-t2i-64-s4-v1", "--endpoint", server.base_url, "--api", "completions", "--out", out], "--api does not apply"),
        (["run", "eval-itest-clip-v1", "--endpoint", server.base_url, "--out", out], "the clip scorer is not available"),
        (["run", "serve-chat-c8-i1k-o256-v1", "--endpoint", server.base_url, "--reference-bundle", out, "--out", out], "--reference-bundle applies"),
        (["predict", "tiny-llama-on-cpu", "image-t2i-64-s4-v1", "--out", out], "the simulator models LLM serving"),
        (["t2i-reference", "--spec", str(tmp_path / "missing.json"), "--out", str(tmp_path / "b")], "--spec"),
    ]
    for args, says in cases:
        code, line = _one_line(_cli(*args, catalog_root=catalog_root))
        assert code == 2 and says in line, (args, code, line)
    assert _image_files(tmp_path) == [] and not list(tmp_path.glob("*/records.jsonl"))


def test_a_workload_file_missing_an_image_param_is_one_line(server: ImageServer, catalog_root: Path, tmp_path: Path) -> None:
    doc = BASE | WORKLOADS[1] | {"id": "image-mine-v1"}
    doc["params"] = {k: v for k, v in doc["params"].items() if k != "steps"}
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    code, line = _one_line(_cli("run", str(path), "--endpoint", server.base_url, "--out", str(tmp_path / "runs"), catalog_root=catalog_root))
    assert code != 3 and "params.steps" in line and "required for image workloads" in line


def test_a_started_server_plays_another_lane_inside_behaving_and_refuses_an_unknown_one(server: ImageServer) -> None:
    """One started server (torch and diffusers take seconds to import) plays each lane a test needs."""
    import urllib.error

    ask = {"prompt": "a red square", "size": "64x64", "num_inference_steps": 1}
    with server.behaving(fault="no-data", timing=False):
        assert "data" not in server.post("/v1/images/generations", ask)
    answer = server.post("/v1/images/generations", ask)  # as started again
    assert len(answer["data"]) == 1 and "timing" in answer
    for bad in ({"fault": "melted"}, {"extra_latency_ms": -1}, {"stall": True}):
        with pytest.raises(urllib.error.HTTPError) as err:
            server.post("/_servescope/behaviour", bad)
        assert err.value.code == 400
        err.value.close()
