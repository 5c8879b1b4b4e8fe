"""apimachinery's name validators, with their messages (kubectl quotes them verbatim)."""
from __future__ import annotations

import re

_CONFIG_KEY = re.compile(r"[-._a-zA-Z0-9]+\Z")
_ENV_NAME = re.compile(r"[-._a-zA-Z][-._a-zA-Z0-9]*\Z")
_DNS1123_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN = re.compile(rf"{_DNS1123_LABEL}(\.{_DNS1123_LABEL})*\Z")
_PORT_NAME_CHARS = re.compile(r"[-a-z0-9]+\Z")
_PORT_NAME_LETTER = re.compile(r".*[a-z]")


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{msg} (e.g. {shown}regex used for validation is '{fmt}')"


def _dots(value: str) -> list[str]:
    if value == ".":
        return ["must not be '.'"]
    if value == "..":
        return ["must not be '..'"]
    if value.startswith(".."):
        return ["must not start with '..'"]
    return []


def config_map_key_errors(value: str) -> list[str]:
    errs = []
    if len(value) > 253:
        errs.append("must be no more than 253 characters")
    if not _CONFIG_KEY.match(value):
        errs.append(regex_error("a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
                                "[-._a-zA-Z0-9]+", "key.name", "KEY_NAME", "key-name"))
    return errs + _dots(value)


def env_var_name_errors(value: str) -> list[str]:
    errs = []
    if not _ENV_NAME.match(value):
        errs.append(regex_error("a valid environment variable name must consist of alphabetic characters, digits, "
                                "'_', '-', or '.', and must not start with a digit",
                                "[-._a-zA-Z][-._a-zA-Z0-9]*", "my.env-name", "MY_ENV.NAME", "MyEnvName1"))
    return errs + _dots(value)


def dns1123_subdomain_errors(value: str) -> list[str]:
    errs = []
    if len(value) > 253:
        errs.append("must be no more than 253 characters")
    if not _DNS1123_SUBDOMAIN.match(value):
        errs.append(regex_error(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
            "and must start and end with an alphanumeric character",
            r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*", "example.com"))
    return errs


def port_name_errors(value: str) -> list[str]:
    errs = []
    if len(value) > 15:
        errs.append("must be no more than 15 characters")
    if not _PORT_NAME_CHARS.match(value):
        errs.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not _PORT_NAME_LETTER.match(value):
        errs.append("must contain at least one letter (a-z)")
    if "--" in value:
        errs.append("must not contain consecutive hyphens")
    if value and (value[0] == "-" or value[-1] == "-"):
        errs.append("must not begin or end with a hyphen")
    return errs


def port_num_errors(value: int) -> list[str]:
    return [] if 1 <= value <= 65535 else ["must be between 1 and 65535, inclusive"]


_ATOI = re.compile(r"[+-]?[0-9]+\Z")


def go_atoi(text: str) -> int | None:
    """strconv.Atoi: optional sign and decimal digits fitting int64, else None."""
    if not _ATOI.match(text):
        return None
    value = int(text)
    return value if -(2**63) <= value < 2**63 else None


def go_parse_uint16(text: str) -> int:
    """strconv.ParseUint(text, 10, 16), raising ValueError with Go's message."""
    if not re.fullmatch(r"[0-9]+", text):
        raise ValueError(f'strconv.ParseUint: parsing "{text}": invalid syntax')
    value = int(text)
    if value > 65535:
        raise ValueError(f'strconv.ParseUint: parsing "{text}": value out of range')
    return value
