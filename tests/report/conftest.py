"""The fixture set written once, its report built once, and one browser per test module."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from servescope.report import write_report
from tests.report.browser import Watch, chromium
from tests.report.fixtures import write_fixture_set


@pytest.fixture(scope="session")
def fixture_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_fixture_set(tmp_path_factory.mktemp("report-fixtures"))


@pytest.fixture(scope="session")
def site(fixture_set: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report-site")
    write_report([fixture_set], out)
    return out


@pytest.fixture(scope="module")  # playwright's sync API holds the main thread's event loop while it is open
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Watch]]:
    with chromium(tmp_path_factory.mktemp("chromium-profile")) as ctx:
        yield ctx


@pytest.fixture
def page(browser: tuple[Any, Watch]) -> Iterator[Any]:
    """A fresh page; when the test ends, no page of it logged an error or left the disk."""
    context, watch = browser
    watch.console_errors.clear(), watch.page_errors.clear(), watch.remote_requests.clear(), watch.requests.clear()
    p = context.new_page()
    yield p
    p.close()
    watch.assert_clean()
