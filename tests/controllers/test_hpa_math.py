"""HPA arithmetic (src/kubelite/server/controllers/hpa_math.py)."""
from fractions import Fraction

import pytest

from kubelite.server.controllers import hpa_math


def test_utilization_truncates_percent_of_requests():
    assert hpa_math.utilization([Fraction(1, 4), Fraction(1, 4)], [Fraction(1, 10)] * 2) == 250
    assert hpa_math.utilization([Fraction(1, 3)], [Fraction(1)]) == 33
    with pytest.raises(ValueError):
        hpa_math.utilization([Fraction(1)], [])


def test_ratio_within_tolerance_keeps_replicas():
    assert hpa_math.replicas_for_ratio(3, 3, Fraction(108, 100)) == 3
    assert hpa_math.replicas_for_ratio(3, 3, Fraction(92, 100)) == 3


def test_ratio_outside_tolerance_rounds_up():
    assert hpa_math.replicas_for_ratio(2, 2, Fraction(250, 50)) == 10
    assert hpa_math.replicas_for_ratio(4, 4, Fraction(1, 5)) == 1


def test_clamp_names_the_limit():
    assert hpa_math.clamp(12, 1, 5) == (5, "TooManyReplicas")
    assert hpa_math.clamp(0, 1, 5) == (1, "TooFewReplicas")
    assert hpa_math.clamp(3, 1, 5) == (3, "")


def test_scale_down_waits_for_the_window():
    history = [(0.0, 5), (100.0, 3)]
    assert hpa_math.stabilized(history, 200.0, 1) == 5
    assert hpa_math.stabilized(history, 350.0, 1) == 3
    assert hpa_math.stabilized(history, 401.0, 1) == 1
    assert hpa_math.stabilized(history, 200.0, 8) == 8
