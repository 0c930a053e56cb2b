"""Headless Chromium for the tests of browser-facing pages (Debian's ``chromium``): the
``chromium`` fixture (its path; installed with apt-get as root under CI=true, else the test
skips), ``_chromium(path, *args)`` to run it, and ``CHECK_SCRIPT``, which a page gets
appended to report how many of its images loaded (``<div id="imgcheck" ...>``)."""
import os
import shutil
import subprocess
import tempfile

import pytest

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _find_chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None


@pytest.fixture(scope="session")
def chromium():
    path = _find_chromium()
    if path:
        return path
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    if not (root and os.environ.get("CI") == "true" and shutil.which("apt-get")):
        pytest.skip("chromium is not installed (install Debian's `chromium`; it is installed "
                    "automatically only as root with CI=true)")
    try:
        subprocess.run(["apt-get", "update", "-q"], capture_output=True, timeout=600)
        subprocess.run(["apt-get", "install", "-y", "-q", "chromium"], capture_output=True, timeout=900)
    except (OSError, subprocess.TimeoutExpired) as e:
        pytest.skip(f"chromium is not installed and apt-get failed: {e}")
    path = _find_chromium()
    if not path:
        pytest.skip("chromium is not installed and `apt-get install -y chromium` did not install it")
    return path


CHECK_SCRIPT = """<script>window.addEventListener('load', function () {
  var imgs = Array.prototype.slice.call(document.images);
  var bad = imgs.filter(function (i) { return !(i.complete && i.naturalWidth > 0); }).length;
  var d = document.createElement('div'); d.id = 'imgcheck';
  d.setAttribute('data-total', imgs.length); d.setAttribute('data-broken', bad);
  d.setAttribute('data-widths', imgs.map(function (i) { return i.naturalWidth; }).join(','));
  document.body.appendChild(d);
});</script>"""


def _chromium(path, *args):
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run([path, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
                              capture_output=True, text=True, timeout=180)
