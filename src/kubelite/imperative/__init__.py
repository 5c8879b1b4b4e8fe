"""Imperative object generators, as kubectl 1.32 builds them.

Pure functions: flags in, object dict out (``create deployment``, ``create
service ...``, ``run``, ``expose``, ``autoscale``), and the ``set`` mutations
on object dicts. Nothing here talks to a server; where kubectl needs one (the
resource mapping of ``create role``, the target object of ``expose``), the
caller passes a callable or the live object.

Generated dicts keep the field order of kubectl's typed Go structs, because
``kubectl create ... -o json`` prints typed objects in struct order (``kind``,
``apiVersion``, ``metadata``...), unlike objects read from a server, which it
prints in the order received. :func:`to_json_in_order` prints them that way;
``-o yaml`` sorts keys anyway (:func:`kubelite.manifest.to_yaml`).

Every bad flag raises :class:`ImperativeError` with kubectl's message.
"""
from .errors import ImperativeError
from .jsonorder import compact_json_in_order, to_json_in_order

__all__ = ["ImperativeError", "compact_json_in_order", "to_json_in_order"]
