"""Explanations: pair features, training-pair sampling, the DESPITE/BECAUSE search, metrics,
baselines, the evaluation harness, and blocked-time / straggler analysis."""
