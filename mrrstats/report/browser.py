"""Render a report page in headless Chromium: figures load, no code shows, no script error.

Used by the test suite and to take the screenshots committed with the example
report. Needs a Chromium binary (Debian's ``chromium`` package); nothing here
runs when there is none (:func:`find_chromium` returns None).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

__all__ = ["find_chromium", "check_page", "screenshot", "screenshots"]

_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
          "--disable-extensions", "--disable-sync", "--no-first-run", "--hide-scrollbars",
          "--mute-audio")

# Appended to a copy of the page: records script errors, then on load reports the
# figures (complete, naturalWidth > 0), the code cells that are visible, and sizes.
_PROBE = """<script>
window.__errors = [];
window.addEventListener("error", function (e) { window.__errors.push(String(e.message)); });
window.addEventListener("load", function () {
  var imgs = Array.prototype.slice.call(document.images);
  var broken = imgs.filter(function (i) { return !(i.complete && i.naturalWidth > 0); });
  var code = Array.prototype.slice.call(document.querySelectorAll(
      ".jp-CodeCell .jp-InputArea, .jp-InputArea-editor, .jp-CodeMirrorEditor, .highlight"))
      .filter(function (e) { return e.offsetParent !== null && e.offsetHeight > 0; });
  var pre = document.createElement("pre");
  pre.id = "mrrstats-check";
  pre.textContent = JSON.stringify({
    images: imgs.length, broken: broken.length, visible_code: code.length,
    errors: window.__errors, page_width: document.documentElement.clientWidth,
    page_height: document.documentElement.scrollHeight,
    figure_widths: imgs.map(function (i) { return i.getBoundingClientRect().width; })});
  document.body.appendChild(pre);
});
</script>"""


def find_chromium():
    """Path of a Chromium binary (``$CHROMIUM``, chromium, chromium-browser), or None."""
    for name in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser",
                 "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def _run(args, timeout):
    chromium = find_chromium()
    if chromium is None:
        raise FileNotFoundError("no Chromium binary found (install Debian's `chromium`)")
    profile = tempfile.mkdtemp(prefix="mrrstats-chromium-")    # a fresh profile each time
    try:
        return subprocess.run([chromium, *_FLAGS, f"--user-data-dir={profile}", *args],
                              capture_output=True, text=True, timeout=timeout, check=False)
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def check_page(html, *, width=1280, timeout=120) -> dict:
    """Load ``html`` (a file) in headless Chromium and report what a reader sees.

    Returns
    -------
    dict
        ``images`` (figures on the page), ``broken`` (figures that did not
        load: not complete or ``naturalWidth == 0``), ``visible_code``
        (code cells shown), ``errors`` (script errors), ``page_width``,
        ``page_height`` and ``figure_widths`` (CSS pixels).
    """
    text = Path(html).read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory(prefix="mrrstats-page-") as tmp:
        probe = Path(tmp) / "page.html"
        probe.write_text(text.replace("</head>", _PROBE + "</head>", 1), encoding="utf-8")
        out = _run([f"--window-size={width},900", "--virtual-time-budget=10000",
                    "--dump-dom", probe.as_uri()], timeout)
    found = re.search(r'<pre id="mrrstats-check">([^<]*)</pre>', out.stdout)
    if found is None:
        raise RuntimeError(f"Chromium did not render the page: {out.stderr[-2000:]}")
    import html as _html

    return json.loads(_html.unescape(found.group(1)))


def screenshot(html, path, *, width=1280, height=None, timeout=120) -> Path:
    """A PNG of the page (its full height unless ``height`` is given)."""
    if height is None:
        height = int(check_page(html, width=width, timeout=timeout)["page_height"])
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    out = _run([f"--window-size={width},{height}", "--virtual-time-budget=10000",
                f"--screenshot={path.resolve()}", Path(html).resolve().as_uri()], timeout)
    if not path.is_file():
        raise RuntimeError(f"Chromium wrote no screenshot: {out.stderr[-2000:]}")
    return path


def screenshots(html, folder, *, width=1280, part_height=2000, timeout=120) -> list:
    """Screenshots of the whole page, cut into parts of ``part_height`` pixels.

    Writes ``page-1.png``, ``page-2.png``, ... into ``folder`` (old parts
    removed) and returns their paths. Needs Pillow (a matplotlib dependency).
    """
    from PIL import Image

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("page-*.png"):
        old.unlink()
    with tempfile.TemporaryDirectory(prefix="mrrstats-shot-") as tmp:
        full = screenshot(html, Path(tmp) / "full.png", width=width, timeout=timeout)
        paths = []
        with Image.open(full) as im:
            for i, top in enumerate(range(0, im.height, part_height), start=1):
                part = im.crop((0, top, im.width, min(top + part_height, im.height)))
                path = folder / f"page-{i}.png"
                part.save(path, optimize=True)
                paths.append(path)
    return paths
