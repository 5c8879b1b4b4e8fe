"""Kustomize: a kustomization directory -> list of objects."""
