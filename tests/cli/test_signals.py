"""SIGINT and SIGTERM end a command with one line, "mrrstats: interrupted", and exit code
130 or 143, whatever it was doing (mrrstats.cli.signals); here during a long resampling
(the report and the stream engine: tests/report/test_interrupt.py and
tests/scale/test_interrupt.py)."""

from __future__ import annotations

import os
import signal
import sys
import time

import numpy as np
import pytest

import mrrstats
from mrrstats.cli import signals

from ..interrupting import finish, handlers_installed, roots, start, wait_for

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
