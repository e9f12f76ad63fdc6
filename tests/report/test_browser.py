"""The report as a person sees it: opened from disk in headless Chromium."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.report.browser import Watch
from tests.report.fixtures import V1, V2

pytestmark = pytest.mark.integration


def cell(page: Any, workload: str, model: str, hardware: str) -> Any:
    return page.locator(f'.facet[data-workload="{workload}"] td.cell[data-model="{model}"][data-hardware="{hardware}"]')


def test_coverage_cells_and_stale_marks(page: Any, site: Path) -> None:
    page.goto((site / "index.html").as_uri())
    expected = {  # (workload, model, hardware) -> (status, stale)
        (V1, "servescope-tiny-llama", "generic-cpu"): ("measured", "true"),
        (V2, "servescope-tiny-llama", "generic-cpu"): ("measured", "false"),
        (V2, "llama-3.1-8b", "h100-sxm"): ("predicted", "false"),
        (V2, "qwen2.5-7b", "h200"): ("imported", "false"),
        (V2, "llama-3.1-8b", "a100-80gb"): ("measured", "true"),
        (V2, "qwen2.5-7b", "generic-cpu"): ("none", "false"),
        (V1, "llama-3.1-8b", "h100-sxm"): ("none", "false"),
        ("all workloads", "servescope-tiny-llama", "generic-cpu"): ("measured", "false"),  # the v2 run is current
    }
    for (workload, model, hardware), (status, stale) in expected.items():
        c = cell(page, workload, model, hardware)
        assert c.count() == 1, (workload, model, hardware)
        assert (c.get_attribute("data-status"), c.get_attribute("data-stale")) == (status, stale), (workload, model, hardware)
        assert c.locator(".stale-mark").count() == (1 if stale == "true" else 0)
    assert cell(page, V2, "servescope-tiny-llama", "generic-cpu").locator(".count").inner_text() == "1 measured · 1 predicted"
    # stale is drawn, not only written: the hatched background differs from a current measured cell
    hatch = cell(page, V1, "servescope-tiny-llama", "generic-cpu").evaluate("e => getComputedStyle(e).backgroundImage")
    plain = cell(page, V2, "servescope-tiny-llama", "generic-cpu").evaluate("e => getComputedStyle(e).backgroundImage")
    assert "repeating-linear-gradient" in hatch and plain == "none"


def test_hovering_a_cell_says_why(page: Any, site: Path) -> None:
    page.goto((site / "index.html").as_uri())
    old_engine = cell(page, V2, "llama-3.1-8b", "a100-80gb")
    assert not old_engine.locator(".why").is_visible()
    old_engine.hover()
    why = old_engine.locator(".why")
    assert why.is_visible()
    assert "engine vllm 0.27.0 is 2 minor versions behind 0.29.0" in why.inner_text()
    superseded = cell(page, V1, "servescope-tiny-llama", "generic-cpu")
    superseded.hover()
    assert f"workload {V1} is superseded by {V2}" in superseded.locator(".why").inner_text()


def test_charts_render_and_hovering_a_point_shows_its_tooltip(page: Any, site: Path, tmp_path: Path) -> None:
    page.goto((site / "index.html").as_uri())
    page.get_by_role("link", name=V2).first.click()
    page.wait_for_selector(".chart .main-svg")
    charts = page.locator(".chart")
    assert charts.count() >= 4  # throughput, TTFT, ITL, Pareto
    for i in range(charts.count()):
        assert charts.nth(i).locator(".scatterlayer .point").count() > 0
    first = charts.first  # output tok/s: the measured tiny-llama v2 sweep is paired with its prediction
    traces = first.locator(".scatterlayer .trace")
    point = None
    for t in range(traces.count()):
        names = traces.nth(t).locator(".point")
        if names.count() == 3:
            point = names.nth(1)
            break
    assert point is not None
    box = point.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    tip = first.locator(".hoverlayer .hovertext")
    tip.wait_for(timeout=5000)
    text = tip.text_content() or ""
    assert "concurrency 2" in text and "tok/s" in text
    shot = tmp_path / "workload.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000


def test_prediction_error_is_in_the_measured_points_tooltip(page: Any, site: Path) -> None:
    page.goto((site / "index.html").as_uri())
    page.get_by_role("link", name=V2).first.click()
    page.wait_for_selector(".chart .main-svg")
    texts = page.evaluate("() => Array.from(document.querySelectorAll('.chart')).flatMap(c => (c.data || []).flatMap(t => t.text || []))")
    assert any("predicted by tiny-v2-prediction: error +10.0%" in t for t in texts)


def test_v1_run_links_to_its_v2_and_the_link_navigates(page: Any, site: Path) -> None:
    v1_page = next((site / "runs").glob("tiny-v1-run-*.html"))
    page.goto(v1_page.as_uri())
    link = page.locator("a.successor")
    assert f"superseded by {V2}" in link.inner_text()
    link.click()
    page.wait_for_load_state("load")
    assert "/runs/tiny-v2-run-" in page.url
    assert page.locator("h1").inner_text() == "Result tiny-v2-run"
    assert page.locator("p.predecessor a").first.inner_text() == "tiny-v1-run"


def test_prediction_page_links_to_the_measurement(page: Any, site: Path) -> None:
    page.goto(next((site / "runs").glob("tiny-v2-prediction-*.html")).as_uri())
    page.locator("a.compared").first.click()
    page.wait_for_load_state("load")
    assert page.locator("h1").inner_text() == "Result tiny-v2-run"


def test_script_in_document_text_renders_inert(page: Any, site: Path) -> None:
    pages = [
        site / "index.html",
        next((site / "runs").glob("tiny-v2-run-*.html")),
        next((site / "runs").glob("evil-model-run-*.html")),
        *(site / "workloads").glob("*.html"),
    ]
    for p in pages:
        page.goto(p.as_uri())
        page.wait_for_load_state("load")
        assert page.evaluate("() => window.__pwned") is None, p
        assert page.locator("body script:not([src]):not([type='application/json'])").count() == 0
    page.goto(pages[1].as_uri())
    assert "<script>window.__pwned = 1</script>" in page.locator("body").inner_text()  # shown as text


def test_pages_load_only_local_files(browser: tuple[Any, Watch], page: Any, site: Path) -> None:
    _, watch = browser
    page.goto((site / "index.html").as_uri())
    page.get_by_role("link", name=V2).first.click()
    page.wait_for_selector(".chart .main-svg")
    assert any(u.endswith("/assets/plotly.min.js") for u in watch.requests)
    assert all(u.startswith("file://") for u in watch.requests), watch.requests
    csp = page.locator('meta[http-equiv="Content-Security-Policy"]').get_attribute("content")
    assert "script-src 'self'" in csp and "default-src 'none'" in csp


def test_summary_table_sorts(page: Any, site: Path) -> None:
    page.goto((site / "index.html").as_uri())
    table = page.locator("table.summary")
    header = table.locator("th", has_text="episodes")
    header.click()
    first = table.locator("tbody tr").first.locator("td").nth(5).inner_text()
    header.click()
    again = table.locator("tbody tr").first.locator("td").nth(5).inner_text()
    assert (first, again) == ("1", "2")


def test_prediction_error_chart_shows_each_paired_point(page: Any, site: Path) -> None:
    page.goto(next((site / "workloads").glob(f"{V2}-*.html")).as_uri())
    page.wait_for_selector(".chart .main-svg")
    errors = page.evaluate(
        "() => Array.from(document.querySelectorAll('.chart')).filter(c => c.layout && c.layout.title.text.startsWith('Prediction error'))"
        ".flatMap(c => c.data.map(t => [t.name, t.x, t.y.map(v => Math.round(v * 10) / 10), t.text[0]]))"
    )
    # the fixture's prediction is +10 % on tok/s at every point, and TTFT mean 0.9 x 2 x p50 against (p50 + 3 p50) / 2
    by_metric = {name: (x, y, text) for name, x, y, text in errors}
    assert by_metric["tok/s"][:2] == ([1, 2, 4], [10.0, 10.0, 10.0])
    assert by_metric["TTFT"][:2] == ([1, 2, 4], [-10.0, -10.0, -10.0])
    assert "<b>tiny-v2-prediction</b> vs <b>tiny-v2-run</b>" in by_metric["tok/s"][2]


def test_eval_accuracy_chart_draws_the_wilson_interval(page: Any, site: Path) -> None:
    page.goto(next((site / "workloads").glob("eval-report-v1-*.html")).as_uri())
    page.wait_for_selector(".chart .main-svg")
    accuracy = page.evaluate(
        "() => Array.from(document.querySelectorAll('.chart')).filter(c => c.layout.title.text.startsWith('Eval accuracy'))"
        ".map(c => [c.data[0].y[0], c.data[0].error_y.array[0], c.data[0].error_y.arrayminus[0]])"
    )
    [(acc, up, down)] = accuracy
    assert (acc, round(acc + up, 4), round(acc - down, 4)) == (0.75, 0.8881, 0.5313)  # 15 of 20, Wilson by hand
    chart = page.locator(".chart", has=page.locator(".gtitle", has_text="Eval accuracy"))
    assert chart.locator(".errorbar").count() == 1
