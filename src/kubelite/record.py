"""Plain data classes for the modules every short command imports.

`@dataclass` costs a short command twice: importing dataclasses imports inspect (with ast, dis
and tokenize), and each decorated class has its methods written and compiled at every start
(a kubeconfig Connection with its 22 fields, ~1.5 ms). A `Record` subclass is declared the same
way (annotated fields, defaults, `factory(list)` for a mutable default) and gets the same
`__init__` (positional or keyword), `repr` and `==`, read from the declaration once, without
generated code.
"""
from __future__ import annotations


class factory:
    """A default built afresh for each instance (dataclasses' `field(default_factory=...)`)."""

    __slots__ = ("make",)

    def __init__(self, make):
        self.make = make


class uncompared:
    """A field left out of == and hash (dataclasses' `field(compare=False)`), and out of repr
    too with `repr=False`."""

    __slots__ = ("default", "repr")

    def __init__(self, default, repr: bool = True):
        self.default = default
        self.repr = repr


_MISSING = object()


class Record:
    __slots__ = ()
    _names: tuple[str, ...] = ()
    _defaults: dict = {}
    _compared: tuple[str, ...] = ()
    _shown: tuple[str, ...] = ()
    __hash__ = None  # mutable and compared by value, as a dataclass with eq

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        names = list(cls._names)
        defaults = dict(cls._defaults)
        uncompared_names, hidden = set(names) - set(cls._compared), set(names) - set(cls._shown)
        for name, annotation in cls.__dict__.get("__annotations__", {}).items():
            if str(annotation).startswith(("ClassVar", "typing.ClassVar")):
                continue
            if name not in names:
                names.append(name)
            value = cls.__dict__.get(name, _MISSING)
            if isinstance(value, uncompared):
                uncompared_names.add(name)
                if not value.repr:
                    hidden.add(name)
                value = value.default
                setattr(cls, name, value)
            if isinstance(value, factory):
                delattr(cls, name)
                defaults[name] = value
            elif value is not _MISSING:
                defaults[name] = value
            elif defaults:
                raise TypeError(f"non-default argument {name!r} follows default argument")
        cls._names, cls._defaults = tuple(names), defaults
        if "__init__" not in cls.__dict__ and (cls.__init__ is Record.__init__ or _compiled(cls.__init__)):
            cls.__init__ = Record.__init__  # its own, to be compiled for its fields (not its base's)
        cls._compared = tuple(n for n in names if n not in uncompared_names)
        cls._shown = tuple(n for n in names if n not in hidden)

    def __init__(self, *args, **kwargs):
        cls = self.__class__
        made = _made.get(cls, 0) + 1
        _made[cls] = made
        if made == _HOT:
            _compile(cls)
        names = self._names
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__}() takes {len(names)} arguments, {len(args)} were given")
        for name, value in zip(names, args):
            if name in kwargs:
                raise TypeError(f"{type(self).__name__}() got multiple values for argument {name!r}")
            self._set(name, value)
        for name in names[len(args):]:
            value = kwargs.pop(name, _MISSING)
            if value is _MISSING:
                value = self._defaults.get(name, _MISSING)
                if value is _MISSING:
                    raise TypeError(f"{type(self).__name__}() missing required argument: {name!r}")
                if isinstance(value, factory):
                    value = value.make()
            self._set(name, value)
        if kwargs:
            raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument {next(iter(kwargs))!r}")

    _set = object.__setattr__  # a FrozenRecord's __init__ sets its fields past its own __setattr__

    def _values(self) -> tuple:
        return tuple(getattr(self, name) for name in self._compared)

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._shown)
        return f"{type(self).__qualname__}({fields})"


# A class's __init__ is compiled for its fields (several times faster than the loop above) at its
# _HOT-th instance: a short command builds most of its records a few times, and compiling them
# all would cost it more than it saves; a server builds some per request.
_HOT = 16
_made: dict[type, int] = {}
# Names the compiled __init__ uses for itself: a field named so keeps the loop.
_RESERVED = frozenset({"self", "_cls", "_generic", "_MISSING", "_set", "_d", "_extra", "_named"})


def _compile(cls) -> None:
    """Give `cls` an __init__ written for its fields when it inherits the generic one. Every
    parameter defaults to a marker, so that the call can be told apart from the defaults: any
    call the compiled one does not take as is (a missing or unexpected argument, too many, an
    instance of a subclass) goes on to the generic one, and its errors read the same."""
    generic = Record.__init__
    if cls.__dict__.get("__init__") is not generic:
        return  # an __init__ of its own (or of a base between): not ours to replace
    names = cls._names
    if _RESERVED & set(names) or not all(name.isidentifier() for name in names):
        return
    env = {"_cls": cls, "_generic": generic, "_MISSING": _MISSING, "_set": object.__setattr__}
    required, fills = [], []
    for i, name in enumerate(names):
        default = cls._defaults.get(name, _MISSING)
        if default is _MISSING:
            required.append(name)
            continue
        env[f"_v{i}"] = default.make if isinstance(default, factory) else default
        value = f"_v{i}()" if isinstance(default, factory) else f"_v{i}"
        fills.append(f"    if {name} is _MISSING:\n        {name} = {value}\n")
    check = " or ".join(["self.__class__ is not _cls", "_extra", "_kw"] + [f"{n} is _MISSING" for n in required])
    named = ", ".join(f"{name!r}: {name}" for name in names)
    if _plain_attributes(cls):
        sets = "    _d = self.__dict__\n" + "".join(f"    _d[{name!r}] = {name}\n" for name in names)
    else:
        sets = "".join(f"    _set(self, {name!r}, {name})\n" for name in names)
    source = (f"def __init__({', '.join(['self', *(n + '=_MISSING' for n in names), '*_extra', '**_kw'])}):\n"
              f"    if {check}:\n"
              f"        if _extra:\n"
              f"            return _generic(self, {''.join(n + ', ' for n in names)}*_extra, **_kw)\n"
              f"        _named = {{{named}}}\n"
              f"        return _generic(self, **{{k: v for k, v in _named.items() if v is not _MISSING}}, **_kw)\n"
              + "".join(fills) + sets + "    return None\n")
    exec(source, env)
    init = env["__init__"]
    init.__qualname__ = cls.__name__  # Python's own "C() got multiple values for argument 'x'"
    init._compiled = True
    cls.__init__ = init


def _compiled(init) -> bool:
    return getattr(init, "_compiled", False)


def _plain_attributes(cls) -> bool:
    """Whether every field is a plain entry of the instance's __dict__ (no slot or property)."""
    if not cls.__dictoffset__:
        return False
    return not any(hasattr(type(cls.__dict__.get(name, getattr(cls, name, None))), "__set__")
                   for name in cls._names)


class FrozenRecord(Record):
    """A Record whose fields cannot be set after __init__, and hashable (a frozen dataclass)."""

    __slots__ = ()

    def __setattr__(self, name, value):
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name):
        raise AttributeError(f"cannot delete field {name!r}")

    def __hash__(self):
        return hash(self._values())


def replace(record: Record, **changes) -> Record:
    """A copy of `record` with some fields changed (dataclasses.replace)."""
    values = {name: getattr(record, name) for name in record._names}
    values.update(changes)
    return type(record)(**values)
