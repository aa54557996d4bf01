"""The metrics each benchmark reports, their estimates and paired tests, on records worked out by hand.

Hand computations (z = 1.959964, t(0.975, 2) = 4.302653):
- 3 of 4 successes: Wilson 95% [0.30064, 0.95441].
- Scores 0.2, 0.4, 0.6: mean 0.4, s = 0.2, half-width 4.302653 * 0.2 / sqrt(3) = 0.49683.
- Exact McNemar with 3 discordant pairs all one way: 2 * 0.5^3 = 0.25.
- Three tasks, each 1 apart (or 0 of 5 against 5 of 5 items): 2 of the 8 swaps reach the observed
  difference, permutation p = 0.25; every bootstrap resample keeps the difference, bootstrap p = 0.
- Rubric 4 of 5 and 3 of 5: RPR 7 / 10; resampling two tasks gives 4/5, 3/5 or 7/10, so [0.6, 0.8].
"""

from __future__ import annotations

import pytest
from episode_records import episode_record
from hydra_config import metric_settings

from res_repro.evaluation.episode import EpisodeRecord
from res_repro.evaluation.metrics import RateEstimate, pooled_rpr_with_ci
from res_repro.evaluation.statistics import (
    paired_bootstrap,
    paired_permutation_test,
    paired_ratio_bootstrap,
    pooled_ratio,
)
from res_repro.evaluation.summary import (
    BINARY_PASS,
    NATIVE_PASS,
    NATIVE_SCORE,
    PERMUTATION,
    RPR,
    TCR,
    metrics_for,
    statistics_note,
)

SETTINGS = metric_settings(threshold=0.8, tcr_fraction=0.8, confidence=0.95, n_bootstrap=500, seed=0)


def _scores(*scores: float) -> list[EpisodeRecord]:
    return [episode_record(score=score) for score in scores]


def _rubric(*passed: int, total: int = 5) -> list[EpisodeRecord]:
    return [episode_record(rubric=(True,) * k + (False,) * (total - k)) for k in passed]


def test_each_style_reports_its_metrics_under_the_papers_keys():
    assert metrics_for("terminal_bundled") == ((BINARY_PASS,), "terminal")
    assert metrics_for("claw_bundled") == ((NATIVE_PASS, NATIVE_SCORE), "claw")
    assert metrics_for("claw_eval_live") == ((NATIVE_PASS, NATIVE_SCORE), "claw")
    assert metrics_for("workspace_bundled") == ((TCR, RPR), "workspace")
    assert metrics_for("agentce") == ((NATIVE_PASS, NATIVE_SCORE), None)
    assert metrics_for("some/harbor/folder") == ((BINARY_PASS,), None)
    metrics = [BINARY_PASS, NATIVE_PASS, NATIVE_SCORE, TCR, RPR]
    assert [(m.label, m.paper_suffix) for m in metrics] == [
        ("Pass@1", "pass_at_1"),
        ("Pass@1", "pass_at_1"),
        ("Score", "score"),
        ("TCR@80", "tcr_at_80"),
        ("RPR", "rpr"),
    ]


def test_pass_rates_follow_their_styles_rule_with_a_wilson_interval():
    verdicts = [
        episode_record(score=0.1, passed=True),
        episode_record(score=0.1, passed=True),
        episode_record(score=0.95, passed=False),
        episode_record(score=0.1, passed=True),
    ]
    binary = BINARY_PASS.estimate(verdicts, SETTINGS)
    native = NATIVE_PASS.estimate(verdicts, SETTINGS)
    assert (binary.value, binary.n) == (0.75, 4)  # the verifier's verdicts
    assert (binary.low, binary.high) == (pytest.approx(0.30064, abs=1e-5), pytest.approx(0.95441, abs=1e-5))
    assert (native.value, native.n) == (0.25, 4)  # the native scores against 0.80
    assert NATIVE_PASS.estimate(verdicts, metric_settings(threshold=0.05)).value == 1.0
    confident = BINARY_PASS.estimate(verdicts, metric_settings(confidence=0.5))
    assert confident.high - confident.low < binary.high - binary.low


def test_tcr_counts_tasks_with_at_least_the_fraction_of_their_items():
    records = _rubric(4, 3, 5, 0)
    assert TCR.estimate(records, SETTINGS).value == 0.5
    assert TCR.estimate(records, metric_settings(tcr_fraction=0.6)).value == 0.75


def test_pass_rates_are_compared_by_exact_mcnemar():
    before = [
        episode_record(score=0.2, passed=False),
        episode_record(score=0.3, passed=False),
        episode_record(score=0.5, passed=False),
        episode_record(score=0.9, passed=True),
    ]
    after = [
        episode_record(score=0.9, passed=True),
        episode_record(score=0.85, passed=True),
        episode_record(score=0.8, passed=True),
        episode_record(score=0.9, passed=True),
    ]
    assert NATIVE_PASS.paired(before, after, SETTINGS) == pytest.approx(0.25)
    assert BINARY_PASS.paired(before, after, SETTINGS) == pytest.approx(0.25)
    assert NATIVE_PASS.paired(before, before, SETTINGS) == 1.0
    assert TCR.paired(_rubric(0, 0, 0, 5), _rubric(5, 5, 4, 5), SETTINGS) == pytest.approx(0.25)
    assert NATIVE_PASS.permutation is None and BINARY_PASS.permutation is None and TCR.permutation is None


