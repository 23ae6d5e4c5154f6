"""The report's notebook: the template, its parameters, its execution and the HTML page.

The template (``templates/report.ipynb``) only loads the saved results
(:func:`mrrstats.load_report`) and draws them; :func:`write_notebook` injects
the parameters, adds the segments section when there is one, executes it in
a fresh kernel (IPC sockets, no TCP port) and exports a self-contained HTML
page (figures as data URIs, nothing fetched from the network, an alt text on
every figure). Cell ids are fixed, so the files are byte-reproducible.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import sys
import threading
import time
from importlib import resources
from pathlib import Path

from .. import tempfiles
from .collections_section import add_collections_cells
from .designs import add_design_cells
from .judged_section import add_judged_cells

__all__ = ["write_notebook", "template", "inject_parameters", "add_segment_cells", "execute",
           "to_html"]

#: Longest IPC socket path used (AF_UNIX paths hold 104-108 bytes, the terminating NUL
#: included, and ZeroMQ appends the channel's number).
_IPC_MAX = 100


def write_notebook(out, title, *, segments, timeout, progress, show_code, judged=(),
                   designs=(), collections=False, left_out=None):
    """Execute the report's notebook in ``out`` and export its page.

    Writes ``report.ipynb`` and ``report.html``; returns ``(files written,
    seconds per step)``.
    """
    import nbformat

    t1 = time.perf_counter()
    nb = inject_parameters(template(), {"report_dir": ".", "title": title})
    if left_out:
        add_left_out_cell(nb, left_out)
    if segments:
        add_segment_cells(nb)
    if judged:
        add_judged_cells(nb, judged)
    if designs:
        add_design_cells(nb, designs)
    if collections:
        add_collections_cells(nb)
    execute(nb, out, timeout, progress)
    nbformat.write(nb, str(Path(out) / "report.ipynb"))
    seconds = {"notebook": time.perf_counter() - t1}
    t2 = time.perf_counter()
    (Path(out) / "report.html").write_text(to_html(nb, title, show_code=show_code),
                                           encoding="utf-8", newline="")
    seconds["html"] = time.perf_counter() - t2
    return ["report.ipynb", "report.html"], seconds


def template():
    """The report's notebook template (``templates/report.ipynb``)."""
    import nbformat

    text = (resources.files("mrrstats.report") / "templates" / "report.ipynb").read_text(
        encoding="utf-8")
    return nbformat.reads(text, as_version=4)


_SEGMENT_MARKDOWN = """## Segments: where does a difference hold?

The queries split by `segment_by` (settings: `segments`): each pair tested within each
segment with the report's test, its p-values adjusted across the segments of the pair.
The figure shows each segment's mean per system with its t interval (first measure)."""

_SEGMENT_CODE = """seg = data.segments
if seg is None:
    display(Markdown(f"*Not available: {S.get('segments_note') or 'no segment_by given'}.*"))
else:
    display(Markdown((folder / "tables" / "segments.md").read_text()))
    m0 = data.measures[0]
    with mp.style_context():
        n_seg = data.segment_means["segment"].nunique()
        fig, ax = plt.subplots(figsize=(SIZE[0] + 1.6, 1.2 + 0.5 * n_seg * len(data.systems)),
                               layout="constrained")
        mp.segment_means(data.segment_means, measure=m0, ax=ax)
        plt.show()"""


def left_out_counts(settings) -> dict:
    """``{run: judged queries left out}`` of a runs report under ``queries="both"`` (the
    runs that left none out are not listed; empty when none did)."""
    inp, ev = settings.get("input") or {}, settings.get("evaluation") or {}
    if inp.get("kind") != "runs" or ev.get("queries") != "both":
        return {}
    return {r: int(c["qrels_only"]) for r, c in (inp.get("query_counts") or {}).items()
            if int(c.get("qrels_only", 0))}


def add_left_out_cell(nb, left_out):
    """A note under the title: the judged queries each run left out (``queries="both"``).

    Only in reports where some run retrieved nothing for a judged query, so that the
    others are byte-identical to what they were.
    """
    import nbformat

    runs = "; ".join(f"`{r}`: {n}" for r, n in left_out.items())
    md = nbformat.v4.new_markdown_cell(
        "**Queries left out.** The runs were evaluated as trec_eval does by default "
        "(`queries = \"both\"`): a judged query a run retrieved nothing for is left out of "
        f"that run's mean (and warned about: `QueriesLeftOutWarning`). Judged queries left "
        f"out, per run: {runs}. Make the report with `queries=\"qrels\"` (`--queries qrels`, "
        "trec_eval `-c`) to count them with a score of 0 instead.")
    md["id"] = "left-out"    # fixed ids: the report is byte-reproducible
    at = next((i + 1 for i, c in enumerate(nb.cells) if c.get("id") == "setup"), 1)
    nb.cells[at:at] = [md]
    return nb


