"""PersistentVolumeClaim and StorageClass validation."""

from __future__ import annotations

from kubelite.server.admission import field as F
from kubelite.quantity import QuantityError, quantity_value
from kubelite.server.admission.field import Path
from kubelite.server.admission.validation_common import Causes, _map
from kubelite.server.admission.validation_pods import _quantity_text


def _pvc_spec(spec: dict, path: Path) -> Causes:
    errs: Causes = []
    if not spec.get("accessModes"):
        errs.append(F.required(path.child("accessModes"), "at least 1 access mode is required"))
    requests = _map(_map(spec.get("resources")).get("requests"))
    if "storage" not in requests:
        errs.append(F.required(path.child("resources").key("storage"), ""))
    else:
        try:
            if quantity_value(requests["storage"]) <= 0:
                errs.append(
                    F.invalid(path.child("resources").key("storage"), _quantity_text(requests["storage"]),
                              "must be greater than zero")
                )
        except QuantityError:
            pass
    return errs


def _pvc(obj: dict) -> Causes:
    return _pvc_spec(_map(obj.get("spec")), Path("spec"))


def _storage_class(obj: dict) -> Causes:
    if not obj.get("provisioner"):
        return [F.required(Path("provisioner"), "")]
    return []
