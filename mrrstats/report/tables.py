"""The report's tables: what each says, in Markdown and LaTeX, from the saved numbers.

:func:`report_tables` renders every table of a report from a
:class:`~mrrstats.report.data.ReportData` (its comparison, settings and result
frames); each renderer returns ``(header, rows, alignment, caption)`` for
:func:`mrrstats.formatting.markdown_table` and
:func:`mrrstats.formatting.latex_table`, and the caption states the test, the
correction, the interval, B and the seed behind the numbers.
"""

from __future__ import annotations

import pandas as pd

from ..errors import ParameterError
from ..formatting import (
    DIGITS,
    fixed,
    interval_cell,
    latex_table,
    markdown_table,
    percent,
    pvalue_text,
)
from ..stats.coverage import measured_coverage_note
from ..stats.registry import (
    CORRECTIONS,
    FAMILY_TESTS,
    correction_label,
    interval_label,
    test_label,
)
from .designs import DESIGN_ROWS
from .judged_section import bounds_rows, judge_rows
from .plots import one_option_at_a_time

__all__ = ["report_tables", "procedure_phrase", "interval_phrase", "FEW_SYSTEMS"]

#: Below this many systems the agreement section says that tau is not informative.
FEW_SYSTEMS = 7
#: Interval methods compatible with a step-down procedure (Strassburger & Bretz 2008): a
#: rejected pair's interval is open on one side.
_COMPATIBLE = ("holm-sb2008", "maxt-step-down")


def report_tables(data) -> dict:
    """``{relative file name: text}`` of every table file of the report."""
    if data.comparison is None:
        raise ParameterError("this ReportData was loaded (load_report): its tables are the "
                         "files in tables/; recompute_report(path).tables() runs the "
                         "analysis again to check them")
    out = {}
    cmp_ = data.comparison
    md_notes = "".join(f"\n**Warning.** {n}\n" for n in data.notes)
    tex_notes = "".join(f"% Warning: {n}\n" for n in data.notes)
    out["comparison.md"] = cmp_.to_markdown(digits=DIGITS) + md_notes
    out["comparison.tex"] = tex_notes + cmp_.to_latex(digits=DIGITS,
                                                      label="tab:comparison")
    out["comparison.json"] = cmp_.to_json() + "\n"
    header, rows, align, caption = _pairs_rows(data)
    out["pairs.md"] = markdown_table(header, rows, align, caption) + md_notes
    out["pairs.tex"] = tex_notes + latex_table(header, rows, align, caption, "tab:pairs")
    for name, render in (("versus_control", _versus_control_rows),
                         ("random_baseline", _random_baseline_rows),
                         ("rr_summary", _rr_summary_rows),
                         ("agreement", _agreement_rows),
                         ("leaderboard", _leaderboard_rows),
                         ("clustered", _clustered_rows),
                         ("multiverse", _multiverse_rows),
                         ("estimation", _estimation_rows),
                         ("mixed", _mixed_rows),
                         ("segments", _segments_rows), ("judge", judge_rows),
                         ("judgment_bounds", bounds_rows), *DESIGN_ROWS.items()):
        built = render(data)
        if built is None:
            continue
        header, rows, align, caption = built
        out[f"{name}.md"] = markdown_table(header, rows, align, caption)
        out[f"{name}.tex"] = latex_table(header, rows, align, caption, f"tab:{name}")
    return out


def procedure_phrase(data):
    """``(test in words, correction label, correction name)`` of the report's comparison."""
    c = data.comparison
    r0 = c.results[c.measures[0]]
    corr = correction_label(r0.correction)
    side = {"two-sided": "two-sided", "greater": "one-sided (a better)",
            "less": "one-sided (a worse)"}[c.alternative]
    text = f"{test_label(c.test)}, {side}"
    if r0.n_resamples is not None:
        text += (f", exact ({r0.n_resamples} sign vectors)" if r0.exact
                 else f", B = {c.n_resamples}, seed = {data.settings['seed']}")
    return text, corr, r0.correction


