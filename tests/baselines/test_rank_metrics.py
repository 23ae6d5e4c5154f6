"""PyKEEN's rank-based metrics (baselines.rank_metrics, LinkPredictionRanks.summary/metric)
against PyKEEN itself, and against reference values PyKEEN computed (for machines without it).

The real ranks: the bundled Nations graph (TimDettmers/ConvE, mrrstats.datasets.kg_graph),
both sides (``kg_filter(side="both")``, PyKEEN's "both"), filtered, scored by tail/head
popularity per relation in the training triples (many ties: realistic ranks end in .5).
"""

from __future__ import annotations

import numpy as np
import pytest

from mrrstats import LinkPredictionRanks, kg_filter, ranks_from_scores
from mrrstats.baselines.rank_metrics import RANK_METRIC_SYNONYMS, rank_metrics, resolve_rank_metric
from mrrstats.datasets import kg_graph
from mrrstats.errors import ParameterError
from tests.conftest import record_conformance

KS = (1, 3, 5, 10)


def nations_both_ranks() -> LinkPredictionRanks:
    g = kg_graph("nations")
    tail_pop = np.zeros((g.n_relations, g.n_entities))
    head_pop = np.zeros((g.n_relations, g.n_entities))
    np.add.at(tail_pop, (g.train[:, 1], g.train[:, 2]), 1.0)
    np.add.at(head_pop, (g.train[:, 1], g.train[:, 0]), 1.0)
    f = kg_filter(g.train, g.valid, g.test, side="both")
    scores = np.where(
        (f.sides == "head")[:, None], head_pop[f.queries[:, 1]], tail_pop[f.queries[:, 1]]
    )
    return ranks_from_scores(scores, f.true_index, exclude=f.exclude)


def pykeen_reference(r: LinkPredictionRanks, ks=KS) -> dict:
    """Every metric of pykeen.metrics.ranking on the realistic ranks, with its closed-form
    expectation and variance where PyKEEN has them (the code that made REFERENCE)."""
    from pykeen.metrics.ranking import (
        AdjustedHitsAtK,
        HitsAtK,
        ZHitsAtK,
        rank_based_metric_resolver,
    )

    prefix = {HitsAtK: "hits_at_", AdjustedHitsAtK: "adjusted_hits_at_", ZHitsAtK: "z_hits_at_"}
    out = {}
    ranks, n = r.realistic, r.n_candidates
    for cls in rank_based_metric_resolver:
        for k in ks if cls in prefix else (None,):
            m = cls(k=k) if cls in prefix else cls()
            key = prefix[cls] + str(k) if cls in prefix else m.key
            out[key] = float(m(ranks, n))
            if getattr(cls, "closed_expectation", False):
                out["expected_" + key] = float(m.expected_value(num_candidates=n))
            base = getattr(m, "base", m)
            if getattr(base, "closed_variance", False):
                out["variance_" + key] = float(m.variance(num_candidates=n))
    return out


