"""`kubelite api-versions`: the group/version pairs the server serves, one a line."""
from __future__ import annotations

import sys

from kubelite.cli import common

EXAMPLES = """\
  # Print the supported API versions
  kubelite api-versions
"""


def build_parser() -> common.Parser:
    p = common.parser("api-versions", "Print the supported API versions on the server, in the form of "
                                      '"group/version".', EXAMPLES)
    common.add_connection_flags(p)
    p.add_argument("-n", "--namespace", help="accepted for kubectl compatibility")
    from kubelite.cli.help import installed

    return installed(p, "api-versions")


def run(argv: list[str]) -> int:
    return common.run(build_parser(), argv, _api_versions)


def _api_versions(args) -> int:
    sess = common.session(args)
    versions = sorted({r.api_version for r in sess.discovery.registry.all()})
    sys.stdout.write("".join(v + "\n" for v in versions))
    return 0
