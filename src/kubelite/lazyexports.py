"""A package's names loaded from their submodules on first use (PEP 562), so that importing one
submodule, or the package for one name, does not import every other."""
from __future__ import annotations


def exports(package: str, homes: dict[str, str], namespace: dict):
    """The package's __getattr__ and __dir__: `homes` maps each exported name to the submodule
    that defines it; a name once loaded is kept in the package's `namespace` (its globals())."""

    def __getattr__(name: str):
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        import importlib

        value = getattr(importlib.import_module(f"{package}.{home}"), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(homes))

    return __getattr__, __dir__
