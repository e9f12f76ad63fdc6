"""Reference bundles of the fidelity suite: ``servescope t2i-reference --spec SPEC
--out DIR`` renders every case once (on the reference lane: the bf16 model on the
same box) and writes ``DIR/manifest.json``; ``run <fidelity suite>
--reference-bundle DIR`` scores against it.

The bundle holds numbers only — per case the render's sha256, its 64-bit pHash and
its render digest — never an image. The digest is recomputed from the dataset row
and the spec's render (``cases.case_digest``); a run refuses, in one line and before
sending anything, a bundle whose case was rendered from another spec, made for
another suite, or missing a case.

SPEC (JSON or YAML): ``workload`` (the fidelity suite, default
``eval-t2i-fidelity-v1``), ``endpoint`` (the reference lane; ``--endpoint``
overrides it), ``model``, ``engine_id`` (its lane adapter), ``api_key_env``,
``label`` (e.g. ``bf16``) and ``render`` (fields that override every case's render,
e.g. ``{steps: 8}``: a reference of another spec, which runs of the suite as
pinned will refuse).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from pathlib import Path
from typing import Any

import yaml
from pydantic import Field, ValidationError

from servescope.bench.endpoint import Endpoint
from servescope.bench.images import lane_for
from servescope.bench.images.cases import case_ask, case_digest, case_refs, case_render
from servescope.bench.images.client import render
from servescope.documents import Workload
from servescope.documents.base import StrictModel
from servescope.documents.record import RequestRecord
from servescope.errors import EndpointError, UsageError
from servescope.scoring.image import phash_hex
from servescope.workload.plan import PlannedPoint

MANIFEST = "manifest.json"
BUNDLE_KIND = "T2IReference"
DEFAULT_SUITE = "eval-t2i-fidelity-v1"


class ReferenceSpec(StrictModel):
    workload: str = DEFAULT_SUITE
    endpoint: str | None = None
    model: str | None = None
    engine_id: str | None = None
    api_key_env: str | None = None
    label: str | None = Field(default=None, description="What the reference lane is, e.g. bf16.")
    render: dict[str, Any] | None = Field(default=None, description="Fields that override every case's render.")


def load_spec(path: Path) -> ReferenceSpec:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"--spec {path}: cannot read it ({exc.strerror or exc})") from None
    except yaml.YAMLError as exc:
        raise UsageError(f"--spec {path}: not JSON or YAML ({' '.join(str(exc).split())[:160]})") from None
    if not isinstance(data, dict):
        raise UsageError(f"--spec {path}: must be a mapping with at least endpoint (and workload, model, label, render)")
    try:
        return ReferenceSpec.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"]) or "(top)"
        raise UsageError(f"--spec {path}: {where}: {err['msg']}") from None


def spec_sha256(spec: ReferenceSpec) -> str:
    blob = json.dumps(spec.model_dump(mode="json", exclude={"endpoint", "api_key_env"}), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


def check_fidelity_suite(workload: Workload, what: str) -> None:
    scorer = workload.eval.scorer if workload.eval is not None else None
    if workload.kind != "eval" or scorer != "fidelity":
        raise UsageError(f"{what}: {workload.id} is not a fidelity suite (kind: eval, scorer: fidelity); e.g. {DEFAULT_SUITE}")


async def make_bundle(
    session: Any, endpoint: Endpoint, spec: ReferenceSpec, workload: Workload, points: list[PlannedPoint], timeout_s: float
) -> dict[str, Any]:
    """Render every case once and return the manifest (nothing is written here)."""
    lane = lane_for(spec.engine_id)
    cases: dict[str, Any] = {}
    t0 = 0
    for req in points[0].requests:
        row = req.row
        assert row is not None  # eval plans carry their rows
        spec_render = case_render(row, spec.render)
        record = RequestRecord(request_id=req.request_id, prompt_id=row.id)
        images = await render(session, endpoint, lane, case_ask(row, spec_render, endpoint.model), case_refs(row), record, t0_ns=t0, timeout_s=timeout_s)
        if not record.ok or not images:
            raise EndpointError(f"t2i-reference: case {row.id} did not render ({record.category}: {record.error}); no bundle written")
        data, image = images[0]
        cases[row.id] = {"sha256": hashlib.sha256(data).hexdigest(), "phash": phash_hex(image), "render_digest": case_digest(row, spec_render)}
    return {
        "kind": BUNDLE_KIND,
        "workload_id": workload.id,
        "dataset_id": workload.dataset_id,
        "label": spec.label,
        "spec": spec.model_dump(mode="json", exclude={"api_key_env"}),
        "spec_sha256": spec_sha256(spec),
        "model": endpoint.model,
        "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "cases": cases,
    }


def write_bundle(out: Path, manifest: dict[str, Any]) -> Path:
    path = out / MANIFEST
    path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path


def check_out_dir(out: Path) -> None:
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UsageError(f"--out {out}: exists and is not an empty folder; a reference bundle is written once, into a new folder")


def read_bundle(bundle: Path) -> dict[str, Any]:
    path = bundle / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"--reference-bundle {bundle}: no {MANIFEST} there; make one with servescope t2i-reference --spec SPEC --out {bundle}") from None
    except (OSError, ValueError) as exc:
        raise UsageError(f"--reference-bundle {bundle}: {MANIFEST} cannot be read as JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("kind") != BUNDLE_KIND or not isinstance(data.get("cases"), dict):
        raise UsageError(f"--reference-bundle {bundle}: {MANIFEST} is not a t2i-reference manifest (kind {BUNDLE_KIND}, cases)")
    return data


def check_bundle(bundle: Path, workload: Workload, points: list[PlannedPoint]) -> dict[str, dict[str, Any]]:
    """The bundle's entry of every planned case, or one line saying which case cannot be scored against it and why."""
    data = read_bundle(bundle)
    if data.get("workload_id") != workload.id:
        raise UsageError(f"--reference-bundle {bundle}: it was made for {data.get('workload_id')!r}, this run is {workload.id}")
    cases: dict[str, Any] = data["cases"]
    out: dict[str, dict[str, Any]] = {}
    for req in (r for p in points for r in p.requests):
        row = req.row
        assert row is not None
        entry = cases.get(row.id)
        if not isinstance(entry, dict):
            raise UsageError(f"--reference-bundle {bundle}: case {row.id} has no reference there; remake the bundle with servescope t2i-reference")
        digest = case_digest(row, case_render(row))
        if entry.get("render_digest") != digest:
            raise UsageError(
                f"--reference-bundle {bundle}: case {row.id}'s reference was rendered from another spec "
                f"(render digest {str(entry.get('render_digest'))[:12]}, this case's {digest[:12]}); "
                "make a bundle of this suite's own renders with servescope t2i-reference"
            )
        out[row.id] = entry
    return out