def _pairs_rows(data):
    c = data.comparison
    frame = c.to_frame()
    cl = c.confidence_level
    rows = []
    for r in frame.itertuples(index=False):
        rows.append([r.measure, r.a, r.b, fixed(r.mean_a), fixed(r.mean_b), fixed(r.difference),
                     interval_cell(r.ci_low, r.ci_high), pvalue_text(r.pvalue),
                     pvalue_text(r.pvalue_adjusted), "yes" if r.reject else "no",
                     fixed(r.d_z, 2),
                     f"{r.wins}/{r.ties}/{r.losses}"])
    header = ["measure", "a", "b", "mean a", "mean b", "a - b",
              f"{cl:.0%} CI", "p", "p adj.", "reject", "d_z",
              "W/T/L"]
    test, corr, _ = procedure_phrase(data)
    caption = (f"Every pair of systems: mean difference a - b with its {cl:.0%} "
               f"confidence interval ({interval_phrase(c.ci_method, cl)}), raw p-value of "
               f"the {test}, "
               f"p-value adjusted over the pairs of each measure ({corr}), decision at "
               f"alpha = {c.alpha:g}, standardised effect d_z (mean difference / sd of "
               "the differences) and queries won/tied/lost by a.")
    return header, rows, "lll" + "r" * 9, caption


def _versus_control_rows(data):
    vc = data.versus_control
    if vc is None:
        return None
    c = data.comparison
    cl = c.confidence_level
    rows = [[r.measure, r.system, fixed(r.mean), fixed(r.control_mean), fixed(r.difference),
             interval_cell(r.ci_low, r.ci_high), pvalue_text(r.pvalue),
             pvalue_text(r.pvalue_adjusted),
             "yes" if r.reject else "no"] for r in vc.itertuples(index=False)]
    control = data.settings["control"]
    header = ["measure", "system", "mean", f"mean {control}", "diff",
              f"{cl:.0%} CI", "p", "p adj.", "reject"]
    test, corr, rcorr = procedure_phrase(data)
    if rcorr == "none":
        fam = "no multiple-comparison correction"
    elif c.test in FAMILY_TESTS or CORRECTIONS[rcorr].joint_null:
        fam = (f"p-values adjusted by the {corr} procedure over all pairs of systems "
               "(conservative for comparisons with one control)")
    else:
        fam = (f"p-values adjusted with {corr} over the {len(data.systems) - 1} "
               "comparisons with the control of each measure")
    caption = (f"Each system against the control {control}: difference system - control "
               f"with its {cl:.0%} confidence interval ({interval_phrase(c.ci_method, cl)}, "
               f"the interval of the pair in the pairs table), raw p-value of the {test}; "
               f"{fam}; reject at alpha = {c.alpha:g}.")
    return header, rows, "ll" + "r" * 7, caption


def _random_baseline_rows(data):
    rb = data.random_baseline
    if rb is None:
        return None
    s = data.settings["random_baseline"]
    rows = []
    for name, r in rb.iterrows():
        rows.append([name, str(int(r.queries)), fixed(r.observed), fixed(r.expected),
                     fixed(r["std"]), fixed(r.adjusted), fixed(r.zscore, 2),
                     pvalue_text(r.pvalue), r.method])
    m = s["measure"]
    header = ["system", "queries", f"M{m}" if m.startswith("RR") else m,
              "E (random)", "sd (random)", "adjusted", "z", "p", "p method"]
    model = ("a uniformly random permutation of each retrieved list (N = documents "
             "retrieved, R = relevant documents retrieved, per query)"
             if s["random"] == "retrieved" else
             "a uniformly random ranking of each query's judged pool (N = judged "
             "documents, R = judged relevant documents)")
    methods = set(rb["method"])
    pm = []
    if "exact" in methods:
        pm.append("exact (convolution of the per-query null distributions)")
    if "monte-carlo" in methods:
        pm.append(f"Monte Carlo (b + 1)/(B + 1) with B = {s['n_resamples']}, "
                  f"seed = {data.settings['seed']}")
    caption = (f"Observed mean {m} against {model}. E and sd: exact expectation and "
               f"standard deviation of the mean under random ranking; adjusted = "
               f"(M - E)/(1 - E) (0 = random, 1 = perfect); z = (M - E)/sd; p: "
               f"one-sided test of 'better than random', {' or '.join(pm)}.")
    return header, rows, "lr" + "r" * 6 + "l", caption


