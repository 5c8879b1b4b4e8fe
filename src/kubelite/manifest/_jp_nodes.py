"""The parse tree of a JSONPath template."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class _List:
    nodes: list = field(default_factory=list)


@dataclass
class _Text:
    text: str


@dataclass
class _Field:
    name: str


@dataclass
class _Identifier:
    name: str


@dataclass
class _Param:
    value: int = 0
    known: bool = False
    derived: bool = False


@dataclass
class _Array:
    params: tuple


@dataclass
class _Filter:
    left: _List
    right: _List
    operator: str


@dataclass
class _Int:
    value: int


@dataclass
class _Float:
    value: float


@dataclass
class _Bool:
    value: bool


class _Wildcard:
    pass


class _Recursive:
    pass


@dataclass
class _Union:
    branches: list
