"""Server Warning headers as kubectl's client treats them (client-go's warning handler)."""
from __future__ import annotations

import warnings

import pytest

from kubelite.client import server_warnings


@pytest.mark.parametrize("value, texts", [
    ('299 - "unknown field \\"spec.x\\""', ['unknown field "spec.x"']),
    ('299 - "one", 299 - "two"', ["one", "two"]),  # repeated headers joined as ", "
    ('299 kube-apiserver "dated" "Tue, 15 Nov 1994 08:12:31 GMT"', ["dated"]),
    ('199 - "not for users", 299 - "shown"', ["shown"]),  # only code 299 is shown
    ("garbage", []),
    ("", []),
])
def test_warning_header_values(value, texts):
    assert server_warnings.parse(value) == texts


def test_each_text_is_printed_once_per_process(capsys, monkeypatch):
    monkeypatch.setattr(server_warnings, "_printed", set())
    server_warnings.report({"warning": '299 - "first", 299 - "second"'})
    server_warnings.report({"warning": '299 - "first"'})
    server_warnings.report({})
    assert capsys.readouterr().err == "Warning: first\nWarning: second\n"


def test_the_python_api_raises_them_as_python_warnings():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        server_warnings.report({"warning": '299 - "deprecated"'}, server_warnings.python_warning)
    assert [(w.category, str(w.message)) for w in caught] == [(server_warnings.ServerWarning, "deprecated")]
