"""The comparison's verdicts and the messages a numerical person reads."""

from __future__ import annotations

import math

import torch
from infrakata.core.grading.compare import Tolerance, compare

TOL = Tolerance(atol=1e-4, rtol=1e-4)


def test_tolerance_message_names_worst_element_values_bounds_and_counts():
    expected = torch.zeros(8, 512)
    expected[3, 17] = 0.51234
    actual = expected.clone()
    actual[3, 17] = 0.51301
    actual[5, 1] = 2e-4  # a second, smaller miss
    result = compare(actual, expected, TOL)
    assert not result.ok
    assert result.message.startswith("out[3, 17]: expected 0.51234, got 0.51301, |diff| 6.7e-04 > "
                                     "atol 1e-04 + rtol 1e-04 * |expected|; 2 of 4096 elements (0.05%) outside")
    assert result.worst_index == [3, 17] and result.mismatched == 2 and result.elements == 4096
    assert math.isclose(result.max_abs_diff, 6.7e-4, rel_tol=1e-2)


def test_within_tolerance_passes_with_numbers():
    expected = torch.linspace(0, 1, 100)
    result = compare(expected + 5e-5, expected, TOL)
    assert result.ok and result.max_abs_diff < 1e-4


def test_shape_and_dtype_mismatches_are_said_as_such():
    assert compare(torch.zeros(3, 2), torch.zeros(2, 3), TOL).message == \
        "out: shape mismatch: expected (2, 3), got (3, 2)"
    assert compare(torch.zeros(2, dtype=torch.float64), torch.zeros(2), TOL).message == \
        "out: dtype mismatch: expected float32, got float64"


def test_nan_and_inf_positions():
    expected = torch.ones(4)
    actual = torch.tensor([1.0, float("nan"), 1.0, float("inf")])
    result = compare(actual, expected, TOL)
    assert not result.ok
    assert result.message.startswith("out[1]: expected 1, got nan")
    assert "1 NaN where finite values were expected" in result.message
    assert "1 Inf where finite values were expected" in result.message
    assert compare(torch.tensor([float("nan")]), torch.tensor([float("nan")]), TOL).ok


def test_nested_paths():
    expected = (torch.zeros(1), {"m": torch.zeros(4, 20)})
    actual = (torch.zeros(1), {"m": torch.zeros(4, 20)})
    actual[1]["m"][3, 17] = 1.0
    assert compare(actual, expected, TOL).message.startswith("out[1]['m'][3, 17]: expected 0, got 1")
    assert compare((1, 2), (1, 2, 3), TOL).message == "out: expected 3 elements, got 2"
    assert compare({"a": 1}, {"a": 1, "b": 2}, TOL).message == "out: missing key 'b'"


def test_output_names_replace_positions():
    result = compare((torch.zeros(2), torch.ones(2)), (torch.zeros(2), torch.zeros(2)), TOL, names=("p", "m"))
    assert result.message.startswith("m[0]: expected 0, got 1")


def test_scalars_bools_strings_none():
    assert compare(84000000000, 84000000000, TOL).ok
    assert compare(660.0, 660, TOL).ok
    assert compare(torch.tensor(2.0), 2.0, TOL).ok  # a 0-d tensor for a number is fine
    assert compare(56000000000, 84000000000, TOL).message.startswith("out: expected 84000000000, got 56000000000")
    assert compare(None, 660.0, TOL).message == "out: expected float 660.0, got None"
    assert not compare(1, True, TOL).ok
    assert compare("ab", "ab", TOL).ok and not compare("ab", "ba", TOL).ok
    assert compare(None, None, TOL).ok
    assert compare(0, 1, Tolerance(atol=0.0, rtol=0.0)).message == "out: expected 1, got 0"


def test_integer_tensors_are_exact():
    result = compare(torch.tensor([1, 2, 4], dtype=torch.uint8), torch.tensor([1, 2, 3], dtype=torch.uint8), TOL)
    assert result.message.startswith("out[2]: expected 3, got 4 (exact uint8); 1 of 3 elements")


