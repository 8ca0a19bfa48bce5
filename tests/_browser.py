"""Headless Debian Chromium for the browser tests (``tests/test_site.py``, ``tests/test_lab.py``).

``KERNELCLF_CHROMIUM`` overrides the executable; ``.ci/ensure_chromium.py`` installs it.
"""
import contextlib
import os
import shutil
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("KERNELCLF_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"


@contextlib.contextmanager
def chromium():
    """A Playwright browser on the system Chromium, closed on exit."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium not found at {CHROMIUM}: install Debian's `chromium` package")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"])
        try:
            yield b
        finally:
            b.close()
