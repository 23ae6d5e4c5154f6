"""Shared fixtures and settings of the test suite.

The reference data the tests read is in the repository (tests/reference_data.py,
provenance in tests/data/README.md): nothing skips for want of it.
"""

from __future__ import annotations

from hypothesis import settings

from tests.reference_data import ROOT, data_path

__all__ = ["ROOT", "data_path", "record_conformance"]

# No test depends on how fast the machine is: hypothesis has no per-example deadline
# (its default, 200 ms, fails an example on a loaded machine). No test depends on chance
# either: hypothesis draws the same examples on every run (derandomize), so a run that
# passes here passes in CI.
settings.register_profile("mrrstats", deadline=None, derandomize=True)
settings.load_profile("mrrstats")


# -- conformance bookkeeping: how many reference values were compared ---------
CONFORMANCE: dict[str, int] = {}


def record_conformance(label: str, n_values: int) -> None:
    CONFORMANCE[label] = CONFORMANCE.get(label, 0) + int(n_values)


def pytest_terminal_summary(terminalreporter):
    if CONFORMANCE:
        total = sum(CONFORMANCE.values())
        terminalreporter.write_sep("-", f"trec_eval conformance: {total} values compared")
        for label, n in sorted(CONFORMANCE.items()):
            terminalreporter.write_line(f"  {label}: {n}")


# The longest tests (10 s to a minute each) start first, and (with --maxschedchunk=1 in
# addopts) each test process takes one test at a time: the run ends with short tests on
# every process, not with one process running a long test while the others wait. Only
# the order changes; a name that no longer matches just loses its head start.
LONG_FIRST = (
    "tests/test_fuzz.py::test_every_bad_value_of_every_parameter",
    "tests/test_lazy_import.py::test_each_public_name_and_module_imports_first",
    "tests/stats/test_paired_tests.py::test_calibration_",
    "tests/test_typing.py::test_user_script_passes_mypy_strict",
    "tests/report/test_report.py::test_example_report_regenerates_byte_identical",
    "tests/agreement/test_measures.py::test_rank_correlation_pvalues_equal_scipy_exact",
    "tests/test_fuzz.py::test_drawn_values_long",
    "tests/test_fuzz.py::test_quick_profile_every_function_refuses_what_it_must",
    "tests/report/test_plots.py::test_paper_figures_quick",
    "tests/report/test_sections.py::test_report_saves_and_loads_the_new_sections",
    "tests/report/test_collections_section.py::test_example_notebook_draws_the_diagram",
    "tests/stats/test_paired_tests.py::test_bootstrap_test_default_is_calibrated",
    "tests/stats/test_paired_tests.py::test_bca_coverage_with_known_mean",
    "tests/stats/test_hierarchical.py::test_gibbs_agrees_with_an_independent_metropolis",
    "tests/stats/test_resampling.py::test_inverted_intervals_cover_a_known_mean",
    "tests/report/test_report.py::test_show_code_keeps_code_cells_in_the_page",
    "tests/report/test_segments.py::test_segments_section_in_html",
    "tests/metrics/test_peers.py::test_rag_door_equals_ranx_make_comparable",
    "tests/io/test_tokenizer.py::test_a_rising_score_is_found_at_every_row",
    "tests/test_docs.py::test_plain_python_blocks_of_the_pages_run",
    "tests/stats/test_reproducibility.py::test_equals_repro_eval_live",
)


def pytest_collection_modifyitems(config, items):
    def rank(item):
        return next((i for i, p in enumerate(LONG_FIRST) if item.nodeid.startswith(p)),
                    len(LONG_FIRST))

    items.sort(key=rank)  # stable: the rest keep pytest's order


# Not a module of tests: a user's script that tests/test_typing.py runs and type-checks
# (the doctest collection would import it, running its statistics in every test process).
collect_ignore = ["_typing/user_script.py"]
