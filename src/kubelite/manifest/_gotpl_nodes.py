"""The parse tree of a go-template; each node prints back as Go's String() does."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kubelite.manifest._govalues import go_quote


@dataclass
class Node:
    pos: int


@dataclass
class Text(Node):
    text: str

    def __str__(self) -> str:
        return go_quote(self.text)


@dataclass
class Field(Node):
    idents: list

    def __str__(self) -> str:
        return "".join("." + i for i in self.idents)


@dataclass
class Variable(Node):
    idents: list

    def __str__(self) -> str:
        return ".".join(self.idents)


@dataclass
class Chain(Node):
    node: Any
    fields: list = field(default_factory=list)

    def __str__(self) -> str:
        base = f"({self.node})" if isinstance(self.node, Pipe) else str(self.node)
        return base + "".join("." + f for f in self.fields)


@dataclass
class Identifier(Node):
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass
class Dot(Node):
    def __str__(self) -> str:
        return "."


@dataclass
class Nil(Node):
    def __str__(self) -> str:
        return "nil"


@dataclass
class Bool(Node):
    value: bool

    def __str__(self) -> str:
        return "true" if self.value else "false"


@dataclass
class Number(Node):
    text: str
    value: Any  # int or float, as the ideal constant evaluates

    def __str__(self) -> str:
        return self.text


@dataclass
class String(Node):
    quoted: str
    text: str

    def __str__(self) -> str:
        return self.quoted


@dataclass
class Command(Node):
    args: list = field(default_factory=list)

    def __str__(self) -> str:
        return " ".join(f"({a})" if isinstance(a, Pipe) else str(a) for a in self.args)


@dataclass
class Pipe(Node):
    decl: list = field(default_factory=list)
    is_assign: bool = False
    cmds: list = field(default_factory=list)

    def __str__(self) -> str:
        text = ""
        if self.decl:
            text = ", ".join(str(v) for v in self.decl) + (" = " if self.is_assign else " := ")
        return text + " | ".join(str(c) for c in self.cmds)


@dataclass
class Action(Node):
    pipe: Pipe

    def __str__(self) -> str:
        return "{{" + str(self.pipe) + "}}"


@dataclass
class ListNode(Node):
    nodes: list = field(default_factory=list)

    def __str__(self) -> str:
        return "".join(str(n) for n in self.nodes)


@dataclass
class Branch(Node):
    kind: str  # if, with, range
    pipe: Pipe
    body: ListNode
    orelse: ListNode | None

    def __str__(self) -> str:
        text = "{{" + self.kind + " " + str(self.pipe) + "}}" + str(self.body)
        if self.orelse is not None:
            text += "{{else}}" + str(self.orelse)
        return text + "{{end}}"


@dataclass
class Jump(Node):
    kind: str  # break, continue

    def __str__(self) -> str:
        return "{{" + self.kind + "}}"


@dataclass
class Invoke(Node):
    name: str
    pipe: Pipe | None

    def __str__(self) -> str:
        return "{{template " + go_quote(self.name) + (" " + str(self.pipe) if self.pipe else "") + "}}"


@dataclass
class _End(Node):
    def __str__(self) -> str:
        return "{{end}}"


@dataclass
class _Else(Node):
    def __str__(self) -> str:
        return "{{else}}"
