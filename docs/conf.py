"""Sphinx configuration of the mrrstats documentation.

Build (from the repository root; warnings are errors)::

    pip install -e ".[docs]"
    sphinx-build -W -b html docs docs/_build/html

Why these extensions (the scientific-Python convention, as scipy and statsmodels):

* ``pydata_sphinx_theme``: the theme of numpy, scipy, pandas and matplotlib, so the
  site reads like the references our users already know (search, dark mode,
  one page per function).
* ``numpydoc``: our docstrings are numpydoc (Parameters, Returns, Notes with the
  formulas, References, Examples); it renders them and turns the types we own
  (``Evaluation``, ``Comparison``, ...) into links (``numpydoc_xref_aliases``
  below, built from ``mrrstats.__all__``).
* ``sphinx.ext.autosummary``: one page per public name, generated from the code;
  the lists it reads are written from ``mrrstats.__all__`` and the public
  modules' ``__all__`` by ``_ext/mrrstats_docs.py``, which also fails the build
  when a public name has no page (the coverage check).
* ``myst_nb``: the pages are MyST Markdown, and the notebooks in ``notebooks/``
  plus the executable pages (getting started, the user guide) are executed at
  build time and cached (jupyter-cache, ``docs/_build/.jupyter_cache``): every
  page's code runs on every clean build, and a cell that raises, or prints to
  standard error (a warning), fails the build.
* ``matplotlib.sphinxext.plot_directive``: the plot gallery, each figure with
  the code that drew it; it ships with matplotlib (already a dependency), and
  the gallery is one page whose code is visible, which is all sphinx-gallery's
  machinery would add here.
* ``sphinxcontrib.bibtex``: one bibliography (``references.bib``) cited from the
  guide pages with ``{cite}``; the docstrings keep their numpydoc References.
* ``sphinx.ext.mathjax`` with MathJax 2.7 shipped by the ``jupyter-server-mathjax``
  wheel and copied into the site: formulas render with no network, at build time
  or when reading the site offline.
* ``sphinx_design`` (cards on the home page, tabs) and ``sphinx_copybutton``
  (a copy button that leaves out the ``>>>`` prompts).
* ``mrrstats_site`` (``_ext/mrrstats_site.py``): an excerpt under every search
  result, also for functions and classes and on a site opened from disk; no empty
  "Section Navigation" sidebar on the top-level pages without sub-pages.
* No intersphinx: the build must not touch the network, so names of other
  packages (numpy, pandas, ...) are shown as text, not links
  (``nitpick_ignore_regex`` below lists exactly those packages).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
# This checkout's mrrstats, in the build and in the notebook kernels it starts.
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(DOCS / "_ext"))
os.environ["PYTHONPATH"] = os.pathsep.join(
    p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("CI", "1")  # no progress bars in executed pages

import mrrstats_docs  # noqa: E402

import mrrstats  # noqa: E402

project = "mrrstats"
author = "mrrstats developers"
copyright = "mrrstats developers, MIT licence"
version = release = mrrstats.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_nb",
    "matplotlib.sphinxext.plot_directive",
    "sphinxcontrib.bibtex",
    "sphinx_design",
    "sphinx_copybutton",
    "mrrstats_docs",
    "mrrstats_site",
]

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
root_doc = "index"
exclude_patterns = ["_build", "README.md", "**.ipynb_checkpoints", "jupyter_execute"]
templates_path = ["_templates"]

# -- cross-references: every one must resolve (-n) ------------------------------------
nitpicky = True
default_role = "autolink"  # `name` links when it resolves, else stays code-like text
# Other packages' names: no inventories are fetched (no network), so they are text.
_EXTERNAL = (r"(numpy|np|pandas|pd|scipy|matplotlib|pyarrow|pa|polars|torch|cupy|jax|dask|"
             r"distributed|statsmodels|ranx|ir_measures|pytrec_eval|argparse|collections|"
             r"typing|os|pathlib|io|datetime|concurrent|multiprocessing|numbers|tqdm|"
             r"nbformat|array_api_strict|array_api_compat)(\..*)?")
nitpick_ignore_regex = [
    (r"py:.*", _EXTERNAL),
    # numpydoc's built-in type aliases point into Python's and numpy's inventories
    (r".*", r"(python|numpy):.*"),
    # Python's own names (no intersphinx inventory of the standard library)
    (r"py:.*", r"(int|float|str|bool|bytes|list|tuple|dict|set|frozenset|object|type|"
               r"None|callable|Callable|Iterable|Iterator|Mapping|Sequence|Path|"
               r"ValueError|TypeError|KeyError|OSError|DeprecationWarning|Warning|"
               r"Generator|DataFrame|Series|ndarray|Axes|Figure)"),
]

# -- autodoc / autosummary / numpydoc -----------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"          # numpydoc's Parameters section says the types
autodoc_default_options = {"member-order": "bysource"}
numpydoc_show_class_members = False  # our class template lists the members
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = True
numpydoc_xref_aliases = mrrstats_docs.xref_aliases()
numpydoc_xref_ignore = "all"          # only our own types become links
numpydoc_validation_checks: set = set()

# -- notebooks and executable pages (myst-nb) ----------------------------------------
nb_execution_mode = os.environ.get("MRRSTATS_DOCS_EXECUTE", "cache")
nb_execution_cache_path = str(DOCS / "_build" / ".jupyter_cache")
nb_execution_timeout = 300
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_output_stderr = "warn"       # a warning printed by a cell is a build warning (-W: error)
nb_merge_streams = True
nb_execution_excludepatterns: list = []
# The kernels that run the pages talk to the build over TCP on localhost, and ipykernel
# logs a warning about it at every start; the kernels read their settings from an IPython
# folder of the build's own that keeps the kernel's log to errors (a warning a cell prints
# still reaches the page and fails the build, nb_output_stderr above).
_IPYTHON = DOCS / "_build" / "ipython"
(_IPYTHON / "profile_default").mkdir(parents=True, exist_ok=True)
(_IPYTHON / "profile_default" / "ipython_kernel_config.py").write_text(
    'c.IPKernelApp.log_level = "ERROR"\n', encoding="utf-8")
os.environ["IPYTHONDIR"] = str(_IPYTHON)
# A cell's Markdown output (IPython.display.Markdown, e.g. ``compare(...).to_markdown()``)
# is rendered as GitHub-flavoured Markdown: CommonMark, myst-nb's default, has no tables
# and showed them as raw ``| a | b |`` text.
nb_render_markdown_format = "gfm"
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist", "substitution"]
myst_heading_anchors = 3
myst_dmath_double_inline = True

# -- plots ----------------------------------------------------------------------------
plot_include_source = True
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 100)]
plot_rcparams = {"figure.figsize": (6.0, 3.8)}
plot_pre_code = "import numpy as np\nimport matplotlib.pyplot as plt\nimport mrrstats\n"

# -- bibliography -------------------------------------------------------------------
bibtex_bibfiles = ["references.bib"]
bibtex_default_style = "plain"
bibtex_reference_style = "author_year"

# -- math: MathJax 2.7 served from the site itself (jupyter-server-mathjax's copy) ----
mathjax_path = "mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full"
mathjax2_config = {
    "tex2jax": {"inlineMath": [["\\(", "\\)"]], "displayMath": [["\\[", "\\]"]],
                "processEscapes": True, "processClass": "math|output_area",
                "ignoreClass": "document"},
    # the wheel ships the STIX-Web fonts only (as the Jupyter notebook uses them)
    "HTML-CSS": {"availableFonts": ["STIX-Web"], "preferredFont": "STIX-Web",
                 "webFont": "STIX-Web", "imageFont": None},
    "menuSettings": {"zoom": "None"},
    "showMathMenu": False,
    "messageStyle": "none",
}

# -- HTML -----------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"mrrstats {release}"
html_static_path = ["_static"]
html_css_files = ["mrrstats.css"]
html_show_sourcelink = False
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
    "icon_links": [],
}
html_context = {"default_mode": "light"}
copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True
copybutton_exclude = ".linenos, .gp, .go"
