"""The built documentation site, opened in headless Chromium (marker ``docs``).

Run after building the site::

    sphinx-build -W -b html docs docs/_build/html
    pytest -m docs tests/test_docs_site.py

It skips cleanly when the site is not built or Chromium is absent, unless
``MRRSTATS_DOCS_REQUIRED=1`` (set by ``.ci/run``, which builds the site first), where
either is a failure. What it checks: no internal link of any page is broken (files and
anchors); the home page, an API page (with its formulas typeset by the MathJax shipped
in the site), a notebook page (its figures load) and the search page with the query
"randomization" (the function's page is among the results) render with no script or
console error and no resource that fails to load; the search page shows an excerpt
under its results ("bootstrap"); no page shows an empty "Section Navigation" sidebar
(the which-test page, in Chromium too). Screenshots of the home page, an API page and a
search go to ``docs/_build/screenshots``.
"""

from __future__ import annotations

import html as html_lib
import json
import os
import re
import shutil
import subprocess
import tempfile
import uuid
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

pytestmark = pytest.mark.docs

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "docs" / "_build" / "html"
SHOTS = ROOT / "docs" / "_build" / "screenshots"
REQUIRED = os.environ.get("MRRSTATS_DOCS_REQUIRED") == "1"


def _need(condition, why):
    if not condition:
        if REQUIRED:
            pytest.fail(why)
        pytest.skip(why)


@pytest.fixture(scope="module")
def site():
    _need((SITE / "index.html").is_file(),
          "the documentation is not built (sphinx-build -W -b html docs docs/_build/html)")
    return SITE


@pytest.fixture(scope="module")
def chromium():
    from mrrstats.report.browser import find_chromium

    path = find_chromium()
    _need(path is not None, "no Chromium binary (apt-get install chromium)")
    return path


# -- links ------------------------------------------------------------------------------
class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "a" and a.get("name"):
            self.ids.add(a["name"])
        for key in ("href", "src"):
            if a.get(key) and not (tag == "link" and a.get("rel") in ("preload",)):
                self.links.append(a[key])


def _parse(path, cache={}):  # noqa: B006 - a cache of parsed pages
    if path not in cache:
        p = _Links()
        p.feed(path.read_text(encoding="utf-8", errors="replace"))
        cache[path] = p
    return cache[path]


