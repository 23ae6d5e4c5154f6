"""Every command, fed bad files and bad option values, ends with exit code 2 and one line
on standard error naming the file (or the option) and the problem: no traceback, no
exit code 0 on garbage, no internal error (exit code 1).

The bad files are derived from nothing but their kind (missing, a directory, empty,
binary, gzip garbage, truncated gzip, latin-1 text, malformed lines, non-numbers) and
put, one at a time, into every file argument of every command; the bad option values
come from one table per option and go to every command that has the option. The
default run tries one command per input shape; the whole table is a slow test.
"""

from __future__ import annotations

import gzip
import random

import pytest

from mrrstats.cli import _COMMANDS, build_parser, main

from .test_examples import QUICK

pytestmark = pytest.mark.filterwarnings("ignore")

# -- bad files ----------------------------------------------------------------------


def _bad_bytes(kind: str) -> bytes | None:
    rnd = random.Random(kind)
    garbage = bytes(rnd.randrange(256) for _ in range(600))
    text = b"q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\n" * 20
    return {
        "empty": b"",
        "blank": b"\n\n  \n",
        "binary": b"\x00\x01\x02" + garbage,
        "gzip_garbage": b"\x1f\x8b\x08\x00" + garbage,
        "gzip_truncated": gzip.compress(text * 50)[:200],
        "gzip_binary": gzip.compress(b"\x00\xff" + garbage),
        "latin1": text.replace(b"d2", "d\u00e9".encode("latin-1"), 1),
        "malformed": b'a b c\n"x,y\n1 2 3 4 5 6 7 8\n\t\t\n',
        "words": b"query,sysA\nq1,high\nq2,low\n",
    }.get(kind)


FILE_KINDS = (
    "missing",
    "directory",
    "empty",
    "blank",
    "binary",
    "gzip_garbage",
    "gzip_truncated",
    "gzip_binary",
    "latin1",
    "malformed",
    "words",
)
#: The kinds tried in the default run (the slow run tries them all).
QUICK_KINDS = ("missing", "empty", "binary", "gzip_garbage", "malformed")


def make_bad_file(folder, kind: str) -> str:
    path = folder / f"bad-{kind}.txt"
    if kind == "directory":
        path.mkdir()
    elif kind != "missing":
        path.write_bytes(_bad_bytes(kind))
    return str(path)


def _good(tmp_path):
    from mrrstats import datasets

    data = datasets.cast2021()
    runs = [str(r) for r in data.runs]
    scores = str(datasets.__file__).replace("datasets.py", "data/trec7/adhoc7_rr.csv")
    return {
        "QRELS": str(data.qrels),
        "RUN1": runs[0],
        "RUN2": runs[1],
        "RUN3": runs[2],
        "RUN4": runs[3],
        "SCORES": scores,
        "OUT": str(tmp_path / "out"),
    }


