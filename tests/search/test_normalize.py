from __future__ import annotations

import math

import pytest

from findling.search.normalize import cosine_from_distance, minmax, sigmoid


def test_minmax_hand_computed():
    assert minmax([10.0, 7.5, 5.0]) == [1.0, 0.5, 0.0]
    assert minmax([3.0]) == [1.0]
    assert minmax([2.0, 2.0]) == [1.0, 1.0]
    assert minmax([]) == []


def test_cosine_from_distance():
    assert cosine_from_distance(0.0) == 1.0
    assert cosine_from_distance(1.0) == 0.5
    assert cosine_from_distance(2.0) == 0.0


def test_sigmoid_stable():
    assert sigmoid(0.0) == 0.5
    assert sigmoid(2.0) == pytest.approx(1 / (1 + math.exp(-2)))
    assert sigmoid(-1000.0) == 0.0 and sigmoid(1000.0) == 1.0
