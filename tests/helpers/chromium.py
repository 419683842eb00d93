"""Headless Chromium for the visualization tests: screenshots of an HTML file at a virtual
time, as RGB arrays.

Chromium runs with no sandbox, GPU or network services (``--virtual-time-budget`` advances
the page's clock, so an animation's progress is deterministic in virtual milliseconds; WebGL
renders in software, SwiftShader). Without chromium the tests skip, except in CI (``CI`` set),
where they fail: .ci/run installs it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

import numpy as np
import pytest

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--enable-unsafe-swiftshader",
         "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--hide-scrollbars",
         "--disable-dev-shm-usage")
TIMEOUT_S = 180


def chromium() -> str:
    """The chromium executable; skips the test if absent (fails in CI)."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    if os.environ.get("CI"):
        pytest.fail("chromium is not installed; CI must have it (.ci/run installs it)")
    pytest.skip("chromium is not installed (apt-get install chromium)")


def screenshot(html_path, *, size=(640, 480), virtual_time_ms=1000) -> np.ndarray:
    """(H, W, 3) uint8 RGB screenshot of ``html_path`` after ``virtual_time_ms`` of page time."""
    from PIL import Image

    exe = chromium()
    with tempfile.TemporaryDirectory() as tmp:
        png = os.path.join(tmp, "shot.png")
        cmd = [exe, *FLAGS, f"--user-data-dir={os.path.join(tmp, 'profile')}",
               f"--screenshot={png}", f"--window-size={size[0]},{size[1]}",
               f"--virtual-time-budget={int(virtual_time_ms)}",
               "file://" + os.path.abspath(html_path)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S)
        if not os.path.isfile(png):
            raise AssertionError(f"chromium wrote no screenshot (exit {proc.returncode}):\n"
                                 + proc.stderr[-2000:])
        return np.asarray(Image.open(png).convert("RGB"))


def changed(a, b, threshold=40) -> np.ndarray:
    """(H, W) bool: pixels whose RGB differ by more than ``threshold`` (sum of |difference|)."""
    return np.abs(a.astype(int) - b.astype(int)).sum(axis=-1) > threshold
