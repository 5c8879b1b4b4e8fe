"""kubelite.record: a Record's __init__ compiled for its fields once the class is hot behaves as
the generic one did, errors included, word for word."""
from __future__ import annotations

import pytest

from kubelite import record
from kubelite.record import FrozenRecord, Record, factory, replace, uncompared


class Plain(Record):
    a: int
    b: str = "x"
    c: list = factory(list)
    d: object = uncompared(None, repr=False)


class Frozen(FrozenRecord):
    a: int
    b: int = 2


class Set(Record):  # compiled with object.__setattr__ (as for fields that are slots)
    a: int
    b: int = 0


class Wider(Plain):
    b: str = "wide"
    e: int = 5


class Own(Record):
    a: int

    def __init__(self, a):
        self._set("a", a * 10)


CALLS = [
    ((1,), {}), ((), {"a": 1}), ((1, "y"), {}), ((1, "y", [3]), {}), ((1, "y", [3], 4, 5), {}),
    ((), {}), ((1,), {"a": 2}), ((), {"b": "z"}), ((1,), {"zz": 3}), ((), {"zz": 3, "yy": 1}),
    ((1,), {"c": [1], "b": "q"}), ((), {"b": "q", "zz": 1}), ((1, 2), {"b": 3}),
]


def outcomes(cls) -> list[str]:
    out = []
    for args, kwargs in CALLS:
        try:
            out.append(repr(cls(*args, **kwargs)))
        except TypeError as err:
            out.append(f"TypeError: {err}")
    return out


def hot(cls) -> None:
    for _ in range(record._HOT):
        cls(1, 2)


@pytest.mark.parametrize("cls", [Plain, Frozen, Set, Wider])
def test_a_compiled_init_answers_every_call_as_the_generic_one(cls, monkeypatch):
    if cls is Set:
        monkeypatch.setattr(record, "_plain_attributes", lambda cls: False)
    before = outcomes(cls)
    hot(cls)
    assert getattr(cls.__dict__["__init__"], "_compiled", False)
    assert outcomes(cls) == before
    assert "TypeError: " + cls.__name__ + "() missing required argument: 'a'" in before


def test_the_messages_are_the_generic_ones():
    hot(Plain)
    with pytest.raises(TypeError, match=r"^Plain\(\) takes 4 arguments, 5 were given$"):
        Plain(1, "b", [], None, 5)
    with pytest.raises(TypeError, match=r"^Plain\(\) got multiple values for argument 'a'$"):
        Plain(1, a=2)
    with pytest.raises(TypeError, match=r"^Plain\(\) got an unexpected keyword argument 'zz'$"):
        Plain(1, zz=2)
    with pytest.raises(TypeError, match=r"^Plain\(\) missing required argument: 'a'$"):
        Plain(b="y")


def test_compiled_defaults_factories_and_equality():
    hot(Plain)
    one, two = Plain(1), Plain(1)
    assert one.c == [] and one.c is not two.c and one.b == "x" and one.d is None
    assert one == two and Plain(1, d="other") == one  # d is not compared
    assert "d=" not in repr(one)
    assert replace(one, b="z") == Plain(1, "z")


def test_a_compiled_frozen_record_stays_frozen_and_hashable():
    hot(Frozen)
    made = Frozen(1)
    with pytest.raises(AttributeError, match="cannot assign to field 'a'"):
        made.a = 3
    assert hash(made) == hash(Frozen(1, 2))


def test_a_subclass_gets_its_own_fields_and_defaults_not_its_base_s_compiled_init():
    hot(Plain)
    assert Wider(1) == Wider(1, "wide", [], None, 5)
    assert Wider(1).e == 5
    late = type("Late", (Plain,), {"__annotations__": {"f": "int"}, "f": 7})
    assert late(1).f == 7 and late(1).b == "x"


def test_an_init_of_its_own_is_kept():
    for _ in range(record._HOT + 1):
        made = Own(1)
    assert made.a == 10 and not getattr(Own.__init__, "_compiled", False)