def test_the_score_is_a_mean_with_a_student_t_interval():
    estimate = NATIVE_SCORE.estimate(_scores(0.2, 0.4, 0.6), SETTINGS)
    assert (estimate.value, estimate.n) == (pytest.approx(0.4), 3)
    assert estimate.low == pytest.approx(0.4 - 0.49683, abs=1e-5)
    assert estimate.high == pytest.approx(0.4 + 0.49683, abs=1e-5)
    # at 50%: t(0.75, 2 df) = 0.81650 times the standard error 0.2 / sqrt(3) = 0.11547
    half = NATIVE_SCORE.estimate(_scores(0.2, 0.4, 0.6), metric_settings(confidence=0.5))
    assert (half.low, half.high) == (
        pytest.approx(0.4 - 0.09428, abs=1e-5),
        pytest.approx(0.4 + 0.09428, abs=1e-5),
    )


def test_scores_are_compared_by_a_paired_bootstrap_and_a_permutation_test():
    low, high = _scores(0.0, 0.0, 0.0), _scores(1.0, 1.0, 1.0)
    assert NATIVE_SCORE.paired(low, high, SETTINGS) == 0.0
    assert NATIVE_SCORE.paired(high, low, SETTINGS) == 0.0
    assert NATIVE_SCORE.paired(low, low, SETTINGS) == 1.0
    assert NATIVE_SCORE.permutation is not None
    assert NATIVE_SCORE.permutation(low, high, SETTINGS) == pytest.approx(0.25)
    assert NATIVE_SCORE.permutation(low, low, SETTINGS) == 1.0


def test_a_score_bootstrap_needs_two_pairs_and_a_permutation_needs_pairs():
    assert NATIVE_SCORE.paired(_scores(0.0), _scores(1.0), SETTINGS) is None
    assert NATIVE_SCORE.paired(_scores(0.0, 0.0), _scores(1.0), SETTINGS) is None
    assert NATIVE_SCORE.paired(_scores(0.0), _scores(1.0, 1.0), SETTINGS) is None
    assert NATIVE_SCORE.paired(_scores(0.0, 0.0), _scores(1.0, 1.0), SETTINGS) == 0.0
    assert NATIVE_SCORE.permutation is not None
    assert NATIVE_SCORE.permutation([], [], SETTINGS) is None
    assert NATIVE_SCORE.permutation(_scores(0.0, 0.0), _scores(1.0), SETTINGS) is None
    assert NATIVE_SCORE.permutation(_scores(0.0), _scores(1.0), SETTINGS) == 1.0  # 2 of 2 swaps reach it


def test_rpr_pools_items_with_a_cluster_bootstrap_interval():
    estimate = RPR.estimate(_rubric(4, 3), SETTINGS)
    assert (estimate.value, estimate.n) == (pytest.approx(0.7), 2)
    assert (estimate.low, estimate.high) == (pytest.approx(0.6), pytest.approx(0.8))
    assert RPR.estimate([episode_record()], SETTINGS) == RateEstimate(0.0, 0.0, 0.0, 0)


def test_the_rpr_interval_is_drawn_with_the_settings_resamples_seed_and_confidence():
    records = _rubric(0, 1, 3, 4, 5, 2)
    drawn = RPR.estimate(records, metric_settings(confidence=0.8, n_bootstrap=50, seed=3))
    assert drawn == pooled_rpr_with_ci(records, 0.8, n_bootstrap=50, seed=3)
    assert drawn.value == pytest.approx(15 / 30)
    for other in ({"seed": 4}, {"n_bootstrap": 60}, {"confidence": 0.9}):
        settings = metric_settings(**{"confidence": 0.8, "n_bootstrap": 50, "seed": 3, **other})
        assert (RPR.estimate(records, settings).low, RPR.estimate(records, settings).high) != (
            drawn.low,
            drawn.high,
        )


def test_rpr_is_compared_by_a_paired_cluster_bootstrap_and_a_permutation_test():
    none, every = _rubric(0, 0, 0), _rubric(5, 5, 5)
    assert RPR.paired(none, every, SETTINGS) == 0.0
    assert RPR.paired(none, none, SETTINGS) == 1.0
    assert RPR.permutation is not None
    assert RPR.permutation(none, every, SETTINGS) == pytest.approx(0.25)
    assert RPR.permutation(every, none, SETTINGS) == pytest.approx(0.25)