FAST = ["--n-resamples", "99", "--seed", "1"]
REPORT_FAST = [*FAST, "--no-notebook", "--no-multiverse", "--quiet", "--out", "OUT"]
#: Every file argument of every command: BAD marks the one that gets the bad file.
FILE_SLOTS = {
    "evaluate": [["BAD", "RUN1"], ["QRELS", "BAD"], ["QRELS", "BAD", "--engine", "stream"]],
    "baseline": [["BAD", "RUN1", *FAST], ["QRELS", "BAD", *FAST], ["--ranks", "BAD"]],
    "agreement": [
        ["BAD", "RUN1", "RUN2", *FAST],
        ["QRELS", "RUN1", "BAD", *FAST],
        ["--scores", "BAD", "SCORES", *FAST],
    ],
    "compare": [
        ["BAD", "RUN1", "RUN2", *FAST],
        ["QRELS", "RUN1", "BAD", *FAST],
        ["--scores", "BAD", *FAST],
        ["--example", "--clusters", "BAD", *FAST],
        ["--example", "--segment-by", "BAD", *FAST],
    ],
    "report": [
        ["BAD", "RUN1", "RUN2", *REPORT_FAST],
        ["QRELS", "RUN1", "BAD", *REPORT_FAST],
        ["--scores", "BAD", *REPORT_FAST],
        ["--example", "--segment-by", "BAD", *REPORT_FAST],
        ["QRELS", "RUN1", "RUN2", "--judge", "BAD", *REPORT_FAST],
    ],
    "multiverse": [["BAD", "RUN1"], ["QRELS", "BAD"]],
    "leaderboard": [
        ["BAD", "RUN1", "RUN2", *FAST],
        ["QRELS", "RUN1", "BAD", *FAST],
        ["--scores", "BAD", *FAST],
    ],
    "estimate": [
        ["BAD", "RUN1", "RUN2", *FAST],
        ["QRELS", "RUN1", "BAD", *FAST],
        ["--scores", "BAD", "--systems", "run1", "run2", *FAST],
    ],
    "unpaired": [
        ["--a", "BAD", "RUN1", "--b", "QRELS", "RUN2", *FAST],
        ["--a", "QRELS", "BAD", "--b", "QRELS", "RUN2", *FAST],
        ["--scores", "BAD", "SCORES", "--systems", "run1", "run2", *FAST],
    ],
    "mixed": [["BAD", "RUN1", "RUN2"], ["QRELS", "RUN1", "BAD"], ["--scores", "BAD"]],
    "sampled": [["BAD", "--negatives", "20", "--candidates", "100", *FAST]],
    "ppi": [
        ["RUN1", "--judge", "BAD", "--human", "QRELS", *FAST],
        ["RUN1", "--judge", "QRELS", "--human", "BAD", *FAST],
        ["BAD", "--judge", "QRELS", "--human", "QRELS", *FAST],
        ["RUN1", "RUN2", "--judge", "QRELS", "--human", "QRELS", "--strata", "BAD", *FAST],
    ],
    "judges": [
        ["RUN1", "--judge", "BAD", "--human", "QRELS", *FAST],
        ["RUN1", "--judge", "QRELS", "--human", "BAD", *FAST],
        ["BAD", "--judge", "QRELS", "--human", "QRELS", *FAST],
    ],
    "bounds": [["BAD", "RUN1"], ["QRELS", "BAD"]],
    "replicates": [
        [
            "--scores",
            "BAD",
            "--replicates",
            "A=run1,run2",
            "--replicates",
            "B=run3,run4",
            "--method",
            "t",
        ],
        [
            "BAD",
            "RUN1",
            "RUN2",
            "RUN3",
            "RUN4",
            "--replicates",
            "A=RUN1,RUN2",
            "--replicates",
            "B=RUN3,RUN4",
            "--method",
            "t",
        ],
    ],
    "collections": [
        ["--collection", "c1=BAD", "--collection", "c2=SCORES", "--systems", "run1", "run2"]
    ],
    "critical-difference": [
        ["--scores", "BAD"],
        ["--collection", "c1=BAD", "--collection", "c2=SCORES", *FAST],
    ],
    "reproducibility": [
        ["BAD", "--original", "RUN1", "RUN2", "--reproduced", "RUN3", "RUN4", *FAST],
        ["QRELS", "--original", "RUN1", "BAD", "--reproduced", "RUN3", "RUN4", *FAST],
        ["QRELS", "--original", "RUN1", "RUN2", "--reproduced", "RUN3", "RUN4",
         "--reproduced-qrels", "BAD", *FAST],
    ],
    "bayes": [["BAD", "RUN1", "RUN2"], ["QRELS", "RUN1", "BAD"], ["--scores", "BAD"]],
    "calibrate": [
        ["BAD", "RUN1", "RUN2", "--n-simulations", "5", "--n-resamples", "9"],
        ["--scores", "BAD", "--n-simulations", "5", "--n-resamples", "9"],
    ],
}
#: One command per input shape (QRELS RUN, --scores, a label file, RANKS) in the default run.
QUICK_SLOTS = {
    ("evaluate", 0),
    ("evaluate", 1),
    ("compare", 2),
    ("compare", 4),
    ("sampled", 0),
    ("ppi", 0),
    ("collections", 0),
}


def _substitute(argv, good, bad):
    out = []
    for a in argv:
        for key, value in [("BAD", bad), *good.items()]:
            if key in a and (a == key or "=" in a or "," in a):
                a = a.replace(key, value if key == "BAD" else value)
        out.append(a)
    return out


def run_cli(argv, capsys):
    """``(exit code, stdout, stderr)`` of ``mrrstats ARGV`` run in this process."""
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse: bad option syntax or value
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def check_refused(code, err, *, names):
    """Exit code 2, one line on stderr naming one of ``names``, and no traceback."""
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert "Traceback" not in err, err
    assert code == 2, f"exit code {code}, stderr: {err!r}"
    assert len(lines) == 1, f"{len(lines)} lines on stderr: {err!r}"
    assert lines[0].startswith("mrrstats"), lines[0]
    assert any(n in lines[0] for n in names), f"{lines[0]!r} names none of {names}"


def _file_cases():
    for command, slots in FILE_SLOTS.items():
        for i in range(len(slots)):
            for kind in FILE_KINDS:
                quick = (command, i) in QUICK_SLOTS and kind in QUICK_KINDS
                yield pytest.param(
                    command,
                    i,
                    kind,
                    id=f"{command}-{i}-{kind}",
                    marks=() if quick else pytest.mark.slow,
                )


def test_every_command_has_its_file_arguments_listed():
    assert set(FILE_SLOTS) == set(_COMMANDS)


