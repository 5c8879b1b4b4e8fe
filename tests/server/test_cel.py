"""The CEL engine: the Kubernetes libraries (examples from the documentation comments of
k8s.io/apiserver pkg/cel/library: lists.go, regex.go, urls.go, quantity.go), cel-go's semantics
where celpy differs, and cel-go's error texts."""
from __future__ import annotations

import subprocess
import sys

import pytest

from kubelite.server import cel

NAMES = frozenset({"object", "self", "oldSelf"})


def run(expression: str, **variables):
    program = cel.compile_expression(expression, NAMES)
    return cel.from_cel(program.evaluate({k: cel.to_cel(v) for k, v in variables.items()}))


def failure(expression: str, **variables) -> str:
    with pytest.raises(cel.EvalError) as caught:
        run(expression, **variables)
    return str(caught.value)


@pytest.mark.parametrize("expression, expected", [
    # lists.go
    ("[1, 2, 3].isSorted()", True), ("['a', 'b', 'b', 'c'].isSorted()", True), ("[2.0, 1.0].isSorted()", False),
    ("[1].isSorted()", True), ("[].isSorted()", True),
    ("[1, 3].sum()", 4), ("[1.0, 3.0].sum()", 4.0), ("[].sum()", 0),
    ("[1, 3].min()", 1), ("[1, 3].max()", 3), ("[1].min()", 1),
    ("[1, 2, 2, 3].indexOf(2)", 1), ("['a', 'b', 'b', 'c'].lastIndexOf('b')", 2), ("[1.0].indexOf(1.1)", -1),
    ("[].indexOf('string')", -1),
    # regex.go
    ("'abc 123'.find('[0-9]+')", "123"), ("'abc 123'.find('xyz')", ""),
    ("'123 abc 456'.findAll('[0-9]+')", ["123", "456"]), ("'123 abc 456'.findAll('[0-9]+', 1)", ["123"]),
    ("'123 abc 456'.findAll('xyz')", []),
    # urls.go
    ("isURL('https://user:pass@example.com:80/path?query=val#fragment')", True), ("isURL('/absolute-path')", True),
    ("isURL('https://a:b:c/')", False), ("isURL('../relative-path')", False),
    ("url('/path').getScheme()", ""), ("url('https://example.com/').getScheme()", "https"),
    ("url('https://example.com:80/').getHost()", "example.com:80"), ("url('https://example.com/').getHost()", "example.com"),
    ("url('https://[::1]:80/').getHost()", "[::1]:80"), ("url('https://[::1]/').getHost()", "[::1]"),
    ("url('/path').getHost()", ""),
    ("url('https://example.com:80/').getHostname()", "example.com"),
    ("url('https://127.0.0.1:80/').getHostname()", "127.0.0.1"), ("url('https://[::1]:80/').getHostname()", "::1"),
    ("url('https://example.com:80/').getPort()", "80"), ("url('https://example.com/').getPort()", ""),
    ("url('https://example.com/path').getEscapedPath()", "/path"),
    ("url('https://example.com/path with spaces/').getEscapedPath()", "/path%20with%20spaces/"),
    ("url('https://example.com').getEscapedPath()", ""),
    ("url('https://example.com/path?k1=a&k2=b&k2=c').getQuery()", {"k1": ["a"], "k2": ["b", "c"]}),
    ("url('https://example.com/path?key with spaces=value with spaces').getQuery()",
     {"key with spaces": ["value with spaces"]}),
    ("url('https://example.com/path?').getQuery()", {}),
    # quantity.go
    ("isQuantity('1.3G')", True), ("isQuantity('1.3Gi')", True), ("isQuantity('1,3G')", False),
    ("isQuantity('10000k')", True), ("isQuantity('200K')", False), ("isQuantity('Three')", False),
    ("isQuantity('Mi')", False),
    ("quantity('50000000G').isInteger()", True), ("quantity('50k').isInteger()", True),
    ("quantity('9999999999999999999999999999999999999G').isInteger()", False),
    ("quantity('50k').asInteger() == 50000", True),
    ("quantity('50k').sub(20000).asApproximateFloat() == 30000", True),
    ("quantity('50k').add(20) == quantity('50020')", True),
    ("quantity('50k').sub(20000) == quantity('30k')", True),
    ("quantity('50k').add(20).sub(quantity('100k')).sub(-50000) == quantity('20')", True),
    ("quantity('200M').compareTo(quantity('0.2G'))", 0), ("quantity('50M').compareTo(quantity('50Mi'))", -1),
    ("quantity('50Mi').compareTo(quantity('50M'))", 1),
    ("quantity('200M').isGreaterThan(quantity('199M'))", True), ("quantity('1Gi').isLessThan(quantity('2Gi'))", True),
    ("quantity('-1').sign()", -1), ("quantity('0').sign()", 0), ("quantity('5m').sign()", 1),
    # extended strings (cel-go ext.Strings, version 2)
    ("'hello'.charAt(4)", "o"), ("'hello'.charAt(5)", ""), ("'hello mellow'.indexOf('ello', 2)", 7),
    ("'hello mellow'.lastIndexOf('ello')", 7), ("'hello mellow'.lastIndexOf('ello', 6)", 1),
    ("'TacoCat'.lowerAscii()", "tacocat"), ("'TacoCat'.upperAscii()", "TACOCAT"),
    ("'hello hello'.replace('he', 'we')", "wello wello"), ("'hello hello'.replace('he', 'we', 1)", "wello hello"),
    ("'hello hello hello'.split(' ')", ["hello", "hello", "hello"]),
    ("'hello hello hello'.split(' ', 2)", ["hello", "hello hello"]), ("'hello'.split(' ', 0)", []),
    ("'tacocat'.substring(4)", "cat"), ("'tacocat'.substring(0, 4)", "taco"), ("'  \\ttrim\\n    '.trim()", "trim"),
    ("['hello', 'mellow'].join(' ')", "hello mellow"), ("['hello', 'mellow'].join()", "hellomellow"),
    ("'%s has %d replicas'.format(['web', 3])", "web has 3 replicas"),
    # cel-go: heterogeneous equality, ordering across numeric types
    ("1 == 1.0", True), ("1 == 'a'", False), ("[1, 'a'] == [1.0, 'a']", True), ("{'a': 1} == {'a': 1.0}", True),
    ("1 < 1.5", True), ("2.0 >= 2", True), ("null == null", True),
    # macros and the standard functions
    ("[1, 2, 3].all(x, x > 0)", True), ("[1, 2, 3].exists_one(x, x == 2)", True),
    ("[1, 2, 3].map(x, x * 2)", [2, 4, 6]), ("[1, 2, 3].filter(x, x > 1)", [2, 3]),
    ("{'a': 1}.all(k, k == 'a')", True), ("'abc'.matches('^a.c$')", True), ("size('abc') == 3", True),
    ("int('12') + 1", 13), ("string(1) + 'x'", "1x"), ("duration('1m') > duration('59s')", True),
])
def test_libraries_and_semantics(expression, expected):
    assert run(expression) == expected