def _rr_summary_rows(data):
    rs = data.rr_summary
    if rs is None:
        return None
    m = data.rr_measure
    rows = []
    for name, r in rs.iterrows():
        rows.append([name, fixed(r.mrr), fixed(r.median_rr), percent(r.share_rr_one),
                     percent(r.share_rr_zero), fixed(r.harmonic_mean_rank, 2),
                     fixed(r.geometric_mean_rank, 2), fixed(r.arithmetic_mean_rank, 2)])
    header = ["system", f"M{m}", f"median {m}", f"{m} = 1", f"{m} = 0", "HM rank",
              "GM rank", "AM rank"]
    n_degenerate = int(rs["median_is_one"].sum())
    note = (f" The median {m} is exactly 1 for {n_degenerate} of {len(rs)} systems: "
            "a median cannot separate them." if n_degenerate else "")
    caption = (f"Distribution of {m} per system over {int(rs['n_queries'].iloc[0])} "
               f"queries: mean, median, share of queries with the first result relevant "
               f"({m} = 1) and with no relevant result ({m} = 0), and the harmonic, "
               f"geometric and arithmetic means of the first relevant rank 1/{m} over "
               f"the queries with one (the harmonic mean rank is 1/M{m} restricted to "
               f"them).{note}")
    return header, rows, "l" + "r" * 7, caption


def _agreement_rows(data):
    ag = data.agreement
    if ag is None:
        return None
    rows = [[r.measure_a, r.measure_b, fixed(r.tau, 3), fixed(r.tau_ap, 3),
             fixed(r.tau_ap_reverse, 3), fixed(r.rho, 3), f"{int(r.n_swaps)}/{int(r.n_pairs)}"]
            for r in ag.itertuples(index=False)]
    n = int(ag["n_systems"].iloc[0])
    header = ["measure a", "measure b", "tau", "tau_AP (a truth)", "tau_AP (b truth)",
              "rho", "swapped pairs"]
    few = (f" With only {n} systems (fewer than {FEW_SYSTEMS}) Kendall's tau takes "
           f"{n * (n - 1) // 2 + 1} possible values and no test of it can reach "
           "significance at 0.05 unless the orders agree almost exactly: these numbers "
           "are not informative." if n < FEW_SYSTEMS else
           f" With {n} systems these numbers are coarse: read them as descriptive.")
    caption = (f"Agreement between the rankings of the {n} systems by their mean score "
               "under two measures: Kendall's tau-b, tau_AP (Yilmaz, Aslam and Robertson "
               "2008; top-weighted, with either measure's ranking as the truth), "
               "Spearman's rho and the number of system pairs the two measures order "
               "oppositely. Means rounded to 12 decimals before ranking, so equal "
               f"totals tie.{few}")
    return header, rows, "ll" + "r" * 5, caption


def _leaderboard_rows(data):
    lb = data.leaderboard
    if lb is None:
        return None
    measures = list(dict.fromkeys(lb["measure"]))
    first = lb[lb["measure"] == measures[0]].sort_values(["rank", "rank_low"],
                                                           kind="stable")
    cells = {(r.measure, r.system): f"{int(r.rank)} [{int(r.rank_low)}, "
                                    f"{int(r.rank_high)}] {r.letters}"
             for r in lb.itertuples(index=False)}
    rows = [[s, *(cells[(m, s)] for m in measures)] for s in first["system"]]
    header = ["system", *measures]
    c = data.comparison
    test, corr, rcorr = procedure_phrase(data)
    simultaneous = (
        f"all intervals hold together at the comparison's family-wise level "
        f"(alpha = {c.alpha:g})" if rcorr != "none" or c.test in FAMILY_TESTS else
        "the decisions are not corrected for multiplicity, so the intervals do not "
        "hold simultaneously")
    caption = (
        "Leaderboard with honest ranks: per measure, each system's rank by its mean "
        "(1 = best), its rank interval [1 + systems significantly better, k - systems "
        "significantly worse] (Mogstad, Romano, Shaikh and Wilhelm 2024) and its compact "
        "letters (Piepho 2004): systems that share a letter are not significantly "
        f"different. Both come from the decisions of the comparison ({test}, {corr} "
        f"correction), the same as the superscripts of the comparison table, so "
        f"{simultaneous}. Systems in the order of {measures[0]}.")
    return header, rows, "l" + "r" * len(measures), caption


