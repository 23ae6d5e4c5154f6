"""One set of defaults (mrrstats.defaults), used by every function and command."""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import pkgutil

import mrrstats
from mrrstats import defaults
from mrrstats.cli import build_parser, main


def _public_functions():
    """(qualified name, function) of every function in a module's ``__all__``, once."""
    seen = {}
    for info in pkgutil.walk_packages(mrrstats.__path__, "mrrstats."):
        if info.name.startswith("mrrstats.cli"):
            continue
        try:
            mod = importlib.import_module(info.name)
        except ImportError:  # an optional dependency (dask, torch) is absent
            continue
        for name in getattr(mod, "__all__", ()):
            f = getattr(mod, name, None)
            if inspect.isfunction(f):
                seen[f"{f.__module__}.{f.__qualname__}"] = f
    return seen


def _norm(v):
    return tuple(v) if isinstance(v, list) else v


def _expected(key, param):
    if (key, param) in defaults.EXCEPTIONS:
        return defaults.EXCEPTIONS[(key, param)][0]
    return defaults.PARAMETERS[param]


def test_every_function_signature_uses_the_defaults():
    funcs = _public_functions()
    assert len(funcs) > 80
    checked, wrong = 0, []
    for key, f in funcs.items():
        for p in inspect.signature(f).parameters.values():
            if p.name not in defaults.PARAMETERS:
                continue
            exp = _expected(key, p.name)
            got = p.default
            if got is inspect.Parameter.empty:
                continue  # required: the caller states it (validators, engine internals)
            checked += 1
            if _norm(got) != _norm(exp):
                wrong.append(f"{key}({p.name}={got!r}), expected {exp!r}")
    assert not wrong, "defaults differ from mrrstats.defaults:\n" + "\n".join(wrong)
    assert checked > 100


def _subparsers():
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices


def test_every_command_uses_the_defaults():
    checked, wrong = 0, []
    for name, sp in _subparsers().items():
        key = f"mrrstats {name}"
        for action in sp._actions:
            if action.dest not in defaults.PARAMETERS:
                continue
            exp = _expected(key, action.dest)
            checked += 1
            if _norm(action.default) != _norm(exp):
                wrong.append(f"{key} --{action.dest.replace('_', '-')} default "
                             f"{action.default!r}, expected {exp!r}")
    assert not wrong, "\n".join(wrong)
    assert checked > 40


def test_every_exception_names_a_real_parameter():
    funcs = _public_functions()
    commands = _subparsers()
    for (where, param), (_, reason) in defaults.EXCEPTIONS.items():
        assert reason, (where, param)
        if where.startswith("mrrstats "):
            sp = commands[where.split(" ", 1)[1]]
            assert param in {a.dest for a in sp._actions}, (where, param)
        else:
            assert where in funcs, where
            assert param in inspect.signature(funcs[where]).parameters, (where, param)


def test_ties_resolved_the_same_way_under_msmarco(tmp_path):
    data = mrrstats.datasets.cast2021()
    ev = mrrstats.evaluate(data.qrels, data.runs[:2], "RR@10", queries="msmarco")
    assert ev.settings["ties"] == defaults.default_ties("msmarco") == "rank"
    res = mrrstats.make_report(data.qrels, data.runs[:2], out=tmp_path, measures="RR@10",
                               queries="msmarco", n_resamples=99, rng=1, notebook=False,
                               progress=False)
    settings = json.loads((res.path / "settings.json").read_text())
    assert settings["evaluation"]["ties"] == ev.settings["ties"]
    ev2 = mrrstats.evaluate(data.qrels, data.runs[:2], "RR")
    assert ev2.settings["ties"] == defaults.TIES


def test_baseline_prints_the_seed_it_used(capsys):
    data = mrrstats.datasets.cast2021()
    argv = ["baseline", str(data.qrels), str(data.runs[0]), "--method", "monte-carlo",
            "--n-resamples", "200", "--format", "json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    seed = out["seed"]
    assert isinstance(seed, int)
    assert out["random"] == defaults.RANDOM  # the documented default model, named
    # the printed seed reproduces the result
    assert main([*argv, "--seed", str(seed)]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["results"] == out["results"] and again["seed"] == seed
    assert main(argv[:-2]) == 0
    text = capsys.readouterr().out
    assert "seed=None" not in text and "seed=" in text


def test_baseline_and_report_default_to_the_same_random_model():
    sp = _subparsers()["report"]
    action = next(a for a in sp._actions if a.dest == "random")
    assert action.default == defaults.RANDOM
    # baseline: None on the command line (a ranks file has no model), RANDOM for runs
    # (test_baseline_prints_the_seed_it_used checks the JSON's "random")
    sig = inspect.signature(mrrstats.evaluation_baseline)
    assert sig.parameters["random"].default == defaults.RANDOM
    assert inspect.signature(mrrstats.make_report).parameters["random"].default == \
        defaults.RANDOM