def add_segment_cells(nb):
    """The segments section (only in reports made with ``segment_by``), before section 10.

    Added here rather than in the template so that a report without segments
    is byte-identical to one made before the section existed.
    """
    import nbformat

    md = nbformat.v4.new_markdown_cell(_SEGMENT_MARKDOWN)
    md["id"] = "s-segments"
    code = nbformat.v4.new_code_cell(_SEGMENT_CODE)
    code["id"] = "segments"    # fixed ids: the report is byte-reproducible
    at = next((i for i, c in enumerate(nb.cells) if c.get("id") == "s7"), len(nb.cells))
    nb.cells[at:at] = [md, code]
    return nb


def inject_parameters(nb, params):
    """Replace the cell tagged ``parameters`` by one tagged ``injected-parameters``."""
    import nbformat

    lines = ["# Parameters injected by mrrstats.make_report"]
    lines += [f"{k} = {v!r}" for k, v in params.items()]
    cell = nbformat.v4.new_code_cell("\n".join(lines))
    cell.metadata["tags"] = ["injected-parameters"]
    cell["id"] = "injected-parameters"    # not a random id: the report is byte-reproducible
    for i, c in enumerate(nb.cells):
        if c.cell_type == "code" and "parameters" in c.metadata.get("tags", []):
            nb.cells[i] = cell
            return nb
    first_code = next((i for i, c in enumerate(nb.cells) if c.cell_type == "code"),
                      len(nb.cells))
    nb.cells.insert(first_code, cell)
    return nb


def execute(nb, out, timeout, progress):
    """Run every cell of ``nb`` in a fresh kernel whose working folder is ``out``."""
    from nbclient import NotebookClient

    code_cells = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    state = {"t0": time.perf_counter()}

    cr = "\r" if sys.stderr.isatty() else ""

    stop = threading.Event()

    def on_start(cell, cell_index, **_):
        if stop.is_set():
            raise RuntimeError("notebook execution stopped")
        if progress and cell.cell_type == "code":
            k = code_cells.index(cell_index) + 1
            print(f"{cr}mrrstats report: executing notebook cell {k}/{len(code_cells)} ",
                  file=sys.stderr, end="" if cr else "\n", flush=True)

    from jupyter_client.manager import KernelManager

    # The kernel's connection file and (POSIX) its IPC sockets live in a folder under
    # this process's temporary root (mrrstats.tempfiles): no TCP port, no "running over
    # TCP without encryption" warning, and nothing left in Jupyter's runtime folder.
    kernel_dir = tempfiles.mkdtemp(tempfiles.KERNEL_PREFIX)
    # a socket path longer than about 100 bytes cannot be bound (AF_UNIX): then TCP
    socket = os.path.join(kernel_dir, tempfiles.KERNEL_SOCKET)  # jupyter adds "-<n>"
    ipc = os.name == "posix" and len(f"{socket}-9".encode()) <= _IPC_MAX
    km = KernelManager(kernel_name="python3", transport="ipc" if ipc else "tcp",
                       connection_file=os.path.join(kernel_dir, tempfiles.KERNEL_FILES[0]))
    if ipc:
        km.ip = socket
    client = NotebookClient(nb, km=km, timeout=timeout, kernel_name="python3",
                            allow_errors=False, record_timing=False, on_cell_start=on_start,
                            resources={"metadata": {"path": str(out)}})
    env = dict(os.environ)
    pkg_parent = str(Path(__file__).resolve().parent.parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (pkg_parent, env.get("PYTHONPATH")) if p)
    env.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    # nbclient runs in a worker thread: in the main thread it would take SIGINT and SIGTERM
    # over (asyncio signal handlers that stop the kernel and let the loop run on into an
    # AssertionError); here the main thread keeps the program's handlers and, when one
    # fires, stops the kernel, which ends the worker.
    errors = []

    def work():
        try:
            # the kernel's own output (warnings, its end when stopped) goes to a log
            # beside its sockets, not to our standard error
            with open(os.path.join(kernel_dir, tempfiles.KERNEL_FILES[1]), "wb") as log:
                client.execute(env=env, stdout=log, stderr=log)
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread
            errors.append(exc)

    worker = threading.Thread(target=work, name="mrrstats-notebook", daemon=True)
    failed = True
    try:
        worker.start()
        while worker.is_alive():
            worker.join(0.05)
        if errors:
            raise errors[0]
        failed = False
    finally:
        with tempfiles.deferred_signals():
            if failed:  # stop the worker: no further cell, and the kernel killed
                stop.set()
                deadline = time.monotonic() + 30
                while worker.is_alive() and time.monotonic() < deadline:
                    _kill_kernel(km)  # again: it may have been starting
                    worker.join(0.1)
            _stop_kernel(km, now=failed)
            # nbclient registers an exit hook that it removes only when the kernel started;
            # we have stopped the kernel ourselves
            atexit.unregister(client._cleanup_kernel)
            shutil.rmtree(kernel_dir, ignore_errors=True)
        if progress and not failed:
            print(f"{cr}mrrstats report: executed {len(code_cells)} notebook cells in "
                  f"{time.perf_counter() - state['t0']:.1f} s", file=sys.stderr, flush=True)
    return nb