def _clustered_rows(data):
    cf = data.clustered
    if cf is None:
        return None
    s = data.settings
    cl = s["comparison"]["confidence_level"]
    rows = [[r.measure, r.a, r.b, fixed(r.difference),
             interval_cell(r.query_low, r.query_high),
             interval_cell(r.cluster_low, r.cluster_high), fixed(r.width_ratio, 2),
             pvalue_text(r.pvalue_cluster), pvalue_text(r.pvalue_cluster_adjusted),
             f"{'yes' if r.reject_queries else 'no'} / "
             f"{'yes' if r.reject_clusters else 'no'}"]
            for r in cf.itertuples(index=False)]
    header = ["measure", "a", "b", "a - b", f"{cl:.0%} CI, queries",
              f"{cl:.0%} CI, clusters", "width ratio", "p, clusters", "p adj., clusters",
              "reject: queries / clusters"]
    G = int(cf["n_clusters"].iloc[0])
    n_q = int(cf["n_queries"].iloc[0])
    both = int((cf["reject_queries"] & cf["reject_clusters"]).sum())
    only_q = int((cf["reject_queries"] & ~cf["reject_clusters"]).sum())
    only_c = int((~cf["reject_queries"] & cf["reject_clusters"]).sum())
    ratio = cf["width_ratio"].dropna()
    test, corr, _ = procedure_phrase(data)
    exact = ("exact: all 2^G sign patterns" if cf["exact"].all() else
             f"B = {s['comparison']['n_resamples']}")
    caption = (
        f"Queries in clusters: {n_q} queries in {G} clusters "
        f"({s['clusters']['description']}). For each pair, the {cl:.0%} bootstrap "
        "percentile interval of the mean difference a - b with the queries resampled as "
        "independent, and with whole clusters resampled (the cluster bootstrap: Davison "
        f"and Hinkley 1997, 3.8; Field and Welsh 2007; B = "
        f"{s['comparison']['n_resamples']}, seed = {s['seed']}), the ratio of their "
        f"widths, and the randomization test with one sign flip per cluster ({exact}), "
        f"Holm-adjusted over the pairs of each measure. Last column: the decision of "
        f"the comparison ({test}, {corr}, queries independent) and of the cluster test, "
        f"at alpha = {s['comparison']['alpha']:g}. Of "
        f"{both + only_q} pairs significant with queries independent, {both} stay "
        f"significant with clusters ({only_q} {'does' if only_q == 1 else 'do'} not); "
        f"{only_c} become{'s' if only_c == 1 else ''} significant only "
        f"with clusters. The cluster interval is {ratio.min():.2f} to {ratio.max():.2f} "
        f"times as wide (median {ratio.median():.2f}): wider where the turns of a "
        "cluster move together, narrower where whole clusters differ less from each "
        "other than their turns do.")
    return header, rows, "lll" + "r" * 7, caption


def _multiverse_rows(data):
    mv = data.multiverse
    if mv is None:
        return None
    rows = []
    totals = []
    for m in dict.fromkeys(mv.summary["measure"]):
        summ = mv.summary[mv.summary["measure"] == m]
        one = one_option_at_a_time(summ, mv.reference[m])
        for r in one.itertuples(index=False):
            rows.append([m, r.convention, fixed(r.kendall_tau, 2), str(int(r.n_significant)),
                         str(int(r.n_flipped)), str(int(r.n_lost)), str(int(r.n_gained)),
                         fixed(r.max_abs_shift)])
        changed = int(((summ["n_flipped"] > 0)).sum())
        sig = int(((summ["n_lost"] > 0) | (summ["n_gained"] > 0)).sum())
        totals.append(f"{m}: {changed} of {len(summ)} conventions reorder some pair and "
                      f"{sig} change a significance decision")
    header = ["measure", "convention", "tau", "significant pairs", "flipped", "lost",
              "gained", "largest mean change"]
    ref = mv.reference[next(iter(mv.reference))]
    s = data.settings["multiverse"]
    caption = (
        "The convention multiverse (Steegen et al. 2016): the runs evaluated again under "
        f"every tie convention ({', '.join(s['ties'])}), query set "
        f"({', '.join(s['queries'])}), relevance threshold (grades "
        f"{', '.join(map(str, s['rels']))}) and, where some query has no relevant "
        "document at that threshold, empty-target policy (such a query scores 0 "
        "(neg, trec_eval), 1 (pos) or is left out (skip)), each pair tested with the "
        "paired t test "
        f"and {correction_label(s['correction'])} correction at alpha = "
        f"{s['alpha']:g}. Shown: the reference (ties = {ref['ties']}, queries = "
        f"{ref['queries']}, rel >= {ref['rel']}"
        + (f", empty_target = {ref['empty_target']}" if "empty_target" in ref else "")
        + ") and each convention that changes one option (a change of the empty-target "
        "policy together with the threshold at which it matters): Kendall's tau between "
        "its system order and the reference's, the significant pairs, the pairs whose "
        "order flips, the significant pairs lost and "
        "gained, and the largest change of a system's mean. Over all combinations: "
        + "; ".join(totals) + ".")
    return header, rows, "ll" + "r" * 6, caption


