"""Explanations: pair features, training-pair sampling, the DESPITE/BECAUSE search, metrics,
baselines, and blocked-time / straggler analysis."""
