"""Word wrapping as kubectl's explain does it (go-wordwrap's greedy rules).

Lines break only at white space; a word longer than the limit is left whole. Runs of spaces
are kept, except the run at which a line is broken, which is dropped.
"""
from __future__ import annotations

_LATIN_SPACES = frozenset("\t\n\v\f\r \x85")
_WIDE_SPACES = frozenset("\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
                         "\u2028\u2029\u202f\u205f\u3000")


def _is_space(ch: str) -> bool:
    # Go's unicode.IsSpace, minus the no-break space which never breaks a line
    return ch in _LATIN_SPACES or ch in _WIDE_SPACES


def wrap(text: str, limit: int) -> str:
    out: list[str] = []
    current = 0  # width already on the line being written
    word: list[str] = []
    spaces: list[str] = []
    for ch in text:
        if ch == "\n":
            if not word:
                if current + len(spaces) <= limit:
                    out.extend(spaces)
            else:
                out.extend(spaces)
                out.extend(word)
                word = []
            spaces = []
            out.append("\n")
            current = 0
        elif _is_space(ch):
            if not spaces or word:
                current += len(spaces) + len(word)
                out.extend(spaces)
                out.extend(word)
                spaces, word = [], []
            spaces.append(ch)
        else:
            word.append(ch)
            if current + len(word) + len(spaces) > limit and len(word) < limit:
                out.append("\n")
                current = 0
                spaces = []
    if not word:
        if current + len(spaces) <= limit:
            out.extend(spaces)
    else:
        out.extend(spaces)
        out.extend(word)
    return "".join(out)