def _estimation_rows(data):
    est = data.estimation
    if est is None:
        return None
    margin = (data.settings.get("estimation") or {}).get("margin")
    cl = data.settings["comparison"]["confidence_level"]
    alpha = data.settings["comparison"]["alpha"]
    rows = []
    for r in est.itertuples(index=False):
        row = [r.measure, r.a, r.b, fixed(r.difference),
               f"{fixed(r.hl_estimate)} {interval_cell(r.hl_low, r.hl_high)}",
               f"{fixed(r.d_z, 2)} {interval_cell(r.d_z_low, r.d_z_high, 2)}",
               f"{fixed(r.prob_superiority, 3)} "
               f"{interval_cell(r.ps_low, r.ps_high, 3)}"]
        if margin is not None:
            row += [pvalue_text(r.tost_pvalue), "yes" if r.tost_pvalue <= alpha else "no"]
        rows.append(row)
    header = ["measure", "a", "b", "a - b", f"HL shift [{cl:.0%} CI]",
              f"d_z [{cl:.0%} CI]", f"P(a > b) [{cl:.0%} CI]"]
    methods = sorted(set(est["hl_method"]) - {"none"})
    lowered = est["hl_level"].dropna()
    low_note = (f" Where R would lower the level of the Hodges-Lehmann interval (not "
                f"attainable with so few distinct differences), it is lowered here too "
                f"(lowest: {lowered.min():.3f})." if (lowered < cl - 1e-12).any() else "")
    caption = (
        "How large is each difference? For every pair: the mean difference a - b; the "
        "Hodges-Lehmann estimate of the shift (the median of the Walsh averages of the "
        "per-query differences) with the interval of shifts the Wilcoxon signed-rank "
        f"test does not reject ({' and '.join(methods)} method, as R's "
        "wilcox.test(paired = TRUE, conf.int = TRUE), which drops the queries where the "
        "systems tie: for RR, with many tied queries, the shift is that of the queries "
        "that differ, larger than the mean difference); d_z (mean difference / sd of the "
        "differences) with its interval from the noncentral t distribution (Steiger and "
        "Fouladi 1997); and the probability that a beats b on a query (ties count one "
        f"half) with its BCa bootstrap interval (B = "
        f"{data.settings['comparison']['n_resamples']}, seed = {data.settings['seed']})."
        + low_note)
    if margin is not None:
        n_eq = int((est["tost_pvalue"] <= alpha).sum())
        header += [f"TOST p (margin {margin:g})", "equivalent"]
        caption += (
            f" Equivalence: two one-sided paired t tests (TOST, Schuirmann 1987; "
            f"statsmodels' ttost_paired) of -{margin:g} < mean(a - b) < {margin:g}; "
            f"'equivalent' at alpha = {alpha:g}, not corrected for the number of pairs. "
            f"{n_eq} of {len(est)} pairs are shown equivalent; a pair that is neither "
            "significantly different nor equivalent is simply undecided.")
    else:
        caption += (" No equivalence margin was given (equivalence_margin / --margin), "
                    "so no equivalence test: the package has no default margin, since "
                    "what difference is negligible depends on the measure and the use.")
    return header, rows, "lll" + "r" * (len(header) - 3), caption


