"""SIGINT and SIGTERM end a command with one line, "mrrstats: interrupted", and exit code
130 or 143, whatever it was doing (mrrstats.cli.signals); here during a long resampling
(the report and the stream engine: tests/report/test_interrupt.py and
tests/scale/test_interrupt.py)."""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest

import mrrstats
from mrrstats.cli import signals

from ..interrupting import finish, handlers_installed, roots, start, wait_for
from ..reference_data import CAST_QRELS, data_path

LONG = ["compare", "--example", "--n-resamples", "50000000", "--seed", "1"]


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_ends_a_command_with_one_line(sig, code, tmp_path):
    proc = start(LONG, tmp_path)
    assert wait_for(lambda: handlers_installed(proc.pid), proc)
    time.sleep(0.5)
    proc.send_signal(sig)
    rc, out, err = finish(proc)
    assert (rc, err) == (code, "mrrstats: interrupted\n")
    assert roots(tmp_path) == []


def test_ctrl_c_on_the_terminal_reaches_the_process_group(tmp_path):
    proc = start(LONG, tmp_path, start_new_session=True)
    assert wait_for(lambda: handlers_installed(proc.pid), proc)
    time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGINT)
    rc, out, err = finish(proc)
    assert (rc, err) == (130, "mrrstats: interrupted\n")


def _received_sigint():
    """Deliver SIGINT to the installed handler as the interpreter would (it raises)."""
    with pytest.raises(KeyboardInterrupt):
        signals._on_signal(signal.SIGINT, None)


def test_a_swallowed_interruption_ends_the_resampling_at_its_next_batch():
    # a KeyboardInterrupt raised where Python only prints it (a finalizer) used to
    # leave a long resampling running to its end: the loop's ticker now ends it
    X = np.random.default_rng(0).random((30, 4))
    previous = signals.install()
    try:
        _received_sigint()
        with pytest.raises(KeyboardInterrupt):
            mrrstats.pairwise_tests(X.T, n_resamples=2000, rng=1)
    finally:
        signals.restore(previous)
        signals.reset()
    # outside the command line nothing is pending: the same call runs
    assert mrrstats.pairwise_tests(X.T, n_resamples=200, rng=1).pvalue.size == 6


class _RaisesInDel:
    def __del__(self):
        raise KeyboardInterrupt


def test_an_interruption_raised_in_a_finalizer_is_not_printed_and_not_lost(capfd):
    X = np.random.default_rng(0).random((30, 4))
    hook = sys.unraisablehook
    previous = signals.install()
    try:
        _received_sigint()
        obj = _RaisesInDel()
        del obj  # Python can only pass this one to sys.unraisablehook
        with pytest.raises(KeyboardInterrupt):  # the next resampling batch ends it
            mrrstats.pairwise_tests(X.T, n_resamples=2000, rng=1)
        assert signals.received() == signal.SIGINT
    finally:
        signals.restore(previous)
        signals.reset()
    assert "KeyboardInterrupt" not in capfd.readouterr().err
    assert sys.unraisablehook is hook


_PROBE = """
import atexit, sys, threading
atexit.register(lambda: print("atexit ran", file=sys.stderr))
class Finalized:
    def __del__(self):
        print("teardown ran", file=sys.stderr)
keep = Finalized()
if {thread}:
    stop = threading.Event()
    threading.Thread(target=stop.wait, args=(30,)).start()
    atexit.register(stop.set)
sys.argv = ["mrrstats", *{argv!r}]
from mrrstats.cli import console_main
try:
    console_main()
finally:
    if {thread}:
        stop.set()
"""


@pytest.mark.parametrize(("argv_tail", "thread", "skipped"), [
    ([], False, True),  # the array path to a text table: the teardown is skipped
    (["--format", "json"], False, False),  # through mrrstats.evaluate: a normal exit
    ([], True, False),  # another thread running: a normal exit waits for it
])
def test_evaluate_on_files_ends_without_the_interpreter_teardown(argv_tail, thread, skipped):
    """`mrrstats evaluate QRELS RUN` (the array path) ends with os._exit after the atexit
    handlers: the output and exit code are those of the in-process command, atexit
    handlers still run, and only the interpreter's teardown (here a module global's
    __del__) is left out; anything else exits normally."""
    qrels = str(data_path(*CAST_QRELS))
    run = str(sorted(data_path("cast2021", "runs").glob("*.run.gz"))[0])
    argv = ["evaluate", qrels, run, "-m", "RR", "-m", "nDCG@3", *argv_tail]
    code = _PROBE.format(thread=thread, argv=argv)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "atexit ran" in proc.stderr
    assert ("teardown ran" in proc.stderr) is not skipped
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert mrrstats.cli.main(argv) == 0
    assert proc.stdout == out.getvalue()
    # in-process, the mark is only recorded (console_main alone reads it) and each
    # command starts without it
    assert bool(signals._skip_teardown) is (skipped or thread)
    signals.reset()
    assert not signals._skip_teardown and not signals.teardown_skippable()
