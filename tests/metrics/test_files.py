"""``mrrstats evaluate QRELS RUN...`` on TREC files prints its table without DataFrames
(mrrstats/metrics/files.py): no pandas imported, and the output, warnings included,
exactly that of the path through ``mrrstats.evaluate`` (the reference: the same command
with the array path switched off)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
CAST = ROOT / "mrrstats" / "data" / "cast2021"
QRELS = str(CAST / "qrels" / "trec-cast-qrels-docs.2021.qrel.gz")
RUNS = [str(p) for p in sorted((CAST / "runs").glob("*.run.gz"))]
TE = ROOT / "tests" / "data" / "trec_eval_test"

# Runs the command line in a fresh process; "old" switches the array path off (the
# command then evaluates through mrrstats.evaluate); prints whether pandas was imported
# and whether the array path gave the text.
SCRIPT = """
import sys
import mrrstats.metrics.files as files
real, used = files.evaluate_text, []
SPY = '''
def spy(*a, **k):
    text = None if sys.argv[1] == "old" else real(*a, **k)
    used.append(text is not None)
    return text
'''
# the spy's code is named as the module's, so that a warning points where the command's
# own would (its first frame outside mrrstats: the line calling main below)
exec(compile(SPY, files.__file__, "exec"))
files.evaluate_text = spy
from mrrstats.cli import main
try:
    code = main(["evaluate", *sys.argv[2:]])
except SystemExit as e:
    code = e.code
sys.stdout.flush()
print(f"\\n@@ pandas={'pandas' in sys.modules} array_path={used} code={code}"
      f" compute={'pyarrow.compute' in sys.modules}")
"""


def _cli(mode, args):
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, mode, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    body, _, tail = done.stdout.rpartition("\n@@ ")
    return body, done.stderr, tail.strip()


CASES = [
    [QRELS, RUNS[0]],
    [
        QRELS,
        *RUNS,
        "-m",
        "RR",
        "-m",
        "RR@10",
        "-m",
        "AP",
        "-m",
        "nDCG@10",
        "-m",
        "P@10",
        "-m",
        "R@100",
        "--per-query",
    ],
    [QRELS, RUNS[1], RUNS[2], "--stat", "median", "-m", "RR", "-m", "Rank", "-m", "NumRet"],
    [QRELS, RUNS[3], "--stat", "gmean", "-m", "AP", "--max-depth", "10", "--ties", "rank"],
    [
        QRELS,
        RUNS[4],
        "--rel",
        "2",
        "--empty-target",
        "skip",
        "-m",
        "RR",
        "-m",
        "Judged@10",
        "--per-query",
    ],
    [
        QRELS,
        RUNS[0],
        "--rel",
        "3",
        "--empty-target",
        "pos",
        "-m",
        "RR",
        "-m",
        "NumRet",
        "--stat",
        "sum",
    ],
    [
        str(TE / "qrels.test"),
        str(TE / "results.test"),
        "-m",
        "bpref",
        "-m",
        "map",
        "-m",
        "ndcg_cut_10",
        "-m",
        "Rprec",
        "--per-query",
    ],
    [
        str(TE / "qrels.test"),
        str(TE / "results.trunc"),
        "-m",
        "RR",
        "-m",
        "P@5",
        "--ties",
        "expected",
    ],  # queries of the qrels missing from the run: a warning
    [str(TE / "qrels.rel_level"), str(TE / "results.test"), "-m", "RR", "--rel", "2"],
]


@pytest.mark.parametrize("args", CASES, ids=range(len(CASES)))
def test_the_array_path_prints_what_evaluate_prints_without_pandas(args):
    new_out, new_err, new_tail = _cli("new", args)
    old_out, old_err, old_tail = _cli("old", args)
    # trec_eval's test files go to the line reader (it names a bad line; it uses pandas)
    clean = "trec_eval_test" not in args[1]
    new_tail = new_tail.rpartition(" compute=")[0]
    old_tail = old_tail.rpartition(" compute=")[0]
    assert new_tail == f"pandas={not clean} array_path=[True] code=0", (new_tail, new_err)
    assert old_tail == "pandas=True array_path=[False] code=0", (old_tail, old_err)


@pytest.mark.parametrize("ties", ["trec_eval", "optimistic"])
def test_runs_the_tokenizer_reads_need_no_arrow_compute_function(ties):
    """A run the compiled tokenizer reads (every run from a few MB; here the small CAsT
    runs, MIN_BYTES lowered) and a small qrels file: the command line imports neither
    pandas nor pyarrow.compute (0.03 s of CPU), and prints what the old path prints."""
    args = [QRELS, *RUNS[:2], "-m", "RR", "-m", "nDCG@3", "--ties", ties]
    lowered = "import mrrstats.io.tokenizer as t; t.MIN_BYTES = 0\n"
    out = []
    for mode in ("new", "old"):
        done = subprocess.run([sys.executable, "-c", lowered + SCRIPT, mode, *args],
                              capture_output=True, text=True, cwd=ROOT, check=False)
        body, _, tail = done.stdout.rpartition("\n@@ ")
        out.append((body, done.stderr, tail.strip()))
    (new_out, new_err, new_tail), (old_out, old_err, old_tail) = out
    assert new_tail == "pandas=False array_path=[True] code=0 compute=False", new_err
    assert old_tail.startswith("pandas=True array_path=[False] code=0"), old_err
    assert (new_out, new_err) == (old_out, old_err)
    assert new_out == old_out
    assert new_err == old_err


def test_a_warning_goes_out_once_and_as_evaluate_words_it():
    args = [str(TE / "qrels.test"), str(TE / "results.trunc")]
    _, new_err, _ = _cli("new", args)
    _, old_err, _ = _cli("old", args)
    if "QueriesLeftOutWarning" not in old_err:  # the truncated run covers every query
        pytest.skip("results.trunc leaves no judged query out")
    assert new_err == old_err and new_err.count("QueriesLeftOutWarning") == 1


@pytest.mark.parametrize(
    "args",
    [
        [QRELS, RUNS[0], "--format", "json"],  # other formats: mrrstats.evaluate
        [QRELS, RUNS[0], "--queries", "qrels"],  # other query conventions
        [QRELS, RUNS[0], "--empty-target", "error", "--rel", "3"],  # its error's words
        [QRELS, str(TE / "results.test")],  # no query in common: the error
        [QRELS, RUNS[0], RUNS[0]],  # two runs of one name: the error
    ],
    ids=range(5),
)
def test_what_the_array_path_leaves_to_evaluate_is_printed_as_before(args):
    new_out, new_err, new_tail = _cli("new", args)
    old_out, old_err, old_tail = _cli("old", args)
    assert "array_path=[True]" not in new_tail
    assert (new_out, new_err) == (old_out, old_err)
    assert new_tail.split()[-1] == old_tail.split()[-1]  # the exit code


def test_isin_by_binary_search_equals_np_isin():
    from mrrstats.metrics.files import _isin

    rng = np.random.default_rng(0)
    for n, m in [(0, 0), (0, 5), (5, 0), (50, 30), (1000, 2000)]:
        a = rng.integers(0, 100, n).astype(str)
        b = rng.integers(0, 100, m).astype(str)
        assert _isin(a, b).tolist() == np.isin(a, b).tolist()