def _mixed_rows(data):
    mx = data.mixed
    if mx is None:
        return None
    cl = data.settings["comparison"]["confidence_level"]
    rows = [[r.measure, r.a, r.b, fixed(r.difference), fixed(r.se_mixed),
             interval_cell(r.low_mixed, r.high_mixed), pvalue_text(r.pvalue_mixed),
             fixed(r.se_anova), interval_cell(r.low_anova, r.high_anova),
             pvalue_text(r.pvalue_tukey)] for r in mx.itertuples(index=False)]
    header = ["measure", "a", "b", "a - b (model)", "se (model)",
              f"{cl:.0%} CI (model)", "p (model)", "se (ANOVA)", f"{cl:.0%} CI (ANOVA)",
              "p (Tukey HSD)"]
    parts = []
    for m, g in mx.groupby("measure", sort=False):
        g0 = g.iloc[0]
        se_gap = float((g["se_mixed"] / g["se_anova"] - 1).abs().max())
        parts.append(
            f"{m}: query variance {g0.query_variance:.4f}, residual variance "
            f"{g0.residual_variance:.4f} against the ANOVA's V_E "
            f"{g0.anova_residual_variance:.4f} ({int(g0.df_anova)} df), standard errors "
            f"within {se_gap:.1e} of each other"
            + ("" if bool(g0.converged) else " (the REML fit did not converge)"))
    caption = (
        "A model instead of the tests: the linear mixed model score = system effect + "
        "query effect + error, with random query effects (REML, statsmodels' MixedLM; "
        "Carterette 2015), against the two-way ANOVA without replication. For every pair: "
        f"the model's difference with its Wald standard error, {cl:.0%} interval and "
        "p-value (not adjusted), and the ANOVA's standard error sqrt(2 V_E / n), its t "
        "interval ((n - 1)(k - 1) degrees of freedom, not adjusted) and Tukey's HSD "
        "p-value (adjusted over the pairs). On a complete table whose queries differ in "
        "difficulty (query variance above 0) the two agree: the same differences and "
        "standard errors, only the quantile differs (normal against t). They part when "
        "the query variance is estimated at 0 or when queries are missing for some "
        "system (the model uses them, the ANOVA cannot). " + "; ".join(parts) + ".")
    return header, rows, "lll" + "r" * 7, caption


def _segments_rows(data):
    seg = data.segments
    if seg is None:
        return None
    rows = []
    for r in seg.itertuples(index=False):
        rows.append([str(r.measure), str(r.segment), str(int(r.n_queries)), str(r.a),
                     str(r.b), fixed(r.mean_a), fixed(r.mean_b), fixed(r.difference),
                     interval_cell(r.ci_low, r.ci_high), fixed(r.pvalue),
                     fixed(r.pvalue_adjusted),
                     "--" if pd.isna(r.reject) else ("yes" if bool(r.reject) else "no")])
    header = ["measure", "segment", "queries", "a", "b", "mean a", "mean b", "a - b",
              "interval", "p", "p adjusted", "significant"]
    s = data.settings["segments"]
    cs = data.settings["comparison"]
    caption = (
        f"Segments ({s['description']}; {len(s['segments'])} segments: "
        f"{', '.join(map(str, s['segments']))}). For each measure, segment and pair: "
        f"the {test_label(cs['test'])} within the segment, the p-values adjusted across "
        f"the segments of the pair ({correction_label(s['segment_correction'])}), "
        f"significant at alpha = {cs['alpha']:g}; seed = {data.settings['seed']}.")
    return header, rows, "ll" + "r" + "ll" + "r" * 6 + "l", caption


def interval_phrase(method, confidence_level: float) -> str:
    """How an interval was computed, in words (for captions): its registry label, for a
    step-down compatible interval what its open end means, and the coverage mrrstats
    measured for it at that level (:func:`~mrrstats.stats.coverage.measured_coverage_note`)."""
    name = interval_label(method)
    measured = measured_coverage_note(method, confidence_level)
    if measured:
        name += f"; {measured}"
    if str(method).split("(")[0] in _COMPATIBLE:
        name += ("; a rejected pair's interval is one-sided, from 0, so that 0 lies outside "
                 "an interval exactly when the pair is rejected")
    return name