def test_relative_norm_rule_of_the_adamw_verifier():
    tol = Tolerance(mode="relative_norm", norm_tolerance=4e-5)
    expected = torch.ones(1000)
    assert compare(expected * (1 + 1e-6), expected, tol).ok
    result = compare(expected * (1 + 1e-3), expected, tol)
    assert not result.ok and "relative error 1.00e-03 > tolerance 4e-05" in result.message


def test_tensor_subclass_is_refused():
    class Lazy(torch.Tensor):
        pass

    result = compare(torch.zeros(2).as_subclass(Lazy), torch.zeros(2), TOL)
    assert not result.ok and "subclass (Lazy)" in result.message


def test_exact_types_refuse_a_number_for_a_tensor_and_an_int_for_a_float():
    loose, exact = Tolerance(), Tolerance(exact_types=True)
    total = torch.tensor(13.0)
    assert compare(13.0, total, loose).ok and compare(total, 13.0, loose).ok and compare(420, 420.0, loose).ok
    refused = compare(13.0, total, exact)
    assert not refused.ok and refused.message == ("out: expected a tensor of shape () float32, got float 13.0: the "
                                                  "statement fixes the type; return a tensor, e.g. "
                                                  "torch.tensor(x, dtype=torch.float32)")
    assert compare(total, 13.0, exact).message.startswith("out: expected float 13.0, got a tensor of shape () float32")
    assert compare(420, 420.0, exact).message == ("out: expected float 420.0, got int 420: the statement fixes the "
                                                  "type; return a Python float")
    assert compare(torch.tensor(13.0), total, exact).ok and compare(420.0, 420.0, exact).ok


def test_a_nan_where_a_number_was_expected_gives_no_figure_that_looks_like_a_match():
    result = compare(torch.tensor([float("nan")]), torch.tensor([0.5]), TOL)
    assert not result.ok
    assert result.message == "out[0]: expected 0.5, got nan; 1 of 1 elements (100.00%) outside; " \
                             "1 NaN where finite values were expected"
    assert result.max_abs_diff is None and result.max_rel_diff is None
    mixed = compare(torch.tensor([float("nan"), 1.5]), torch.tensor([0.5, 1.0]), TOL)
    assert "max rel 5.0e-01" in mixed.message and mixed.max_rel_diff == 0.5  # the finite miss is measured
    scalar = compare(float("nan"), 0.5, TOL)
    assert not scalar.ok and scalar.max_abs_diff is None and scalar.max_rel_diff is None  # JSON has no NaN


def test_long_sequences_of_plain_values_are_judged_as_item_by_item():
    """Equal lists pass at once; anything the item-by-item rules refuse is still refused, with its place."""
    exact = Tolerance(atol=0.0, rtol=0.0, exact_types=True)
    assert compare([0.5] * 3000, [0.5] * 3000, exact).ok
    assert compare((True, False) * 50, [True, False] * 50, exact).ok  # a tuple for a list, as before
    assert compare([math.nan, 1.0], [math.nan, 1.0], TOL).ok  # NaN where NaN is expected
    assert compare([1.0, 2.0 + 1e-5], [1.0, 2.0], TOL).ok  # within tolerance, not equal
    cases = [
        ([1, 2], [1.0, 2.0], exact, "out[0]: expected float 1.0, got int 1"),
        ([1, 1], [True, True], TOL, "out[0]: expected True, got int 1"),
        (["a", "b"], ["a", "c"], TOL, "out[1]: expected 'c', got 'b'"),
        ([0.5] * 2999 + [0.7], [0.5] * 3000, TOL, "out[2999]: expected 0.5, got 0.7"),
    ]
    for actual, expected, tolerance, words in cases:
        result = compare(actual, expected, tolerance)
        assert not result.ok and result.message.startswith(words), result.message