@pytest.mark.parametrize(("command", "slot", "kind"), list(_file_cases()))
def test_bad_file(command, slot, kind, tmp_path, capsys):
    bad = make_bad_file(tmp_path, kind)
    argv = _substitute(FILE_SLOTS[command][slot], _good(tmp_path), bad)
    code, _, err = run_cli([command, *argv], capsys)
    check_refused(code, err, names=[bad, tmp_path.name + "/" + f"bad-{kind}.txt"])


# -- bad option values -----------------------------------------------------------------

#: Values each option must refuse (where a command has the option).
BAD_VALUES = {
    "alpha": ["x", "-1", "0", "1", "2", "nan"],
    "confidence_level": ["x", "0", "1", "1.5", "nan"],
    "n_resamples": ["x", "0", "-5", "1.5"],
    "seed": ["x", "-1", "1.5"],
    "rel": ["x", "1.5"],
    "rels": ["x", "1.5"],
    "measure": ["BOGUS", "RR@0", "RR@x"],
    "measures": ["BOGUS", "RR@0", "RR@-1"],
    "max_depth": ["x", "0", "-1"],
    "cutoff": ["x", "0", "-1"],
    "negatives": ["x", "0", "-1"],
    "candidates": ["0", "-5", "nocolumn", "2.5"],
    "regularization": ["x", "-1", "2", "nan"],
    "margin": ["x", "-1", "0", "nan", "inf"],
    "rope": ["x", "-1", "nan", "inf"],
    "timeout": ["x", "0", "-1"],
    "workers": ["x", "0", "-5"],
    "n_simulations": ["x", "0", "-1"],
    "n_queries": ["x", "0", "-1"],
    "depth": ["x", "0", "-1"],
    "rbo_p": ["x", "0", "1", "nan"],
    "max_systems": ["x", "0", "1"],
    "differences": ["nan", "inf", "x"],
    "control": ["NOPE"],
    "column": ["NOPE"],
    "clusters": ["prefix:", "no/such/file.tsv"],
    "segment_by": ["prefix:", "no/such/file.tsv"],
    "strata": ["prefix:", "no/such/file.tsv"],
    "systems": [["NOPE", "NOPE2"]],
    "out": ["/proc/no/such/dir", "/dev/null"],
}
#: One option per command in the default run (the slow run tries the whole table).
QUICK_OPTIONS = {
    ("compare", "alpha"),
    ("sampled", "negatives"),
    ("report", "timeout"),
    ("evaluate", "max_depth"),
    ("bayes", "rope"),
    ("calibrate", "n_queries"),
}


def _option_cases():
    parser = build_parser()
    subparsers = next(a for a in parser._actions if a.dest == "command").choices
    for command in sorted(_COMMANDS):
        seen = set()
        for action in subparsers[command]._actions:
            longs = [s for s in action.option_strings if s.startswith("--")]
            if not longs or action.dest not in BAD_VALUES or action.dest in seen:
                continue
            if command == "report" and action.dest == "clusters":
                continue  # report's --clusters is a choice (auto/none): argparse's check
            seen.add(action.dest)
            for i, value in enumerate(BAD_VALUES[action.dest]):
                quick = (command, action.dest) in QUICK_OPTIONS and i < 3
                yield pytest.param(
                    command,
                    longs[0],
                    value,
                    id=f"{command}{longs[0]}={value}",
                    marks=() if quick else pytest.mark.slow,
                )


def test_bad_values_cover_every_numeric_option():
    """An option taking a number has bad values in the table (a new option is fuzzed)."""
    parser = build_parser()
    subparsers = next(a for a in parser._actions if a.dest == "command").choices
    missing = {
        (c, a.dest)
        for c, p in subparsers.items()
        for a in p._actions
        if a.type in (int, float) and a.dest not in BAD_VALUES
    }
    assert not missing, sorted(missing)


@pytest.mark.parametrize(("command", "option", "value"), list(_option_cases()))
def test_bad_option_value(command, option, value, tmp_path, capsys):
    base = ["--example", *QUICK[command]]
    if command == "report" and option != "--out":
        base += ["--out", str(tmp_path / "report"), "--quiet"]
    if command == "sampled" and option in ("--negatives", "--candidates", "--column"):
        base = ["--negatives", "20", "--candidates", "100", *QUICK[command]]
        ranks = tmp_path / "ranks.txt"
        ranks.write_text("1\n3\n2\n7\n1\n", encoding="utf-8")
        base = [str(ranks), *base]
        if option == "--candidates":
            base = [str(ranks), "--negatives", "20", *QUICK[command]]
        elif option == "--negatives":
            base = [str(ranks), "--candidates", "100", *QUICK[command]]
    values = value if isinstance(value, list) else [value]
    code, _, err = run_cli([command, *base, option, *values], capsys)
    # a measure with a bad cutoff is named by its measure ("cutoff `k` of RR must be ...")
    measure = [v.split("@")[0] for v in values if "@" in v]
    check_refused(code, err, names=[option, option.lstrip("-"), *values, *measure])
