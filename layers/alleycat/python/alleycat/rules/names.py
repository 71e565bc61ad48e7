"""Names people read on public pages (a racer's display name, a class's name): one spelling for what
looks the same, and nothing that hides, reorders or blanks what a board shows.

A name is Unicode NFC (``e`` + a combining acute is stored as ``é``), its runs of whitespace one
space, trimmed. It is refused when what is left is empty, holds a control character (a tab or line
break counts as whitespace; the rest, U+0000-U+001F and U+007F-U+009F, do not belong in a name), a
bidirectional embedding, override or isolate (U+202A-U+202E, U+2066-U+2069: they reorder the text
after them, on the board too), or nothing visible (only zero-width, format or blank-looking
characters). Joiners and direction marks inside a visible name stay: emoji sequences and scripts
need them.
"""

from __future__ import annotations

import re
import unicodedata

from alleycat.errors import BadRequest

MAX_LENGTH = 80  # the contract's 1-80 characters
_WHITESPACE = re.compile(r"\s+")  # Unicode's white space; Python's \s holds U+001C-U+001F too, refused first
_DIRECTION_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# Letters and symbols that render as blank space: Hangul fillers, the blank Braille pattern, and the like.
_BLANK_LOOKING = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e\u034f\u17b4\u17b5")


def display_name(raw: str, field: str = "name") -> str:
    """``raw`` normalised as a name is stored; ``BadRequest`` naming ``field`` when it cannot be one."""
    if any(char in "\x1c\x1d\x1e\x1f" for char in raw):  # separators Python counts as whitespace
        raise BadRequest(f"{field} must not contain control characters")
    name = _WHITESPACE.sub(" ", unicodedata.normalize("NFC", raw)).strip(" ")
    if not name:
        raise BadRequest(f"{field} must not be empty or only spaces")
    if any(unicodedata.category(char) == "Cc" for char in name):
        raise BadRequest(f"{field} must not contain control characters")
    if any(char in _DIRECTION_CONTROLS for char in name):
        raise BadRequest(f"{field} must not contain text-direction overrides or isolates (U+202A-U+202E, U+2066-U+2069)")
    if not any(_visible(char) for char in name):
        raise BadRequest(f"{field} must have a visible character: zero-width or blank characters alone are not a name")
    if len(name) > MAX_LENGTH:
        raise BadRequest(f"{field} must be at most {MAX_LENGTH} characters once normalised")
    return name


def _visible(char: str) -> bool:
    """Whether the character draws something: a letter, number, punctuation or symbol that is not blank."""
    return unicodedata.category(char)[0] in "LNPS" and char not in _BLANK_LOOKING