@pytest.mark.parametrize("expression, message", [
    ("object.spec.missing > 1", "no such key: missing"),
    ("object.spec['missing']", "no such key: missing"),
    ("object.spec.items[5]", "index '5' out of range in list size '2'"),
    ("1 / 0", "division by zero"),
    ("9223372036854775807 + 1", "integer overflow"),
    ("object.spec.replicas + 'a'", "no such overload"),
    ("[].min()", "min called on empty list"),
    ("[].max()", "max called on empty list"),
    ("quantity('Three')",
     "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
    ("quantity('9999999999999999999999999999999999999G').asInteger()", "cannot convert value to integer"),
    ("url('../relative-path')",
     'URL parse error during conversion from string: parse "../relative-path": invalid URI for request'),
    ("'tacocat'.substring(40)", "index out of range: 40"),
    ("'tacocat'.substring(4, 2)", "invalid substring range. start: 4, end: 2"),
    ("'abc'.find('(')", "Illegal regex: error parsing regexp: missing ): ("),
])
def test_runtime_errors_in_cel_go_words(expression, message):
    assert failure(expression, object={"spec": {"replicas": 1, "items": [1, 2]}}) == message


def test_undeclared_names_do_not_compile():
    with pytest.raises(cel.CompileError) as caught:
        cel.compile_expression("objct.spec.replicas <= 5", NAMES)
    assert str(caught.value) == ("ERROR: <input>:1:1: undeclared reference to 'objct' (in container '')\n"
                                 " | objct.spec.replicas <= 5\n"
                                 " | ^")
    with pytest.raises(cel.CompileError) as caught:
        cel.compile_expression("self.name.startWith('a')", NAMES)
    assert str(caught.value).startswith("ERROR: <input>:1:11: undeclared reference to 'startWith' (in container '')")
    with pytest.raises(cel.CompileError) as caught:
        cel.compile_expression("object.spec.replicas <=", NAMES)
    assert str(caught.value).startswith("ERROR: <input>:1:")
    assert "Syntax error: mismatched input '<EOF>'" in str(caught.value)
    # a macro's own variable is declared inside it
    assert run("object.items.all(item, item > 0)", object={"items": [1]}) is True


def test_escaped_property_names_and_has():
    obj = {"x-y": 1, "a.b": 2, "namespace": 3, "c__d": 4}
    assert run("self.x__dash__y + self.a__dot__b + self.__namespace__ + self.c__underscores__d", self=obj) == 10
    assert run("has(self.x__dash__y) && !has(self.z)", self=obj) is True


def test_schema_types_numbers_and_timestamps():
    schema = {"type": "object", "properties": {"ratio": {"type": "number"},
                                               "at": {"type": "string", "format": "date-time"}}}
    value = cel.to_cel({"ratio": 1, "at": "2024-01-02T03:04:05Z"}, schema)
    program = cel.compile_expression("self.ratio == 1.0 && type(self.ratio) == double && "
                                     "self.at < timestamp('2025-01-01T00:00:00Z')", NAMES)
    assert cel.from_cel(program.evaluate({"self": value})) is True


def test_the_same_expression_compiles_once():
    assert cel.compile_expression("self.a == 1", NAMES) is cel.compile_expression("self.a == 1", NAMES)


def test_celpy_is_imported_only_when_an_expression_is_compiled():
    code = ("import sys, kubelite.cli.main, kubelite.server.cluster, kubelite.server.cel\n"
            "assert 'celpy' not in sys.modules, 'imported early'\n"
            "from kubelite.server import cel\n"
            "cel.compile_expression('1 == 1', frozenset())\n"
            "assert 'celpy' in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True)
