r"""Reproducible reports: tables, per-query data, settings and an executed notebook.

:func:`make_report` evaluates TREC runs (or reads per-query score matrices),
runs every analysis of the package on them and writes a folder that can be
sent to a reviewer or attached to a paper::

    out/
      report.ipynb       the executed notebook (tables and figures)
      report.html        the same, self-contained: figures embedded, no network needed
      per_query.csv      one row per system and query: every measure (and, for runs,
                         the counts num_ret, num_rel, num_rel_ret, num_judged)
      settings.json      every convention, the seed, B, package versions and the
                         SHA-256 of each input file
      tables/            Markdown (.md) and LaTeX (.tex) tables:
        comparison       means with significance superscripts (mrrstats.compare)
        pairs            every pair: difference, CI, raw and adjusted p-values
        versus_control   every system against the control system --control (if given)
        random_baseline  observed MRR against a uniformly random ranking (runs only)
        rr_summary       MRR, median RR, share of RR = 1 and = 0, mean first ranks
        agreement        Kendall's tau, tau_AP and Spearman's rho between measures
        leaderboard      rank intervals and compact letters per measure
        clustered        query vs cluster bootstrap intervals, cluster sign-flip test
                         (queries in clusters, e.g. CAsT conversations)
        multiverse       what changes under other conventions (runs input)
        estimation       per pair: Hodges-Lehmann shift, d_z and P(a > b) with intervals,
                         TOST against the margin (with equivalence_margin)
        mixed            per pair: the linear mixed model's difference next to the
                         two-way ANOVA's
        segments         per segment and pair: the test within the segment, adjusted across
                         segments (only with segment_by)
        collections, collections_pairs, collections_meta
                         across collections (only with collections=): average ranks,
                         Friedman/Iman-Davenport, the critical difference and cliques;
                         every pair's Nemenyi test; the meta-analysis of one system
                         against each other
      tables/comparison.json   the stable JSON contract of Comparison.to_json()
      methods.md         the methods paragraph of the comparison (Comparison.methods():
                         test, alternative, queries, B, seed, correction, alpha, interval
                         and its measured coverage), with Pandoc and LaTeX citations;
                         with collections=, the paragraphs of critical_difference and
                         across_collections after it
      references.bib     the BibTeX entries of every work methods.md cites
      results/           what the notebook draws, saved by the one run of the analysis:
        pairs.csv, means.csv, versus_control.csv, random_baseline.csv, rr_summary.csv,
        agreement.csv, power.csv, leaderboard.csv, clustered.csv, multiverse_*.csv,
        estimation.csv, mixed.csv,
        segments.csv, segment_means.csv (with segment_by),
        collections_scores.csv, collections_ranks.csv, collections_tests.csv,
        collections_pairs.csv, collections_meta.csv (with collections=),
        null_distribution.npy (the null distribution of the test of the pair shown up
        close, when the test keeps it) and results.json
      screenshots/       (example report only) the page as Chromium shows it

:func:`make_report` runs the analysis once (:func:`recompute_report` runs it
again from ``per_query.csv`` and ``settings.json``, to check a report); the
notebook calls :func:`load_report` on its own folder, which loads the saved
results and recomputes nothing, and draws them: the figures and the tables
show the same numbers. It can be re-run by itself (``jupyter nbconvert
--execute report.ipynb``) wherever ``mrrstats`` is installed, without the
original runs. Every file contains no timestamp or random id and is
byte-identical when the report is made again from the same inputs with the
same seed and package versions.

Random numbers: one :class:`numpy.random.Generator` seeded with ``rng`` serves,
in this order, the significance test of every measure (in measure order), the
Monte-Carlo random-ranking test of every system (in system order), the
bootstrap interval of every system's mean, the randomization test of the
pair shown up close and, when the queries come in clusters, for each measure
and pair the query bootstrap, the cluster bootstrap and the cluster
randomization test, and then, for each measure and pair, the bootstrap of the
probability of superiority (estimation section). The leaderboard uses the
comparison's decisions and the multiverse the paired t test, and the mixed
model and the Hodges-Lehmann and TOST numbers are exact: none of them draws
random numbers. The segments
(``segment_by``) are :func:`mrrstats.compare`'s with a Generator of their own
seeded with the same seed, so they leave every other number unchanged, and so do
the optional sections (:mod:`mrrstats.report.designs`,
:mod:`mrrstats.report.collections_section`), each with a Generator of its own. The
notebook draws no random numbers.
"""

from __future__ import annotations

