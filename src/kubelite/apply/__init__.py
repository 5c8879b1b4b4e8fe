"""Declarative engine: apply, diff, prune, last-applied."""
