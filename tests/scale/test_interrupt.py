"""``mrrstats evaluate --engine stream`` interrupted while it partitions a run into buckets
or evaluates them: one line on stderr, exit code 130/143, and no bucket left in the
temporary folder (after a SIGKILL: once the next command has started).

The command line runs in a child process with smaller pieces and buckets than the
defaults (``BLOCK_BYTES``, ``BUCKET_BYTES``), so that a run of a few MB goes through
many pieces and buckets; the signal is sent when the buckets are seen on disk.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

import mrrstats

from ..interrupting import ROOT, finish, handlers_installed, roots, wait_for

pytestmark = pytest.mark.slow

_CHILD = textwrap.dedent("""
    import sys
    from mrrstats.cli import main
    from mrrstats.scale import stream
    stream.BLOCK_BYTES = 1 << 18
    stream.BUCKET_BYTES = 1 << 20
    sys.exit(main(sys.argv[1:]))
""")


@pytest.fixture(scope="module")
def big_run(tmp_path_factory):
    """A run of every CAsT 2021 query with 1,500 documents each (about 8 MB), the queries'
    lines interleaved: a run sorted by query is evaluated piece by piece, without buckets."""
    queries = [str(q) for q in mrrstats.read_qrels(mrrstats.datasets.cast2021().qrels).query_ids]
    path = tmp_path_factory.mktemp("run") / "big.run"
    with open(path, "w", encoding="utf-8") as fh:
        for d in range(1500):
            fh.write("".join(f"{q} Q0 doc{d} {d + 1} {2000 - d * 0.5:.1f} big\n" for q in queries))
    return path


def _start(argv, tmp):
    env = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmp), CI="1")
    return subprocess.Popen(
        [sys.executable, "-c", _CHILD, *argv],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _buckets(tmp):
    return list(tmp.glob("mrrstats-run-*/stream-*/bucket-*.arrow"))


@pytest.mark.parametrize(
    "sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL], ids=["SIGINT", "SIGTERM", "SIGKILL"]
)
@pytest.mark.parametrize("event", ["partition", "evaluate"])
def test_interrupted_stream_leaves_no_bucket(big_run, event, sig, tmp_path):
    qrels = str(mrrstats.datasets.cast2021().qrels)
    proc = _start(["evaluate", qrels, str(big_run), "--engine", "stream"], tmp_path)
    assert wait_for(lambda: handlers_installed(proc.pid), proc)
    seen = {"most": 0}

    def moment():
        n = len(_buckets(tmp_path))
        seen["most"] = max(seen["most"], n)
        if event == "partition":
            return n >= 2  # pieces partitioned, buckets being written
        return 0 < n < seen["most"]  # buckets being read back, evaluated and removed

    if not wait_for(moment, proc, step=0.002):
        pytest.fail(f"the evaluation ended before the event {event!r}: {finish(proc)}")
    proc.send_signal(sig)
    rc, _, err = finish(proc)
    if sig == signal.SIGKILL:
        assert (rc, err) == (-signal.SIGKILL, "")
        assert _buckets(tmp_path)  # a killed process cannot clean up ...
        nxt = _start(["evaluate", "--example", "-m", "RR"], tmp_path)  # ... the next one does
        assert finish(nxt)[0] == 0
    else:
        assert (rc, err) == (128 + sig, "mrrstats: interrupted\n")
    assert roots(tmp_path) == []
    assert list(tmp_path.iterdir()) == []