import math
import numbers
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .. import defaults
from ..defaults import default_ties
from ..deprecation import renamed_parameters
from ..errors import ParameterError, ParameterTypeError
from ..io.trec import qrels_iv, read_score_matrix
from ..metrics.evaluation import evaluate
from ..model.scoretable import score_sources
from ..progress import progress_enabled
from ..stats.references import bibtex
from ..stats.registry import correction_spec, test_spec
from ..validation import (
    alpha_iv,
    alternative_iv,
    bool_iv,
    confidence_level_iv,
    float_iv,
    int_iv,
    n_resamples_iv,
    rng_iv,
    workers_iv,
)
from .analysis import analyse, is_rr, say
from .collections_section import collections_results, methods_section
from .data import ReportResult, per_query_frame
from .designs import DESIGN_SECTIONS, design_settings
from .judged_section import judged_results
from .notebook import left_out_counts, write_notebook
from .sections import MULTIVERSE_OPTIONS, cluster_labels, multiverse_result
from .staging import prepare, staged
from .storage import (
    FORMAT_VERSION,
    dump_json,
    file_record,
    read_per_query,
    save_results,
    versions,
    write_per_query,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, Literal

    from .._typing import (
        Alternative,
        MeasuresInput,
        Missing,
        PathLike,
        QrelsInput,
        RunsInput,
        Seed,
    )
    from ..stats.compare import Comparison
    from ..stats.methods import MethodsText

__all__ = ["make_report", "RNG_ORDER", "RANDOM_MODELS"]

#: The random rankers of the random-ranking baseline table (``random=``).
RANDOM_MODELS = ("retrieved", "judged")
#: The order in which the report's one Generator is used (``settings["rng_order"]``).
RNG_ORDER = ("one numpy Generator(PCG64) seeded with `seed`: the test of each "
             "measure in order, then the random-ranking test of each system in order, "
             "then the bootstrap interval of each system's mean (measure by measure, "
             "systems in order), then the randomization test of the pair shown up "
             "close, then (queries in clusters) for each measure and pair in order the "
             "query bootstrap, the cluster bootstrap and the cluster randomization "
             "test, then for each measure and pair in order the bootstrap of the "
             "probability of superiority")


@renamed_parameters(baseline="control")
def make_report(qrels: QrelsInput | None = None, runs: RunsInput | None = None, *,
                scores: PathLike | pd.DataFrame | Sequence[PathLike | pd.DataFrame]
                | Mapping[str, PathLike | pd.DataFrame] | None = None,
                out: PathLike, measures: MeasuresInput | None = None, control: str | None = None,
                test: str = defaults.TEST, correction: str = defaults.CORRECTION,
                alpha: float = defaults.ALPHA, alternative: Alternative = defaults.ALTERNATIVE,
                n_resamples: int = defaults.N_RESAMPLES,
                confidence_level: float = defaults.CONFIDENCE_LEVEL,
                random: Literal["retrieved", "judged"] = defaults.RANDOM, ties: str | None = None,
                rel: int = defaults.REL, queries: str = defaults.QUERIES,
                missing: Missing = defaults.MISSING, title: str | None = None,
                notebook: bool = True, show_code: bool = False, timeout: float = 600,
                progress: bool | None = None,
                clusters: Literal["auto"] | Mapping[str, Any] | Callable[[str], Any]
                | None = "auto",
                multiverse: bool = True,
                segment_by: Mapping[str, Any] | Callable[[str], Any] | None = None,
                equivalence_margin: float | None = None, judge_qrels: QrelsInput | None = None,
                replicates: Mapping[str, Sequence[str]] | None = None,
                calibration: bool | int = False, bayesian: bool = False, rope: float | None = None,
                collections: Mapping[str, Any] | Literal["clusters"] | None = None,
                workers: int = defaults.WORKERS, rng: Seed = None) -> ReportResult:
    r"""Evaluate, test and write a reproducible report folder.

    Parameters
    ----------
    qrels : path, DataFrame, dict or Qrels, optional
        Relevance judgements (with ``runs``).
    runs : list of paths or runs, or dict name -> run, optional
        Two or more runs (see :func:`mrrstats.evaluate`).
    scores : path, list of paths, or dict measure -> path or DataFrame, keyword-only
        Per-query score matrices instead of ``qrels``/``runs`` (one CSV per
        measure, the layout of :func:`mrrstats.read_score_matrix`). A path may
        be written ``NAME=PATH`` to name its measure; otherwise the name is the
        file name up to its first dot. Without candidate counts there is no
        random-ranking baseline table.
    out : path, keyword-only
        Output folder (created; existing report files in it are replaced). The report
        is written into a folder beside it and swapped in when complete, so an error
        or an interruption leaves the previous report whole
        (:mod:`mrrstats.report.staging`); other files in the folder stay.
    measures : str or list of str, optional, keyword-only
        Measures to compare. With runs the default is ``RR`` and ``nDCG@10``,
        and ``RR`` is evaluated as well when no RR-type measure is listed (for
        the random-ranking baseline and the RR distribution). With ``scores``
        the default is every matrix given, in order.
    control : str, optional, keyword-only
        The control system (a system name; formerly ``baseline``): adds the
        table and figure of every system against it.
    test, correction, alpha, alternative, n_resamples, confidence_level
        As in :func:`mrrstats.compare` (keyword-only).
    random : {"retrieved", "judged"}, keyword-only
        The random ranker of the baseline table (see
        :func:`mrrstats.random_baseline_counts`); default ``"retrieved"``: a
        random permutation of each retrieved list.
    ties, rel, queries : keyword-only
        Evaluation conventions (see :func:`mrrstats.evaluate`); ``ties=None``
        is trec_eval's, or ``"rank"`` under ``queries="msmarco"``, exactly as
        in :func:`mrrstats.evaluate` (:func:`mrrstats.defaults.default_ties`).
    missing : {"raise", "drop"}, keyword-only
        A query missing for some system: error, or drop it from the tests.
    title : str, optional, keyword-only
    notebook : bool, keyword-only
        Execute the notebook and export the HTML (default True); False writes
        only the tables, the saved results, ``per_query.csv`` and ``settings.json``.
    show_code : bool, keyword-only
        Keep the code cells in the HTML (default False: a reviewer reads
        tables, figures and text; the notebook always has the code).
    timeout : int, keyword-only
        Seconds allowed per notebook cell.
    progress : bool or None, keyword-only
        Progress on standard error; default (None): only on an interactive
        terminal outside CI (:func:`mrrstats.progress.progress_enabled`).
    clusters : "auto", None, mapping or callable, keyword-only
        Clusters of queries for the clustered-intervals section: ``"auto"``
        (default) finds CAsT turn ids ``<conversation>_<turn>``; a mapping
        query -> cluster or a function of the query id gives them; None leaves
        the section out.
    multiverse : bool, keyword-only
        Runs input: evaluate the runs under every tie convention, query set and
        relevance grade and report what changes (default True).
    segment_by : mapping or callable, optional, keyword-only
        Query segments for the segments section: a mapping query id ->
        segment, or a function of the query id (a string) returning its
        segment. The section holds ``compare(..., segment_by=...).segments``
        with the report's test, correction, alpha, B and seed (its own
        Generator seeded with the seed, so the other sections draw the same
        numbers as without it), p-values Holm-adjusted across the segments of
        each pair. Default None: no segments section (nothing is written for
        it and ``settings.json`` is unchanged).

    equivalence_margin : float, optional, keyword-only
        The margin :math:`m` of the equivalence test (TOST of :math:`-m <`
        mean difference :math:`< m`, paired t tests) in the estimation
        section. Default None: no equivalence test. There is deliberately no
        default margin: what difference is negligible is a claim about the
        measure and the application (0.01 of MRR may matter for web search
        and not for a QA benchmark), and an "equivalent" verdict against a
        margin nobody chose would read as a finding. The Hodges-Lehmann
        shifts and the effect-size intervals are shown in any case.
    replicates : mapping of str -> list of str, optional, keyword-only
        Several runs per system (seeds, folds): ``{system: [run, ...]}`` naming
        the report's runs (systems) of each system. Adds the section "Several
        runs per system" (:func:`mrrstats.replicate_tests` per measure).
    calibration : bool or int, keyword-only
        Add the section "Which test fits these data"
        (:func:`mrrstats.calibrate_tests` on the first measure; True: 1,000
        simulated collections per configuration, or that many). Default False
        (it takes seconds to a minute).
    bayesian : bool, keyword-only
        Add the section "Probabilities instead of p-values"
        (:func:`mrrstats.bayesian_comparison` per measure and pair).
    rope : float, optional, keyword-only
        Region of practical equivalence of that section (implies ``bayesian``).
    workers : int, keyword-only
        Threads of the resampling kernels (-1: all cores); the report's numbers
        do not depend on it, and it is not recorded.
    rng : int or None, keyword-only
        Seed. None draws fresh entropy, recorded in ``settings.json`` so that
        the report can be regenerated.

    judge_qrels : qrels, optional, keyword-only
        An LLM judge's labels of every query, ``qrels`` being people's labels of
        a random subset of them: adds the section "An LLM judge and people"
        (:func:`mrrstats.ppi_evaluate` with the report's level, resamples and
        seed; :func:`mrrstats.judge_agreement`). QRELS RUN... input only. The
        section "Unjudged documents" (:func:`mrrstats.judgment_bounds`) is added
        whenever some run retrieves unjudged documents in its top 10.
    collections : mapping, optional, keyword-only
        The same systems on several collections: ``{collection: (qrels, runs)}``
        (evaluated with the report's measures and conventions), ``{collection:
        per-query scores}`` (a queries x systems DataFrame or score-matrix path, of
        the first measure) or ``{collection: {measure: per-query scores}}``. Adds
        the section "Across collections"
        (:mod:`mrrstats.report.collections_section`): per measure, the average ranks
        with their two-level bootstrap intervals, Friedman's test, the
        Iman-Davenport F, Nemenyi's critical difference, the pairwise p-values,
        the cliques and the critical-difference diagram
        (:func:`mrrstats.critical_difference`), and the replicability analysis and
        random-effects meta-analysis of the control system (else the best average
        rank) against each other system (:func:`mrrstats.across_collections`); its
        methods paragraphs go into ``methods.md`` and their references into
        ``references.bib``. The collections are a design of their own: the rest of
        the report is the one collection of ``qrels``/``runs`` (or ``scores``).
        ``collections="clusters"`` takes the report's own clusters of queries
        (``clusters``; e.g. the conversations of CAsT) as the collections.

    Returns
    -------
    ReportResult

    Notes
    -----
    Re-running with the same inputs, options and seed (and the same package
    versions) writes a byte-identical folder: ``tables/``, ``results/``,
    ``per_query.csv``, ``settings.json``, the notebook (its cell ids are
    fixed) and the HTML.

    Examples
    --------
    >>> import tempfile, mrrstats
    >>> data = mrrstats.datasets.cast2021()
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     res = mrrstats.make_report(data.qrels, data.runs[:3], out=tmp, measures="RR",
    ...                                n_resamples=999, rng=1, notebook=False,
    ...                                multiverse=False, progress=False)
    ...     print(res.files[:3])
    ('methods.md', 'per_query.csv', 'references.bib')
    """
    _flags_iv(notebook=notebook, show_code=show_code, multiverse=multiverse, bayesian=bayesian,
              calibration=calibration, clusters=clusters, title=title, rope=rope, out=out)
    if collections is not None and not isinstance(collections, str | Mapping):
        raise ParameterTypeError("`collections` must be a mapping {collection: (qrels, runs) "
                                 "or per-query scores} or 'clusters', got "
                                 f"{type(collections).__name__}", name="collections")
    o = _make_report_iv(qrels, runs, scores, out, measures, control, test, correction, alpha,
                        alternative, n_resamples, confidence_level, random, ties, rel,
                        queries, missing, rng, timeout, equivalence_margin, workers)
    prepare(o.out)  # `out` is a folder (or not there yet); what a killed report left goes
    progress = progress_enabled(progress)
    t0 = time.perf_counter()
    _, seed = rng_iv(rng)
    if o.items is None:
        inputs = _evaluate_runs(qrels, runs, o, progress)
    else:
        inputs = _read_score_matrices(o.items, o.measures)
    systems = list(inputs.frames[inputs.measures[0]].columns)
    if o.control is not None and o.control not in systems:
        raise ParameterError(f"`control` {o.control!r} is not a system; have {systems}")
    queries_all = inputs.frames[inputs.measures[0]].index
    mv, mv_settings, mv_note = _multiverse(qrels, runs, inputs, o, multiverse, progress)
    settings = _settings(o, inputs, systems, title=title, seed=seed,
                         clusters=_cluster_settings(queries_all, clusters),
                         multiverse=(mv_settings, mv_note),
                         segments=_segment_settings(segment_by, queries_all))
    # optional sections (several runs, calibration, Bayesian): only their keys are added
    # (report.designs)
    settings.update(design_settings(replicates, calibration, bayesian, rope, systems))
    judged = {}
    if o.items is None:  # unjudged documents, and an LLM judge (judged_section)
        judged, judged_settings = judged_results(
            qrels, runs, inputs.measures, judge_qrels=judge_qrels,
            confidence_level=o.confidence_level, n_resamples=o.n_resamples, seed=seed,
            ties=o.ties, rel=o.rel)
        settings.update(judged_settings)  # "judge", "bounds": only where they apply
    elif judge_qrels is not None:
        raise ParameterError("`judge_qrels` needs QRELS RUN... input (qrels and runs)")
    coll_texts: list = []
    if collections is not None:  # "Across collections" (report.collections_section)
        if isinstance(collections, str):
            collections = _clusters_as_collections(collections, inputs, queries_all,
                                                   clusters)
        say(progress, f"across collections ({len(collections)} collections) ...")
        coll_frames, coll_settings, coll_texts = collections_results(
            collections, inputs.measures, systems, control=o.control, alpha=o.alpha,
            alternative=o.alternative, confidence_level=o.confidence_level,
            n_resamples=o.n_resamples, seed=seed, ties=o.ties, rel=o.rel, queries=o.queries)
        settings.update(coll_settings)
        judged = {**judged, **coll_frames}
    # written beside `out` and swapped in when complete: the previous report stays whole
    # until then, whatever ends this call (report.staging)
    with staged(o.out) as stage:
        data, written = _write_analysis(stage, settings, inputs, mv, progress, o.workers,
                                        judged, coll_texts)
        seconds = {"analysis": time.perf_counter() - t0}
        if notebook:
            files, secs = write_notebook(stage, title or "mrrstats report",
                                         segments="segments" in settings, timeout=o.timeout,
                                         designs=[k for k in DESIGN_SECTIONS if k in settings],
                                         progress=progress, show_code=show_code,
                                         judged=tuple(judged),
                                         collections="collections" in settings,
                                         left_out=left_out_counts(settings))
            written += files
            seconds.update(secs)
    say(progress, f"wrote {len(written)} files to {o.out} in {sum(seconds.values()):.1f} s")
    return ReportResult(o.out, tuple(sorted(written)), data, seconds)


@dataclass(frozen=True)
class _Inputs:
    """The per-query scores of a report and where they came from."""

    frames: dict          # measure -> DataFrame (queries x systems), every evaluated measure
    measures: list        # the compared measures
    rr_measure: object    # the RR-type measure, or None
    query_stats: object   # runs: system, query and the candidate counts; else None
    record: dict          # settings["input"]
    evaluation: object    # runs: the evaluation conventions; else None
    random: object        # runs: settings["random_baseline"]; else None


def _evaluate_runs(qrels, runs, o, progress):
    """Evaluate the runs: every compared measure, and RR when no RR-type measure is listed."""
    eval_measures = list(o.measures) if o.measures is not None else ["RR", "nDCG@10"]
    n_compared = len(eval_measures)
    if next((m for m in eval_measures if is_rr(m)), None) is None:
        eval_measures.append("RR")
    say(progress, f"evaluating {len(runs) if hasattr(runs, '__len__') else '?'} runs "
        f"({', '.join(eval_measures)}) ...")
    source, qrels = qrels, qrels_iv(qrels)  # the file (if any) goes into the provenance
    top = int(np.max(qrels.grade)) if len(qrels.grade) else 0
    if int_iv(o.rel, "rel") > top:
        raise ParameterError(f"`rel` = {o.rel} is above every grade of the qrels (at most "
                             f"{top}): no document would be relevant", name="rel")
    ev = evaluate(qrels, runs, eval_measures, ties=o.ties, rel=o.rel, queries=o.queries)
    names = ev.measure_names
    rr_measure = next(m for m in names if is_rr(m))
    run_list = list(runs.values()) if isinstance(runs, Mapping) else (
        list(runs) if isinstance(runs, (list, tuple)) else [runs])
    record = {"kind": "runs", "qrels": file_record(source),
              "runs": [file_record(src, name=name)
                       for name, src in zip(ev.runs, run_list, strict=True)],
              "query_counts": {r: ev.counts[r].to_dict() for r in ev.runs}}
    return _Inputs(frames={m: ev.scores(m) for m in names}, measures=names[:n_compared],
                   rr_measure=rr_measure,
                   query_stats=ev.query_stats.rename(columns={"run": "system"}),
                   record=record, evaluation=dict(ev.settings),
                   random={"random": o.random, "measure": rr_measure,
                           "alternative": "greater", "method": "auto",
                           "n_resamples": o.n_resamples})


def _read_score_matrices(items, measures):
    """Read the score matrices (``(measure, path or DataFrame)`` items)."""
    frames = {}
    records = []
    for name, src in items:
        frame = src if isinstance(src, pd.DataFrame) else read_score_matrix(src)
        frames[name] = frame
        records.append(file_record(src, measure=name))
    names = list(frames)
    if measures is None:
        measures = list(names)
    unknown = [m for m in measures if m not in frames]
    if unknown:
        raise ParameterError(f"`measures` {unknown} not among the score matrices {names}")
    return _Inputs(frames=frames, measures=list(measures),
                   rr_measure=next((m for m in names if is_rr(m)), None), query_stats=None,
                   record={"kind": "scores", "scores": records}, evaluation=None, random=None)


def _clusters_as_collections(collections, inputs, queries, clusters):
    """``collections="clusters"``: ``{cluster: {measure: its queries' scores}}``."""
    if collections != "clusters":
        raise ParameterError("`collections` must be a mapping {collection: ...} or "
                             f"'clusters', got {collections!r}", name="collections")
    labels, _ = cluster_labels(queries, clusters)
    if labels is None:
        raise ParameterError("`collections='clusters'` needs clusters of queries (the query "
                             "ids are not turn ids such as 106_3; pass clusters=)",
                             name="collections")
    out: dict = {str(c): {} for c in dict.fromkeys(labels)}
    for m in inputs.measures:
        frame = inputs.frames[m]
        lab = np.asarray(cluster_labels(frame.index, clusters)[0], dtype=object)
        for c in out:
            out[c][m] = frame[lab == c]
    return out


def _cluster_settings(queries, clusters):
    """``(settings["clusters"], settings["clusters_note"])``: one of them is None."""
    labels, how = cluster_labels(queries, clusters)
    note = ("no clusters given (clusters=None)" if clusters is None else
            "the query ids are not turn ids such as 106_3 (conversation 106, turn 3) with "
            "several turns per conversation; pass clusters= to make_report")
    if labels is None:
        return None, note
    n_clusters = int(pd.unique(labels).size)
    if n_clusters < 2:
        return None, "fewer than two clusters"
    return {"description": how, "n_clusters": n_clusters,
            "labels": None if isinstance(clusters, str) else
            {str(q): str(c) for q, c in zip(queries, labels, strict=True)}}, None


def _multiverse(qrels, runs, inputs, o, multiverse, progress):
    """``(MultiverseResult, settings["multiverse"], note)`` of runs input (else Nones)."""
    if o.items is not None:
        return None, None, "the multiverse needs the run files (QRELS RUN... input)"
    if not multiverse:
        return None, None, "not asked for (multiverse=False)"
    correction = o.correction if o.correction in ("holm", "bonferroni", "bh", "none") \
        else "holm"
    say(progress, "convention multiverse (ties x queries x relevance grades x empty "
        "targets) ...")
    mv = multiverse_result(qrels, runs, inputs.measures, alpha=o.alpha, correction=correction)
    mv_settings = {"ties": list(MULTIVERSE_OPTIONS["ties"]),
                   "queries": list(MULTIVERSE_OPTIONS["queries"]),
                   "rels": sorted({int(r) for r in mv.summary["rel"]}),
                   "cutoffs": list(MULTIVERSE_OPTIONS["cutoffs"]),
                   "empty_targets": list(MULTIVERSE_OPTIONS["empty_targets"]),
                   "test": mv.test, "correction": mv.correction, "alpha": mv.alpha}
    return mv, mv_settings, None


def _settings(o, inputs, systems, *, title, seed, clusters, multiverse, segments):
    """The content of ``settings.json``: every convention, the seed and the versions."""
    margin = o.equivalence_margin
    settings = {
        "format": FORMAT_VERSION,
        "title": title,
        "input": inputs.record,
        "systems": systems,
        "measures": list(inputs.measures),
        "evaluated_measures": list(inputs.frames),
        "rr_measure": inputs.rr_measure,
        "evaluation": inputs.evaluation,
        "comparison": {"test": o.test, "correction": o.correction, "alpha": o.alpha,
                       "alternative": o.alternative, "n_resamples": o.n_resamples,
                       "confidence_level": o.confidence_level, "missing": o.missing},
        "control": o.control,
        "random_baseline": inputs.random,
        "random_baseline_note": None if inputs.random else (
            "score matrices carry no candidate counts (the number of ranked candidates "
            "and of relevant ones per query); make the report from QRELS RUN... input"),
        "agreement": {"ties": "agreement", "decimals": 12},
        "leaderboard": {"decisions": "the comparison's (test, correction, alpha)"},
        "clusters": clusters[0],
        "clusters_note": clusters[1],
        "multiverse": multiverse[0],
        "multiverse_note": multiverse[1],
        "estimation": {"margin": margin,
                       "hodges_lehmann": "R's wilcox.test(paired = TRUE, conf.int = TRUE)",
                       "d_z": "noncentral t interval",
                       "prob_superiority": "BCa bootstrap interval",
                       "equivalence": None if margin is None else
                       "TOST by paired t tests (statsmodels ttost_paired)"},
        "mixed": {"model": "score ~ system + (1 | query), REML (statsmodels MixedLM)",
                  "anova": "two-way ANOVA without replication; Tukey HSD"},
        "seed": seed,
        "rng_order": RNG_ORDER,
        "power": {"test": "paired t", "differences": [0.02, 0.05, 0.1], "alpha": o.alpha,
                  "alternative": "two-sided", "target": 0.8},
        "versions": versions(),
    }
    if segments is not None:
        # only when asked for: a report without segments writes what it wrote before
        settings["segments"] = segments
    return settings


def _write_analysis(out, settings, inputs, mv, progress, workers, judged=None, extra=()):
    """Write ``per_query.csv`` and ``settings.json``, run the analysis on them (read back, so
    that the numbers are those of the files) and write ``tables/`` and ``results/``.

    Returns ``(ReportData, files written)``.
    """
    out.mkdir(parents=True, exist_ok=True)
    (out / "tables").mkdir(exist_ok=True)
    names, systems = settings["evaluated_measures"], settings["systems"]
    write_per_query(per_query_frame(inputs.frames, inputs.query_stats, names, systems),
                    out / "per_query.csv")
    (out / "settings.json").write_text(dump_json(settings), encoding="utf-8", newline="")
    scores, stats = read_per_query(out / "per_query.csv", names, systems,
                                   settings["input"]["kind"] == "runs")
    data = analyse(scores, stats, settings, progress=progress, multiverse=mv, workers=workers,
                   judged=judged)
    written = ["per_query.csv", "settings.json"]
    for sub in ("tables", "results"):
        (out / sub).mkdir(exist_ok=True)
        for name in sorted(p.name for p in (out / sub).iterdir() if p.is_file()):
            (out / sub / name).unlink()
    for name, text in data.tables().items():
        (out / "tables" / name).write_text(text, encoding="utf-8", newline="")
        written.append(f"tables/{name}")
    written += save_results(data, out / "results")
    for name, text in methods_files(data.comparison, extra).items():
        (out / name).write_text(text, encoding="utf-8", newline="")
        written.append(name)
    return data, written


def methods_files(comparison: Comparison,
                  extra: Sequence[tuple[str, MethodsText]] = ()) -> dict[str, str]:
    """``{"methods.md": ..., "references.bib": ...}`` of a report's comparison, and of the
    sections in ``extra`` (``(heading, MethodsText)``, e.g. "Across collections")."""
    m = comparison.methods()
    text = ("# Methods\n\n" + m.text + "\n\nFor LaTeX (natbib `\\citep`; the entries are in "
            "`references.bib`):\n\n```latex\n" + m.latex + "\n```\n")
    if not extra:
        return {"methods.md": text, "references.bib": m.bibtex}
    more, keys = methods_section(extra)
    return {"methods.md": text + "\n" + more,
            "references.bib": bibtex(dict.fromkeys((*m.keys, *keys)))}


def _score_inputs(scores):
    """Normalise ``scores`` to an ordered list of (measure name, source)."""
    if isinstance(scores, (str, os.PathLike, pd.DataFrame)):
        scores = [scores]
    if isinstance(scores, Mapping):
        items = [(str(k), v) for k, v in scores.items()]
    elif isinstance(scores, (list, tuple)):
        items = score_sources(scores)  # the NAME=PATH rule lives in model.scoretable
    else:
        raise ParameterTypeError(
            "`scores` must be a path, a list of paths (NAME=PATH allowed), or "
            "a dict measure -> path or DataFrame")
    if not items:
        raise ParameterError("`scores` is empty")
    names = [n for n, _ in items]
    if len(set(names)) != len(names):
        raise ParameterError(f"`scores` gives measure names {names}: each must be unique")
    return items


def _flags_iv(*, notebook, show_code, multiverse, bayesian, calibration, clusters, title,
              rope, out):
    """The switches of :func:`make_report`: True/False, and their few other forms."""
    for name, value in (("notebook", notebook), ("show_code", show_code),
                        ("multiverse", multiverse), ("bayesian", bayesian)):
        bool_iv(value, name)
    if not isinstance(calibration, bool):
        int_iv(calibration, "calibration")
    if not (clusters is None or clusters == "auto" if isinstance(clusters, str | type(None))
            else isinstance(clusters, Mapping | pd.Series) or callable(clusters)):
        raise ParameterTypeError(f"`clusters` must be 'auto', None, a mapping or a callable, "
                                 f"got {clusters!r:.60}", name="clusters")
    if rope is not None:
        float_iv(rope, "rope", low=0.0)
    if isinstance(out, str | os.PathLike) and Path(out).exists() and not Path(out).is_dir():
        raise ParameterError(f"`out` must be a folder, got the file {out}", name="out")
    if title is not None and not isinstance(title, str):
        raise ParameterTypeError(f"`title` must be a string or None, got {title!r:.60}",
                                 name="title")


def _make_report_iv(qrels, runs, scores, out, measures, control, test, correction, alpha,
                    alternative, n_resamples, confidence_level, random, ties, rel, queries,
                    missing, rng, timeout, equivalence_margin, workers):
    """Every argument of :func:`make_report` checked and normalised, as one namespace."""
    if out is None or not isinstance(out, (str, os.PathLike)):
        raise ParameterTypeError("`out` must be a folder path")
    if scores is not None:
        if qrels is not None or runs is not None:
            raise ParameterError("give either `qrels` and `runs`, or `scores`, not both")
        items = _score_inputs(scores)
    else:
        if qrels is None or runs is None:
            raise ParameterError("`qrels` and `runs` are required (or pass `scores`)")
        items = None
    if isinstance(measures, str):
        measures = [measures]
    if measures is not None:
        if not isinstance(measures, list | tuple):
            raise ParameterTypeError("`measures` must be a measure name or a list of them",
                                     name="measures")
        measures = list(measures)
        if not measures or not all(isinstance(m, str) for m in measures):
            raise ParameterTypeError("`measures` must be a measure name or a list of them")
    test = test_spec(test).name
    correction = correction_spec(correction).name
    alpha = alpha_iv(alpha)
    alternative_iv(alternative)
    n_resamples = n_resamples_iv(n_resamples)
    confidence_level = confidence_level_iv(confidence_level)
    if ties is None:
        ties = default_ties(queries)
    if not isinstance(random, str | None) or random not in RANDOM_MODELS:
        raise ParameterError(f"`random` must be 'retrieved' or 'judged', got {random!r}")
    if not isinstance(missing, str) or missing not in ("raise", "drop"):
        raise ParameterError(f"`missing` must be 'raise' or 'drop', got {missing!r}")
    if rng is not None and (isinstance(rng, bool) or not isinstance(rng, numbers.Integral)
                            or rng < 0):
        raise ParameterTypeError(
            "`rng` must be None or a non-negative integer seed (a report must "
            f"record the seed that regenerates it), got {rng!r}")
    if control is not None and not isinstance(control, str):
        raise ParameterTypeError(f"`control` must be a system name, got {control!r}")
    timeout = int_iv(timeout, "timeout")
    if equivalence_margin is not None:
        if isinstance(equivalence_margin, bool) or not isinstance(equivalence_margin,
                                                                  numbers.Real) \
                or not (math.isfinite(equivalence_margin) and equivalence_margin > 0):
            raise ParameterError("`equivalence_margin` must be None or a positive number, got "
                             f"{equivalence_margin!r}")
        equivalence_margin = float(equivalence_margin)
    return SimpleNamespace(
        items=items, out=Path(out), measures=measures, test=test, correction=correction,
        alpha=alpha, alternative=alternative, n_resamples=n_resamples,
        confidence_level=confidence_level, random=random, ties=ties, rel=rel,
        queries=queries, missing=missing, control=control, timeout=timeout,
        equivalence_margin=equivalence_margin, workers=workers_iv(workers))


def _segment_settings(segment_by, queries):
    """``settings["segments"]`` for ``segment_by`` (None when not given)."""
    if segment_by is None:
        return None
    if callable(segment_by):
        labels = {str(q): segment_by(str(q)) for q in queries}
        how = getattr(segment_by, "description", None) or \
            f"segments from {getattr(segment_by, '__name__', 'a function')}(query id)"
    elif isinstance(segment_by, Mapping):
        missing = [str(q) for q in queries if q not in segment_by and str(q) not in segment_by]
        if missing:
            raise ParameterError(f"`segment_by` gives no segment for {len(missing)} queries, "
                             f"e.g. {missing[:3]}")
        labels = {str(q): segment_by[q] if q in segment_by else segment_by[str(q)]
                  for q in queries}
        how = "segments given by a mapping query -> segment"
    else:
        raise ParameterTypeError(
            "`segment_by` must be a mapping query -> segment or a function of "
            f"the query id, not {type(segment_by).__name__}")
    bad = [q for q, v in labels.items() if v is None or (isinstance(v, float) and v != v)]
    if bad:
        raise ParameterError(f"`segment_by` gives no segment (None/NaN) for queries {bad[:3]}")
    labels = {q: str(v) for q, v in labels.items()}
    segs = list(dict.fromkeys(labels.values()))
    if len(segs) < 2:
        raise ParameterError(f"`segment_by` gives {len(segs)} segment; need at least two")
    return {"description": how, "segments": segs, "segment_correction": "holm",
            "labels": labels}
