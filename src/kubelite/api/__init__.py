"""The Python API (`kubelite.Cluster`, `kubelite.connect`, ...): see the kubelite package's docstring.

cluster.py  the in-process Cluster (settle, advance, snapshot/restore, serve) and connect()
client.py   Client: apply, diff, get, list, create, patch, replace, delete, watch, wait, logs
errors.py   the exceptions (NotFound, Invalid, ...), each with kubectl's message
sources.py  what apply/diff/create accept (paths, kustomizations, YAML text, dicts)
wait.py     wait's conditions (delete, create, condition=..., jsonpath=...)
serving.py  serving a Cluster over HTTPS for a `with` block
"""
