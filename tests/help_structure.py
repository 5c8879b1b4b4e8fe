"""Parsing kubectl-layout help text into its structure (sections, flags, usage, footers), so a
kubelite command's -h can be compared with kubectl's without comparing wording."""
from __future__ import annotations

import re

FLAG = re.compile(r"^    ((?:-\S, )?--[a-z0-9-]+)=(.*):$")


def structure(text: str, tool: str) -> dict:
    lines = text.splitlines()
    headers = [line for line in lines if re.fullmatch(r"[A-Z][A-Za-z ()]+:", line)]
    sections: dict = {}
    current = None
    for line in lines:
        if line in headers:
            current = line
            sections[current] = []
        elif current:
            sections[current].append(line)
    flags = {}
    for line in sections.get("Options:", []):
        m = FLAG.match(line)
        if m:
            flags[m.group(1)] = m.group(2)
    usage = [line.strip() for line in sections.get("Usage:", []) if line.strip() and not line.startswith("Use ")]
    return {
        "headers": headers,
        "sections": sections,
        "aliases": sections.get("Aliases:", [""])[0],
        "commands": sorted(line.split()[0] for line in sections.get("Available Commands:", []) if line.strip()),
        "flags": flags,
        "usage": [u.replace(tool + " ", "", 1) if u != tool else "" for u in usage],
        "footer": [line.replace(tool, "TOOL") for line in lines if line.startswith("Use ")],
        "examples_ok": all(line == "" or line.startswith("  # ") or line.startswith(f"  {tool} ") or line == "  "
                           for line in sections.get("Examples:", [])),
        "options_ok": all(line == "" or FLAG.match(line) or line.startswith("\t")
                          for line in sections.get("Options:", [])),
    }
