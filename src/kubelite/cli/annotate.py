"""`kubelite annotate`: add, change or remove annotations of objects, as kubectl annotate does
(the machinery is label's; see kubelite.cli.label)."""
from __future__ import annotations

from kubelite.cli import common
from kubelite.cli.label import Words, build_parser, execute

EXAMPLES = """\
  # Add an annotation, or change it with --overwrite
  kubelite annotate pods foo description='my frontend'
  kubelite annotate --overwrite pods foo description='my frontend running nginx'

  # Every pod in the namespace, or those matching a selector
  kubelite annotate pods --all description='my frontend running nginx'
  kubelite annotate pods -l app=web owner=team-a

  # Only if the resource version is unchanged
  kubelite annotate pods foo description='my frontend' --resource-version=1

  # Remove an annotation, and list the annotations
  kubelite annotate pods foo description-
  kubelite annotate pods foo --list

  # Annotate a file's object locally and print it
  kubelite annotate --local -f pod.yaml owner=me -o yaml
"""

ANNOTATE = Words("annotate", "annotations", "annotation", "rsrc.yaml or --filename=rsrc.json")


def run(argv: list[str]) -> int:
    p = build_parser(ANNOTATE, "Update the annotations on a resource.", EXAMPLES)
    return common.run(p, argv, lambda args: execute(args, ANNOTATE))


def parse_annotations(pairs: list[str]) -> tuple[dict[str, str], list[str]]:
    """KEY=VALUE (the value may hold `=`) and KEY- arguments, with kubectl's complaints."""
    new: dict[str, str] = {}
    remove: list[str] = []
    invalid: list[str] = []
    for pair in pairs:
        if "=" in pair and not pair.startswith("="):
            key, _, value = pair.partition("=")
            new[key] = value
        elif pair.endswith("-") and pair != "-":
            remove.append(pair[:-1])
        else:
            invalid.append(pair)
    if invalid:
        raise common.CommandError(f"error: invalid annotation format: {', '.join(invalid)}")
    both = [key for key in remove if key in new]
    if both:
        raise common.CommandError("error: can not both modify and remove the following annotation(s) in the same "
                                  f"command: {', '.join(both)}")
    return new, remove