# pykeen 1.11.1: print(pykeen_reference(nations_both_ranks())) (402 ranks, 161 tied)
REFERENCE = {
    "adjusted_arithmetic_mean_rank": 0.6908333333333334,
    "adjusted_arithmetic_mean_rank_index": 0.398068669527897,
    "adjusted_geometric_mean_rank_index": 0.47632730836679227,
    "adjusted_hits_at_1": 0.14280960899970954,
    "adjusted_hits_at_10": 0.4375219498489855,
    "adjusted_hits_at_3": 0.45102056000460744,
    "adjusted_hits_at_5": 0.41856181230929224,
    "adjusted_inverse_harmonic_mean_rank": 0.2688475690200588,
    "arithmetic_mean_rank": 3.093283582089552,
    "count": 402.0,
    "expected_adjusted_arithmetic_mean_rank": 1.0,
    "expected_adjusted_arithmetic_mean_rank_index": 0.0,
    "expected_adjusted_geometric_mean_rank_index": 0.0,
    "expected_adjusted_hits_at_1": 0.0,
    "expected_adjusted_hits_at_10": 0.0,
    "expected_adjusted_hits_at_3": 0.0,
    "expected_adjusted_hits_at_5": 0.0,
    "expected_adjusted_inverse_harmonic_mean_rank": 0.0,
    "expected_arithmetic_mean_rank": 4.477611940298507,
    "expected_geometric_mean_rank": 3.4688787654428794,
    "expected_hits_at_1": 0.1671274482841647,
    "expected_hits_at_10": 0.9469299357359059,
    "expected_hits_at_3": 0.46531269311120055,
    "expected_hits_at_5": 0.6791281203594636,
    "expected_inverse_harmonic_mean_rank": 0.3844414082699486,
    "expected_z_arithmetic_mean_rank": 0.0,
    "expected_z_geometric_mean_rank": 0.0,
    "expected_z_hits_at_1": 0.0,
    "expected_z_hits_at_10": 0.0,
    "expected_z_hits_at_3": 0.0,
    "expected_z_hits_at_5": 0.0,
    "expected_z_inverse_harmonic_mean_rank": 0.0,
    "geometric_mean_rank": 2.2928843884155437,
    "harmonic_mean_rank": 1.8184038643175156,
    "hits_at_1": 0.2860696517412935,
    "hits_at_10": 0.9701492537313433,
    "hits_at_3": 0.7064676616915423,
    "hits_at_5": 0.8134328358208955,
    "inverse_arithmetic_mean_rank": 0.3232810615199035,
    "inverse_geometric_mean_rank": 0.4361318891839252,
    "inverse_harmonic_mean_rank": 0.5499328392459838,
    "inverse_median_rank": 0.5,
    "median_absolute_deviation": 1.482602218505602,
    "median_rank": 2.0,
    "standard_deviation": 2.6692704323418104,
    "variance": 7.125004640974234,
    "variance_adjusted_arithmetic_mean_rank": 0.0007695987654320989,
    "variance_adjusted_arithmetic_mean_rank_index": 0.0012758365210058928,
    "variance_adjusted_geometric_mean_rank_index": 0.001975638007404132,
    "variance_adjusted_hits_at_1": 0.00045378901985684356,
    "variance_adjusted_hits_at_10": 0.036744246029188875,
    "variance_adjusted_hits_at_3": 0.0016551598464132184,
    "variance_adjusted_hits_at_5": 0.003987618163128549,
    "variance_adjusted_inverse_harmonic_mean_rank": 0.00047815762654705956,
    "variance_arithmetic_mean_rank": 0.01542969233434816,
    "variance_geometric_mean_rank": 0.012042229544263705,
    "variance_hits_at_1": 0.0003147828640735353,
    "variance_hits_at_10": 0.00010348766008065499,
    "variance_hits_at_3": 0.00047319450279851465,
    "variance_hits_at_5": 0.00041056023396646754,
    "variance_inverse_harmonic_mean_rank": 0.00018117984421965732,
    "variance_z_arithmetic_mean_rank": 1.0,
    "variance_z_geometric_mean_rank": 1.0,
    "variance_z_hits_at_1": 1.0,
    "variance_z_hits_at_10": 1.0,
    "variance_z_hits_at_3": 1.0,
    "variance_z_hits_at_5": 1.0,
    "variance_z_inverse_harmonic_mean_rank": 1.0,
    "z_arithmetic_mean_rank": 11.144497275820925,
    "z_geometric_mean_rank": 10.716471036613768,
    "z_hits_at_1": 6.703944935899457,
    "z_hits_at_10": 2.282470513169727,
    "z_hits_at_3": 11.086038152734087,
    "z_hits_at_5": 6.628310125424683,
    "z_inverse_harmonic_mean_rank": 12.29477457340369,
}


def test_nations_ranks_are_both_sides_with_ties():
    r = nations_both_ranks()
    g = kg_graph("nations")
    assert len(r) == 2 * g.test.shape[0] == 402
    assert int(np.sum(r.pessimistic > r.optimistic)) == 161