def broken_links(site: Path) -> list[str]:
    """Internal links (files and #anchors) of every page that lead nowhere."""
    bad = []
    for page in sorted(site.rglob("*.html")):
        if page.relative_to(site).parts[0] == "_static":  # the theme's templates
            continue
        for link in _parse(page).links:
            parts = urlsplit(link)
            if parts.scheme or link.startswith(("//", "mailto:", "javascript:", "data:")):
                continue
            target = page if not parts.path else (page.parent / unquote(parts.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                bad.append(f"{page.relative_to(site)}: {link}")
            elif parts.fragment and target.suffix == ".html" and \
                    unquote(parts.fragment) not in _parse(target).ids:
                bad.append(f"{page.relative_to(site)}: {link} (no such anchor)")
    return bad


def test_no_internal_link_is_broken(site):
    pages = list(site.rglob("*.html"))
    assert len(pages) > 100  # the API reference alone has a page per public name
    bad = broken_links(site)
    assert not bad, f"{len(bad)} broken links, e.g. {bad[:10]}"


def test_the_link_check_can_fail(tmp_path):
    (tmp_path / "index.html").write_text('<a href="missing.html">x</a><a href="#nope">y</a>'
                                         '<a href="https://example.org">z</a>')
    assert broken_links(tmp_path) == ["index.html: missing.html",
                                      "index.html: #nope (no such anchor)"]


# -- the pages in Chromium -----------------------------------------------------------------
# Inserted first in <head>: records script errors, console errors and resources that fail
# to load; once loaded (and a moment later, for the search to finish) writes what it saw
# into a <pre> that --dump-dom prints.
_PROBE = """<script>
window.__seen = {errors: [], console: [], failed: []};
window.addEventListener("error", function (e) {
  var t = e.target;
  if (t && t !== window && (t.src || t.href)) { window.__seen.failed.push(t.src || t.href); }
  else { window.__seen.errors.push(String(e.message)); }
}, true);
window.addEventListener("unhandledrejection", function (e) {
  window.__seen.errors.push("unhandled rejection: " + String(e.reason)); });
var __err = console.error;
console.error = function () {
  window.__seen.console.push(Array.prototype.join.call(arguments, " "));
  return __err.apply(console, arguments); };
window.addEventListener("load", function () { setTimeout(function () {
  var imgs = Array.prototype.slice.call(document.images);
  var s = window.__seen;
  s.images = imgs.length;
  s.broken = imgs.filter(function (i) { return !(i.complete && i.naturalWidth > 0); })
                 .map(function (i) { return i.src; });
  s.math_typeset = document.querySelectorAll(".MathJax, .MathJax_Display").length;
  s.math_source = document.querySelectorAll(".math").length;
  s.results = Array.prototype.slice.call(document.querySelectorAll("#search-results a"))
                 .map(function (a) { return a.getAttribute("href"); });
  s.excerpts = Array.prototype.slice.call(document.querySelectorAll("#search-results li"))
                 .map(function (li) {
                   var a = li.querySelector("a"), p = li.querySelector("p.context");
                   return [a ? a.getAttribute("href") : "", p ? p.textContent.trim() : ""]; });
  var side = document.getElementById("pst-primary-sidebar");
  s.primary_sidebar = side ? {
    shown: side.getBoundingClientRect().width > 0 && getComputedStyle(side).display !== "none",
    links: side.querySelectorAll("nav.bd-docs-nav a").length} : null;
  s.page_toc_links = document.querySelectorAll("#pst-secondary-sidebar a").length;
  s.title = document.title;
  s.height = document.documentElement.scrollHeight;
  var pre = document.createElement("pre");
  pre.id = "mrrstats-docs-check";
  pre.textContent = JSON.stringify(s);
  document.body.appendChild(pre);
}, 4000); });
</script>"""

_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
          "--disable-extensions", "--disable-sync", "--no-first-run", "--hide-scrollbars",
          "--mute-audio", "--allow-file-access-from-files")


def _chromium(chromium, args, timeout=120):
    profile = tempfile.mkdtemp(prefix="mrrstats-docs-chromium-")
    try:
        return subprocess.run([chromium, *_FLAGS, f"--user-data-dir={profile}", *args],
                              capture_output=True, text=True, timeout=timeout, check=False)
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def open_page(chromium, page: Path, query: str = "") -> dict:
    """What a reader's browser sees on ``page`` (a copy with the probe, next to it)."""
    text = page.read_text(encoding="utf-8")
    # a name of its own: two tests may open the same page at once (pytest-xdist)
    probe = page.with_name(f"_probe_{os.getpid()}_{uuid.uuid4().hex[:8]}_{page.name}")
    probe.write_text(re.sub(r"<head>", "<head>" + _PROBE, text, count=1), encoding="utf-8")
    try:
        out = _chromium(chromium, ["--window-size=1280,900", "--virtual-time-budget=20000",
                                   "--dump-dom", probe.as_uri() + query])
    finally:
        probe.unlink()
    found = re.search(r'<pre id="mrrstats-docs-check">([^<]*)</pre>', out.stdout)
    assert found is not None, f"Chromium did not render {page}: {out.stderr[-2000:]}"
    return json.loads(html_lib.unescape(found.group(1)))


def _clean(seen, page):
    assert seen["errors"] == [], (page, seen["errors"])
    assert seen["console"] == [], (page, seen["console"])
    assert seen["failed"] == [], (page, seen["failed"])
    assert seen["broken"] == [], (page, seen["broken"])


def test_home_page(site, chromium):
    seen = open_page(chromium, site / "index.html")
    _clean(seen, "index.html")
    assert "mrrstats" in seen["title"]
    SHOTS.mkdir(parents=True, exist_ok=True)
    shot = SHOTS / "home.png"
    _chromium(chromium, ["--window-size=1280,1100", "--virtual-time-budget=10000",
                         f"--screenshot={shot}", (site / "index.html").as_uri()])
    assert shot.is_file() and shot.stat().st_size > 10_000


def test_api_page_with_typeset_formulas(site, chromium):
    page = site / "api" / "generated" / "mrrstats.randomization_test.html"
    seen = open_page(chromium, page)
    _clean(seen, page.name)
    assert seen["math_source"] > 0 and seen["math_typeset"] > 0, seen  # MathJax ran offline
    shot = SHOTS / "api-randomization_test.png"
    SHOTS.mkdir(parents=True, exist_ok=True)
    _chromium(chromium, ["--window-size=1280,1400", "--virtual-time-budget=10000",
                         f"--screenshot={shot}", page.as_uri()])
    assert shot.is_file() and shot.stat().st_size > 10_000


def test_notebook_page_shows_its_figures(site, chromium):
    page = site / "teaching" / "notebooks" / "01_rr_distributions.html"
    seen = open_page(chromium, page)
    _clean(seen, page.name)
    assert seen["images"] >= 2, seen  # the executed notebook's figures, all loaded


def test_gallery_page_shows_every_figure(site, chromium):
    page = site / "teaching" / "gallery.html"
    seen = open_page(chromium, page)
    _clean(seen, page.name)
    assert seen["images"] >= 15, seen


def test_search_finds_the_function_page(site, chromium):
    seen = open_page(chromium, site / "search.html", query="?q=randomization")
    _clean(seen, "search.html")
    assert any(r and "mrrstats.randomization_test.html" in r for r in seen["results"]), \
        seen["results"][:20]


def test_search_shows_an_excerpt_under_each_result(site, chromium):
    # Sphinx shows none under a function or class, and none at all on a site opened
    # from disk (it downloads the page): _ext/mrrstats_site.py writes them at build time
    seen = open_page(chromium, site / "search.html", query="?q=bootstrap")
    _clean(seen, "search.html")
    excerpts = dict(seen["excerpts"])
    assert len(excerpts) >= 10, seen["excerpts"]
    with_one = [h for h, text in excerpts.items() if len(text) >= 20]
    assert len(with_one) >= 0.9 * len(excerpts), [h for h in excerpts if h not in with_one]
    fn = [t for h, t in excerpts.items() if h.endswith("bootstrap_ci.html#mrrstats.bootstrap_ci")]
    assert fn and "confidence interval" in fn[0].lower(), fn  # the docstring's summary
    SHOTS.mkdir(parents=True, exist_ok=True)
    shot = SHOTS / "search-bootstrap.png"
    _chromium(chromium, ["--window-size=1280,900", "--virtual-time-budget=10000",
                         f"--screenshot={shot}", (site / "search.html").as_uri() + "?q=bootstrap"])
    assert shot.is_file() and shot.stat().st_size > 10_000


def _primary_sidebar(page_html: str) -> tuple[bool, int]:
    """(shown on a wide screen, links in its section navigation) of a built page."""
    found = re.search(r'<div id="pst-primary-sidebar" class="([^"]*)"(.*?)'
                      r'<main id="main-content"', page_html, flags=re.S)
    assert found is not None, "no primary sidebar: has the theme changed?"
    nav = re.search(r'<nav class="bd-docs-nav[^"]*"[^>]*>(.*?)</nav>', found.group(2), re.S)
    links = len(re.findall(r"<a ", nav.group(1))) if nav else 0
    return "hide-on-wide" not in found.group(1), links


def test_no_page_shows_an_empty_sidebar(site):
    # the pydata theme gives a top-level page without sub-pages (which-test) a
    # "Section Navigation" sidebar with nothing in it unless told otherwise
    empty = []
    for page in sorted(site.rglob("*.html")):
        rel = page.relative_to(site)
        if rel.parts[0].startswith("_") or rel.name in ("genindex.html", "search.html"):
            continue
        shown, links = _primary_sidebar(page.read_text(encoding="utf-8"))
        if shown and links == 0:
            empty.append(str(rel))
    assert not empty, empty


def test_the_sidebar_check_can_fail():
    empty = ('<div id="pst-primary-sidebar" class="bd-sidebar-primary bd-sidebar"><nav '
             'class="bd-docs-nav bd-links"><p>Section Navigation</p></nav></div>'
             '<main id="main-content">')
    assert _primary_sidebar(empty) == (True, 0)
    assert _primary_sidebar(empty.replace("bd-sidebar\"", "bd-sidebar hide-on-wide\""))[0] \
        is False


def test_which_test_page_has_its_sidebars(site, chromium):
    page = site / "which-test.html"
    seen = open_page(chromium, page)
    _clean(seen, page.name)
    side = seen["primary_sidebar"]
    assert side is not None and (not side["shown"] or side["links"] > 0), side
    assert seen["page_toc_links"] >= 5, seen  # "On this page": the page's sections


def test_markdown_outputs_render_as_tables(site):
    # IPython.display.Markdown(res.to_markdown()) in the executed pages: CommonMark
    # (myst-nb's default) has no tables and showed the raw "| a | b |" lines
    raw = re.compile(r"<p>[^<]*\|\s*:?-{2,}:?\s*\|")
    shown_raw = [str(p.relative_to(site)) for p in sorted(site.rglob("*.html"))
                 if raw.search(p.read_text(encoding="utf-8"))]
    assert not shown_raw, shown_raw
    page = (site / "teaching" / "notebooks" / "02_significance_testing.html").read_text(
        encoding="utf-8")
    assert re.search(r"to_markdown.*?<table.*?run47", page, flags=re.S)
