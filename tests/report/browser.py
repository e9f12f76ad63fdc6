"""Headless Chromium for the report tests: Debian's ``chromium`` driven by the
``playwright`` package with ``executable_path`` (no browser download), a fresh
profile per session, and a watch on every page for console errors, uncaught
exceptions and any request that is not a local file.

A missing browser or driver fails the test with one line saying what to install;
it is never a skip (``make test`` installs Chromium on Debian when run as root)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
INSTALL = (
    "install Debian's chromium (apt-get install -y chromium; `make test` does it when run as root on Debian) "
    "or point SERVESCOPE_CHROMIUM at a Chromium/Chrome binary"
)


def chromium_path() -> str:
    given = os.environ.get("SERVESCOPE_CHROMIUM")
    if given:
        if not Path(given).is_file():
            pytest.fail(f"SERVESCOPE_CHROMIUM={given}: no such file; {INSTALL}", pytrace=False)
        return given
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    pytest.fail(f"no Chromium found for the report's browser tests: {INSTALL}", pytrace=False)


@dataclass
class Watch:
    """What the pages of a test did that they must not."""

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    remote_requests: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    def attach(self, page: Any) -> None:
        page.on("console", lambda m: self.console_errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.page_errors.append(str(e)))
        page.on("request", self._request)

    def _request(self, request: Any) -> None:
        self.requests.append(request.url)
        if not request.url.startswith(("file://", "data:", "about:")):
            self.remote_requests.append(request.url)

    def assert_clean(self) -> None:
        assert self.console_errors == [], self.console_errors
        assert self.page_errors == [], self.page_errors
        assert self.remote_requests == [], self.remote_requests


@contextmanager
def chromium(profile: Path) -> Iterator[tuple[Any, Watch]]:
    """(browser context, watch): every page opened in the context is watched."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the report's browser tests need the playwright package: pip install -e '.[dev]'", pytrace=False)
    executable = chromium_path()
    watch = Watch()
    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(profile), executable_path=executable, headless=True, args=FLAGS, viewport={"width": 1400, "height": 1000}
        )
        context.on("page", watch.attach)
        try:
            yield context, watch
        finally:
            context.close()
