"""SIGINT and SIGTERM end a command with one line, "mrrstats: interrupted", and exit code
130 or 143, whatever it was doing (mrrstats.cli.signals); here during a long resampling
(the report and the stream engine: tests/report/test_interrupt.py and
tests/scale/test_interrupt.py)."""

from __future__ import annotations

import os
import signal
import time

import pytest

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
