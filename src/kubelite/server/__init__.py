"""Kubernetes API semantics and storage."""