def test_summary_equals_pykeen_reference():
    """Without PyKEEN: the values PyKEEN computed on these ranks (REFERENCE)."""
    s = nations_both_ranks().summary(ks=KS)
    for key, want in REFERENCE.items():
        assert s[key] == pytest.approx(want, rel=1e-9, abs=1e-12), key
    record_conformance("pykeen reference values (Nations, both sides)", len(REFERENCE))


def test_reference_is_pykeens():
    pytest.importorskip("pykeen")
    got = pykeen_reference(nations_both_ranks())
    assert got.keys() == REFERENCE.keys()
    for key, want in REFERENCE.items():
        assert got[key] == pytest.approx(want, rel=1e-9, abs=1e-12), key


def test_metric_classes_of_pykeen_on_random_ranks():
    """PyKEEN's classes on ranks of every kind: optimistic, pessimistic, realistic (.5)."""
    pytest.importorskip("pykeen")
    rng = np.random.default_rng(7)
    n = rng.integers(1, 3000, 500)
    o = np.array([rng.integers(1, k + 1) for k in n])
    p = np.minimum(o + rng.integers(0, 3, o.size), n)
    r = LinkPredictionRanks(o, p, n)
    for ties in ("optimistic", "pessimistic", "realistic"):
        ref = pykeen_reference(LinkPredictionRanks.from_ranks(r.rank(ties), n_candidates=n))
        s = r.summary(ks=KS, ties=ties)
        for key, want in ref.items():
            assert s[key] == pytest.approx(want, rel=1e-8, abs=1e-12), (ties, key)
        record_conformance("pykeen metric classes (random ranks)", len(ref))


def test_both_sides_equal_pykeens_filtered_evaluator():
    """PyKEEN's own evaluation of a PyKEEN model (filtered, both sides, every rank type)
    equals kg_filter(side="both") + ranks_from_scores + summary() on the model's scores."""
    pytest.importorskip("pykeen")
    import torch
    from pykeen.datasets import Nations
    from pykeen.evaluation import RankBasedEvaluator
    from pykeen.models import MarginalDistributionBaseline

    ds = Nations()  # shipped inside the pykeen wheel: no download
    model = MarginalDistributionBaseline(triples_factory=ds.training)
    model.register_buffer("_device_anchor", torch.zeros(1))  # parameter-free: a device
    train, valid, test = (t.mapped_triples for t in (ds.training, ds.validation, ds.testing))
    result = (
        RankBasedEvaluator(filtered=True)
        .evaluate(
            model,
            test,
            additional_filter_triples=[train, valid],
            batch_size=256,
            use_tqdm=False,
            device=torch.device("cpu"),
        )
        .to_flat_dict()
    )
    with torch.no_grad():
        scores = np.concatenate(
            [model.predict_h(test[:, 1:]).numpy(), model.predict_t(test[:, :2]).numpy()]
        )
    f = kg_filter(train.numpy(), valid.numpy(), test.numpy(), side="both")
    r = ranks_from_scores(scores, f.true_index, exclude=f.exclude)
    compared = 0
    for side in ("both", "head", "tail"):
        sel = slice(None) if side == "both" else f.sides == side
        part = LinkPredictionRanks(r.optimistic[sel], r.pessimistic[sel], r.n_candidates[sel])
        for ties in ("realistic", "optimistic", "pessimistic"):
            s = part.summary(ks=KS, ties=ties)
            for name, want in result.items():
                sd, rank_type, key = name.split(".")
                if (sd, rank_type) != (side, ties):
                    continue
                key = {
                    "z_hits_at_k": "z_hits_at_10",
                    "adjusted_hits_at_k": "adjusted_hits_at_10",
                }.get(key, key)
                # PyKEEN keeps ranks in float32 on the way: 1e-7 relative
                assert s[key] == pytest.approx(want, rel=1e-6, abs=1e-9), name
                compared += 1
    assert compared == len(result) == 225
    record_conformance("pykeen RankBasedEvaluator (Nations, filtered)", compared)


