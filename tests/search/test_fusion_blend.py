from __future__ import annotations

import pytest

from findling.search.blend import blend, fusion_weight
from findling.search.fusion import RankedList, rank_bonus, weighted_rrf


def test_rrf_hand_computed_with_weights_and_bonus():
    lists = [
        RankedList("bm25 original", "bm25", 2.0, (10, 20, 30)),
        RankedList("vector original", "vector", 2.0, (20, 40)),
        RankedList("vector hyde", "vector", 1.4, (40,)),
    ]
    fused = {f.doc_id: f for f in weighted_rrf(lists, k=60)}
    assert fused[10].rrf == pytest.approx(2 / 61)
    assert fused[10].bonus == 0.05
    assert fused[20].rrf == pytest.approx(2 / 62 + 2 / 61)
    assert fused[20].bonus == 0.05  # first in the vector list
    assert fused[40].rrf == pytest.approx(2 / 62 + 1.4 / 61)
    assert fused[40].bonus == 0.05
    assert fused[30].rrf == pytest.approx(2 / 63) and fused[30].bonus == 0.02
    order = [f.doc_id for f in weighted_rrf(lists, k=60)]
    assert order == [20, 40, 10, 30]
    assert [c.list_name for c in fused[40].contributions] == ["vector original", "vector hyde"]


def test_rank_bonus_bands():
    assert [rank_bonus(r) for r in (1, 2, 3, 4, 50)] == [0.05, 0.02, 0.02, 0.0, 0.0]


def test_ties_break_by_first_appearance():
    lists = [RankedList("a", "bm25", 1.0, (1, 2)), RankedList("b", "vector", 1.0, (2, 1))]
    # both docs: 1/61 + 1/62 and a rank-1 bonus; doc 1 appeared first
    assert [f.doc_id for f in weighted_rrf(lists)] == [1, 2]
    assert [f.doc_id for f in weighted_rrf(list(reversed(lists)))] == [2, 1]


def test_empty_lists():
    assert weighted_rrf([]) == []
    assert weighted_rrf([RankedList("a", "bm25", 1.0, ())]) == []


def test_blend_bands_hand_computed():
    fusion = [1.0, 0.8, 0.6, 0.5, 0.4, 0.0]
    rerank = [0.0, 1.0, 0.0, 1.0, 0.0, 1.0]
    out = blend(fusion, rerank)
    by_index = {b.index: b for b in out}
    assert by_index[0].score == pytest.approx(0.75)
    assert by_index[1].score == pytest.approx(0.75 * 0.8 + 0.25)
    assert by_index[3].score == pytest.approx(0.60 * 0.5 + 0.40)
    assert by_index[5].score == pytest.approx(0.60 * 0.0 + 0.40)
    assert [b.index for b in out][:2] == [1, 0]


def test_blend_keeps_absolute_scores_and_eleventh_rank_band():
    # weak candidates stay weak: nothing is stretched to fill [0, 1]
    fusion = [0.1 + 0.01 * (12 - i) for i in range(12)]
    rerank = [0.05] * 12
    out = {b.index: b for b in blend(fusion, rerank)}
    assert out[0].fusion == pytest.approx(0.22) and out[11].fusion == pytest.approx(0.11)
    assert out[0].score == pytest.approx(0.75 * 0.22 + 0.25 * 0.05)
    assert max(b.score for b in out.values()) < 0.2
    assert out[10].fusion_weight == 0.40 and fusion_weight(11) == 0.40 and fusion_weight(4) == 0.60


def test_blend_rejects_mismatched_lengths():
    with pytest.raises(ValueError):
        blend([1.0], [])
