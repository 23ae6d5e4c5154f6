"""Sphinx extension: two fixes to how the pydata theme shows the mrrstats site.

* Search excerpts. Sphinx's search page shows, under a result, an excerpt of the
  page that it downloads (``fetch``) from the site; it shows none under a Python
  object (a function, a class: most of our results, which get only "Python
  function, in ..."), and none at all when the site is opened from disk
  (``file://``), where browsers refuse the download. At build time this
  extension keeps, for every page, the first paragraph of each section, of each
  documented object and of any other anchor, and writes them into
  ``_static/search-excerpts-data.js``; ``_static/search-excerpts.js`` puts the
  right one under each result that has no excerpt. Loaded by the search page only.
* Primary sidebar of a top-level page without sub-pages (``which-test``,
  ``errors``, ...): the theme shows a "Section Navigation" heading over an empty
  list there; those pages get no primary sidebar (the page's own table of
  contents stays on the right).
"""

from __future__ import annotations

import json
from pathlib import Path

from docutils import nodes
from sphinx import addnodes

#: Characters of an excerpt, at most (about three lines of the search page).
EXCERPT_CHARS = 280


def _short(text: str, limit: int = EXCERPT_CHARS) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0] + " …"


def _first_paragraph(node) -> str:
    for p in node.findall(nodes.paragraph):
        # not a signature's, nor a table's (the API lists: names and signatures)
        if not any(isinstance(a, (addnodes.desc_signature, nodes.table)) for a in _ancestors(p)):
            text = p.astext().strip()
            if text:
                return text
    return ""


def _ancestors(node):
    node = node.parent
    while node is not None:
        yield node
        node = node.parent


def excerpts(doctree) -> dict[str, str]:
    """``{anchor: excerpt}`` of one page: ``""`` the page, ``"#id"`` a section or object."""
    out: dict[str, str] = {}
    for section in doctree.findall(nodes.section):
        text = _first_paragraph(section)
        if not text:
            continue
        is_top = not any(isinstance(a, nodes.section) for a in _ancestors(section))
        if is_top:
            out.setdefault("", _short(text))
        for ident in section["ids"]:
            out.setdefault(f"#{ident}", _short(text))
    for desc in doctree.findall(addnodes.desc):
        content = next(iter(desc.findall(addnodes.desc_content)), None)
        text = _first_paragraph(content) if content is not None else ""
        if not text:
            continue
        for sig in desc.findall(addnodes.desc_signature):
            for ident in sig["ids"]:
                out.setdefault(f"#{ident}", _short(text))
    # any other anchor (a module's entry, a glossary term, a labelled paragraph): its
    # first paragraph, else the paragraph after it
    for node in doctree.findall(nodes.Element):
        ids = [i for i in node.get("ids", ()) if f"#{i}" not in out]
        if not ids or isinstance(node, (nodes.section, addnodes.desc_signature)):
            continue
        text = _first_paragraph(node)
        if not text:
            after = node.next_node(nodes.paragraph, descend=True, siblings=True, ascend=True)
            text = after.astext().strip() if after is not None else ""
        if text:
            for ident in ids:
                out[f"#{ident}"] = _short(text)
    if "" not in out:
        text = _first_paragraph(doctree)
        if text:
            out[""] = _short(text)
    return out


def _read(app, doctree):
    env = app.env
    if not hasattr(env, "mrrstats_excerpts"):
        env.mrrstats_excerpts = {}
    env.mrrstats_excerpts[env.docname] = excerpts(doctree)


def _purge(app, env, docname):
    getattr(env, "mrrstats_excerpts", {}).pop(docname, None)


def _merge(app, env, docnames, other):
    if not hasattr(env, "mrrstats_excerpts"):
        env.mrrstats_excerpts = {}
    for name in docnames:
        if name in getattr(other, "mrrstats_excerpts", {}):
            env.mrrstats_excerpts[name] = other.mrrstats_excerpts[name]


def _leaf_top_pages(env) -> set[str]:
    """Pages of the root toctree that have no toctree of their own."""
    root = env.config.root_doc
    return {d for d in env.toctree_includes.get(root, []) if not env.toctree_includes.get(d)}


def _page_context(app, pagename, templatename, context, doctree):
    if pagename in _leaf_top_pages(app.env):
        context["sidebars"] = []
    if pagename == "search":
        static = Path(app.outdir) / "_static"
        static.mkdir(parents=True, exist_ok=True)
        data = {d: e for d, e in sorted(getattr(app.env, "mrrstats_excerpts", {}).items()) if e}
        (static / "search-excerpts-data.js").write_text(
            "window.MRRSTATS_SEARCH_EXCERPTS = "
            + json.dumps(data, ensure_ascii=False, separators=(",", ":"))
            + ";\n",
            encoding="utf-8",
        )
        app.add_js_file("search-excerpts-data.js")
        app.add_js_file("search-excerpts.js")


def setup(app):
    app.connect("doctree-read", _read)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("html-page-context", _page_context)
    return {
        "version": "1.0",
        "parallel_read_safe": True,
        "parallel_write_safe": True,
        "env_version": 2,  # what excerpts() keeps changed
    }