def _stop_kernel(km, *, now: bool) -> None:
    """Shut the kernel down (we own its manager, so nbclient leaves it running); after an
    error or an interruption, at once, and by killing its process if the manager's event
    loop was cut short."""
    try:
        if km.has_kernel:
            km.shutdown_kernel(now=now)
    except BaseException:  # noqa: BLE001 - whatever the loop raises, the process must go
        _kill_kernel(km)
        with contextlib.suppress(Exception):
            km.cleanup_resources()


def _kill_kernel(km) -> None:
    """Kill the kernel's process (SIGKILL) and reap it."""
    process = getattr(getattr(km, "provisioner", None), "process", None)
    if process is not None and process.poll() is None:
        with contextlib.suppress(OSError):
            process.kill()
        with contextlib.suppress(Exception):
            process.wait(10)


_HTML_TEMPLATE = """{%- extends 'lab/index.html.j2' -%}
{#- mrrstats: a self-contained page. No script or style is fetched from the network:
    require.js, MathJax, mermaid and widget loaders are left out (the report uses none);
    the CSS is inlined by the lab template and figures are base64 data URIs. -#}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block extra_css -%}
{{ super() }}
<style type="text/css">
/* mrrstats: figures half the page width (a full-width figure on a small screen) */
body .jp-RenderedImage img { max-width: 50%; min-width: min(100%, 420px); height: auto; }
.jp-RenderedHTMLCommon table { font-size: 0.85em; }
</style>
{%- endblock extra_css -%}
{%- block data_png scoped -%}
<div class="jp-RenderedImage jp-OutputArea-output {{ extra_class }}">
<img src="data:image/png;base64,{{ output.data['image/png'] | escape_html }}"
 alt="{{ output.metadata.get('image/png', {}).get('alt', 'Figure') | escape_html }}"
{%- set width = output | get_metadata('width', 'image/png') -%}
{%- if width is not none %} width={{ width | escape_html }}{%- endif -%}
{%- set height = output | get_metadata('height', 'image/png') -%}
{%- if height is not none %} height={{ height | escape_html }}{%- endif -%}
>
</div>
{%- endblock data_png -%}
"""


def _add_alt_text(nb):
    """Give every figure an alt text naming its number and section (for the HTML)."""
    section, n = "", 0
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            heads = [ln.lstrip("#").strip() for ln in cell.source.splitlines()
                     if ln.startswith("#")]
            if heads:
                section = heads[0]
            continue
        for out in cell.get("outputs", []):
            if "image/png" in out.get("data", {}):
                n += 1
                meta = out.setdefault("metadata", {}).setdefault("image/png", {})
                meta.setdefault("alt", f"Figure {n}" + (f" of section '{section}'"
                                                        if section else ""))
    return nb


def to_html(nb, title, show_code=False):
    """The executed notebook as one self-contained HTML page (code cells hidden unless
    ``show_code``)."""
    from jinja2 import DictLoader
    from nbconvert import HTMLExporter

    # Figures are already base64 data URIs in the outputs. embed_images=True is not
    # needed (no Markdown cell links an image file) and would break inline HTML such as
    # the significance superscripts (<sup>ab</sup>) of the tables (nbconvert 7.17).
    exporter = HTMLExporter(extra_loaders=[DictLoader({"mrrstats.html.j2": _HTML_TEMPLATE})],
                            template_file="mrrstats.html.j2", embed_images=False,
                            exclude_input_prompt=True, exclude_output_prompt=True,
                            exclude_input=not show_code)
    nb.metadata["title"] = title
    _add_alt_text(nb)
    body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": title}})
    return body
