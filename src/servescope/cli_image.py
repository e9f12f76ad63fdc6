"""``servescope t2i-reference``: render a fidelity suite's reference bundle once
(``bench.images.reference``); the command parses, calls and prints."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer

from servescope.errors import UsageError


def t2i_reference_command(
    spec: Annotated[Path, typer.Option(help="The reference spec (JSON/YAML): endpoint, workload, model, engine_id, label, render overrides.")],
    out: Annotated[Path, typer.Option(help="A new (or empty) folder for the bundle's manifest.json; no image is written.")],
    endpoint: Annotated[str | None, typer.Option(help="The reference lane's URL (overrides the spec's endpoint).")] = None,
    timeout: Annotated[float, typer.Option(help="Seconds one render may take.")] = 600.0,
) -> None:
    """Render every case of a fidelity suite once on the reference lane and write its bundle (sha256, pHash, render digest per case)."""
    from servescope.bench.client import make_session
    from servescope.bench.endpoint import Endpoint
    from servescope.bench.images import require
    from servescope.bench.images.reference import check_fidelity_suite, check_out_dir, load_spec, make_bundle, write_bundle
    from servescope.bench.run import _check_reachable  # the one reachability check every run makes
    from servescope.bench.runners.image import preflight
    from servescope.catalog.store import Catalog
    from servescope.workload.plan import plan

    require("PIL", "t2i-reference (decoding renders)")
    require("imagehash", "t2i-reference (pHash)")
    ref = load_spec(spec)
    url = endpoint or ref.endpoint
    if not url:
        raise UsageError(f"--spec {spec}: no endpoint (give endpoint: URL in the spec, or --endpoint URL)")
    check_out_dir(out)
    catalog = Catalog.load()
    workload = catalog.workload(ref.workload)
    check_fidelity_suite(workload, f"--spec {spec}: workload")
    points = plan(workload, catalog.dataset_rows(workload.dataset_id))
    lane = Endpoint.create(url, ref.model, api_key_env=ref.api_key_env)

    async def go() -> dict[str, object]:
        async with make_session() as session:
            await _check_reachable(session, lane)
            await preflight(session, lane)
            return await make_bundle(session, lane, ref, workload, points, timeout)

    manifest = asyncio.run(go())
    try:
        out.mkdir(parents=True, exist_ok=True)
        path = write_bundle(out, manifest)
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot write the bundle there ({exc.strerror or exc})") from None
    cases = manifest["cases"]
    typer.echo(f"{len(cases) if isinstance(cases, dict) else 0} case(s) of {workload.id} rendered; bundle: {path}")