def test_rpr_tests_need_pairs_with_items_in_every_episode():
    none, every, bare = _rubric(0, 0), _rubric(5, 5), [episode_record()]
    assert RPR.permutation is not None
    for first, second in [(none[:1], every[:1]), (none, [*every[:1], *bare]), ([*bare, *none[:1]], every)]:
        assert RPR.paired(first, second, SETTINGS) is None
    assert RPR.paired(none, every, SETTINGS) == 0.0
    for first, second in [
        ([], []),
        (none, every[:1]),
        (none, [*every[:1], *bare]),
        ([*bare, *none[:1]], every),
    ]:
        assert RPR.permutation(first, second, SETTINGS) is None
    assert RPR.permutation(none[:1], every[:1], SETTINGS) == 1.0


def test_the_note_names_each_metrics_interval_and_tests():
    assert PERMUTATION == "paired permutation (exact up to 20 differing tasks, else Monte Carlo)"
    assert statistics_note(metrics_for("claw_bundled")[0], 0.95) == (
        "Intervals at 95% and two-sided paired tests. Pass@1: Wilson interval, exact McNemar; "
        "Score: Student t interval, paired bootstrap over tasks, and beside it a paired permutation "
        "(exact up to 20 differing tasks, else Monte Carlo)."
    )
    assert statistics_note(metrics_for("workspace_bundled")[0], 0.9) == (
        "Intervals at 90% and two-sided paired tests. TCR@80: Wilson interval, exact McNemar; "
        "RPR: per-task cluster bootstrap interval, paired cluster bootstrap over tasks, and beside it a "
        "paired permutation (exact up to 20 differing tasks, else Monte Carlo)."
    )


def test_one_rubric_item_per_episode_is_enough_for_the_rpr_tests():
    one_failed, one_passed = _rubric(0, 0, 0, total=1), _rubric(1, 1, 1, total=1)
    assert RPR.paired(one_failed, one_passed, SETTINGS) == 0.0
    assert RPR.permutation is not None
    assert RPR.permutation(one_failed, one_passed, SETTINGS) == pytest.approx(0.25)


NOISY_A = [0.1 * (i % 7) for i in range(24)]  # 24 differing tasks: a permutation p by Monte Carlo
NOISY_B = [max(0.0, a + (0.05 if i % 3 else -0.09)) for i, a in enumerate(NOISY_A)]


def _settings(n: int, seed: int):
    return metric_settings(n_bootstrap=n, seed=seed, confidence=0.9)


def test_the_score_tests_use_the_runs_resamples_and_seed():
    a, b = _scores(*NOISY_A), _scores(*NOISY_B)
    scores_b = NOISY_B
    assert (
        NATIVE_SCORE.paired(a, b, _settings(200, 3))
        == paired_bootstrap(NOISY_A, scores_b, n_resamples=200, confidence=0.9, seed=3).p_value
    )
    assert NATIVE_SCORE.permutation is not None
    assert (
        NATIVE_SCORE.permutation(a, b, _settings(200, 3))
        == paired_permutation_test(NOISY_A, scores_b, n_resamples=200, seed=3).p_value
    )
    for test in (NATIVE_SCORE.paired, NATIVE_SCORE.permutation):
        assert len({test(a, b, _settings(n, seed)) for n, seed in [(200, 3), (200, 4), (201, 3)]}) == 3


def test_the_rpr_tests_use_the_pooled_ratio_and_the_runs_resamples_and_seed():
    counts_a = [(1 + i % 2, 3 + i % 2) for i in range(24)]  # every task differs: Monte Carlo permutations
    counts_b = [(p + (1 if i % 3 else -1), t) for i, (p, t) in enumerate(counts_a)]
    a, b = (
        [episode_record(rubric=(True,) * p + (False,) * (t - p)) for p, t in counts]
        for counts in (counts_a, counts_b)
    )
    assert (
        RPR.paired(a, b, _settings(200, 3))
        == paired_ratio_bootstrap(counts_a, counts_b, n_resamples=200, confidence=0.9, seed=3).p_value
    )
    assert RPR.permutation is not None
    expected = paired_permutation_test(counts_a, counts_b, statistic=pooled_ratio, n_resamples=200, seed=3)
    assert RPR.permutation(a, b, _settings(200, 3)) == expected.p_value
    for test in (RPR.paired, RPR.permutation):
        assert len({test(a, b, _settings(n, seed)) for n, seed in [(200, 3), (200, 5), (201, 3)]}) == 3


def test_the_rpr_permutation_test_swaps_pooled_items_not_mean_counts():
    def records(*counts: tuple[int, int]) -> list[EpisodeRecord]:
        return [episode_record(rubric=(True,) * k + (False,) * (n - k)) for k, n in counts]

    a, b = records((4, 6), (0, 1), (2, 5)), records((0, 2), (1, 4), (3, 4))
    # observed |4/10 - 6/12| = 0.1; of the 8 swaps of whole tasks, only swapping the second task alone or
    # the first and third (|3/7 - 7/15| = 0.038) fall under it: p = 6/8
    assert RPR.permutation is not None
    assert RPR.permutation(a, b, SETTINGS) == pytest.approx(0.75)