def test_kg_filter_both_is_head_then_tail():
    g = kg_graph("nations")
    both = kg_filter(g.train, g.valid, g.test, side="both")
    head = kg_filter(g.train, g.valid, g.test, side="head")
    tail = kg_filter(g.train, g.valid, g.test, side="tail")
    n = g.test.shape[0]
    assert both.n_queries == 2 * n and both.sides.tolist() == ["head"] * n + ["tail"] * n
    np.testing.assert_array_equal(
        both.true_index, np.concatenate([head.true_index, tail.true_index])
    )
    np.testing.assert_array_equal(both.queries, np.concatenate([g.test, g.test]))
    shifted = tail.exclude + np.array([n, 0])
    np.testing.assert_array_equal(both.exclude, np.concatenate([head.exclude, shifted]))
    assert tail.sides.tolist() == ["tail"] * n
    with pytest.raises(ParameterError, match="'both'"):
        kg_filter(g.train, g.valid, g.test, side="all")


@pytest.mark.parametrize(
    "name, key",
    [
        ("MRR", "inverse_harmonic_mean_rank"),
        ("mean_reciprocal_rank", "inverse_harmonic_mean_rank"),
        ("MR", "arithmetic_mean_rank"),
        ("AMR", "adjusted_arithmetic_mean_rank"),
        ("amri", "adjusted_arithmetic_mean_rank_index"),
        ("hits@10", "hits_at_10"),
        ("H@3", "hits_at_3"),
        ("hits_at_k", "hits_at_10"),
        ("ah@5", "adjusted_hits_at_5"),
        ("zahk", "z_hits_at_10"),
        ("z_hits_at_3", "z_hits_at_3"),
        ("zmrr", "z_inverse_harmonic_mean_rank"),
        ("zmr", "z_arithmetic_mean_rank"),
        ("gmri", "adjusted_geometric_mean_rank_index"),
        ("adjusted_mrr", "adjusted_inverse_harmonic_mean_rank"),
        ("std", "standard_deviation"),
    ],
)
def test_pykeen_names_and_synonyms(name, key):
    assert resolve_rank_metric(name) == key
    r = nations_both_ranks()
    assert r.metric(name) == r.summary(ks=(3, 5, 10))[key]


def test_every_pykeen_key_resolves_to_itself():
    for key in RANK_METRIC_SYNONYMS:
        want = key[:-1] + "10" if key.endswith("_k") else key
        assert resolve_rank_metric(key) == want


def test_metric_refusals():
    r = LinkPredictionRanks.from_ranks([1, 2, 3])
    with pytest.raises(ParameterError, match="unknown rank metric"):
        r.metric("nope")
    with pytest.raises(ParameterError, match="n_candidates"):
        r.metric("amri")
    assert r.metric("mr") == 2.0
    assert "z_hits_at_1" not in r.summary(ks=(1,))  # needs the candidate counts


def test_moments_by_hand():
    # one query, N = 4: E[r] = 2.5, V[r] = 15/12; E[1/r] = H(4)/4; Hits@1: p = 1/4
    m = rank_metrics([2], [4], ks=(1,))
    assert m["expected_arithmetic_mean_rank"] == 2.5
    assert m["variance_arithmetic_mean_rank"] == pytest.approx(15 / 12)
    h4 = 1 + 1 / 2 + 1 / 3 + 1 / 4
    assert m["expected_inverse_harmonic_mean_rank"] == pytest.approx(h4 / 4)
    assert m["variance_inverse_harmonic_mean_rank"] == pytest.approx(
        (4 * (1 + 1 / 4 + 1 / 9 + 1 / 16) - h4**2) / 16
    )
    assert m["expected_hits_at_1"] == 0.25 and m["variance_hits_at_1"] == 0.25 * 0.75
    # AMRI = 1 - (MR - 1) / (E[MR] - 1); z-MR is negated (lower ranks are better)
    assert m["adjusted_arithmetic_mean_rank_index"] == pytest.approx(1 - 1 / 1.5)
    assert m["z_arithmetic_mean_rank"] == pytest.approx(0.5 / np.sqrt(15 / 12))
    assert m["expected_geometric_mean_rank"] == pytest.approx(2.5)  # n = 1: E[r]
