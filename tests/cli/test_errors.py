"""How a command ends (mrrstats.cli.errors): one exit code and at most one line on stderr."""

from __future__ import annotations

import gzip
import signal
import zlib

import pytest

from mrrstats.cli import errors, main, signals
from mrrstats.errors import InputError, ParameterError, ResourceError


@pytest.mark.parametrize(
    ("exc", "code", "text"),
    [
        (InputError("no result lines", source="run.txt", line=3), 2, "run.txt, line 3"),
        (ParameterError("`n_resamples` must be >= 1, got 0"), 2, "--n-resamples must be"),
        (ResourceError("needs 3 TB"), 2, "needs 3 TB"),
        (ValueError("bad value"), 2, "bad value"),
        (FileNotFoundError(2, "No such file or directory", "x.run"), 2, "x.run: No such file"),
        (
            UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"),
            2,
            "not UTF-8 text",
        ),
        (EOFError("Compressed file ended"), 2, "corrupt or truncated gzip"),
        (zlib.error("invalid distance"), 2, "corrupt or truncated gzip"),
        (gzip.BadGzipFile("Not a gzipped file"), 2, "Not a gzipped file"),
        (KeyError("rank"), 1, "internal error: KeyError: 'rank' (a bug in mrrstats"),
        (BrokenPipeError(), 0, None),
        (KeyboardInterrupt(), 130, "mrrstats: interrupted"),
    ],
)
def test_outcome(exc, code, text):
    signals.reset()
    got_code, line = errors.outcome(exc, {"n_resamples": "--n-resamples"})
    assert got_code == code
    if text is None:
        assert line is None
    else:
        assert text in line and "\n" not in line


def test_an_interruption_wins_over_the_error_it_caused():
    signals.reset()
    signals._received.append(signal.SIGTERM)
    try:
        assert errors.outcome(AssertionError()) == (143, "mrrstats: interrupted")
    finally:
        signals.reset()


def test_option_errors_are_one_line(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["compare", "--example", "--alpha", "x"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err == (
        "mrrstats compare: error: argument --alpha: invalid float value: 'x' "
        "(see 'mrrstats compare --help')\n"
    )


def test_internal_error_is_one_line_unless_asked(monkeypatch, capsys):
    from mrrstats.cli import evaluate

    def broken(args):
        raise KeyError("oops")

    monkeypatch.setattr(evaluate, "run", broken)
    assert main(["evaluate", "--example"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error: KeyError" in err
    monkeypatch.setenv("MRRSTATS_TRACEBACK", "1")
    assert main(["evaluate", "--example"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" in err and err.rstrip().splitlines()[-1].startswith("mrrstats: internal")


def test_main_restores_the_signal_handlers():
    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    with pytest.raises(SystemExit):
        main(["--version"])
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == before


def test_a_second_signal_during_the_cleanup_is_only_recorded():
    signals.reset()
    previous = signals.install()
    try:
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGTERM)
        signal.raise_signal(signal.SIGINT)  # within the grace period: no second interrupt
        assert signals.received() == signal.SIGTERM and signals.exit_code() == 143
    finally:
        signals.restore(previous)
        signals.reset()
