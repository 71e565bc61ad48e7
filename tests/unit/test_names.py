"""Display names: normalised to one spelling, refused when empty, controlling or invisible."""

import pytest

from alleycat.errors import BadRequest
from alleycat.rules.names import display_name


@pytest.mark.parametrize("raw, stored", [
    ("Amy", "Amy"),
    ("  Amy   Rider \t", "Amy Rider"),
    ("Amy\nRider", "Amy Rider"),
    ("Amy\u00a0\u2003Rider", "Amy Rider"),              # no-break and em spaces
    ("Ame\u0301lie", "Am\u00e9lie"),                     # e + combining acute: NFC's é
    ("\u212bngstr\u00f6m", "\u00c5ngstr\u00f6m"),       # the Angstrom sign is NFC's Å
    ("Amy 🚴", "Amy 🚴"),
    ("👩\u200d👩\u200d👧 team", "👩\u200d👩\u200d👧 team"),  # joiners inside an emoji sequence stay
    ("\u0645\u0647\u200cسا", "\u0645\u0647\u200cسا"),    # a zero-width non-joiner a Persian name needs
    ("\u05e9\u05e8\u05d4 \u200f(2)", "\u05e9\u05e8\u05d4 \u200f(2)"),  # a right-to-left mark, not an override
    ("x" * 80, "x" * 80),
])
def test_a_name_is_stored_in_one_spelling(raw, stored):
    assert display_name(raw) == stored


@pytest.mark.parametrize("raw, says", [
    ("", "empty"),
    ("   ", "empty"),
    ("\t\n\u3000\u2028", "empty"),
    ("Amy\x00", "control"),
    ("\x1bAmy", "control"),
    ("Amy\x7f", "control"),
    ("Amy\x9b", "control"),
    ("Amy\x1f Rider", "control"),                      # a separator Python would count as white space
    ("Amy \u202eredaeL", "direction"),                 # right-to-left override: reads "Amy Leader"
    ("\u202dAmy", "direction"),
    ("Amy\u202c", "direction"),
    ("\u2067Amy\u2069", "direction"),                  # an isolate
    ("\u200b", "visible"),
    ("\u200b\u200c\u200d\u2060\ufeff", "visible"),
    ("\u3164", "visible"),                             # the Hangul filler: a letter that draws nothing
    ("\u2800\u2800", "visible"),                       # the blank Braille pattern
    ("\u00ad\u200e", "visible"),                       # a soft hyphen and a direction mark
    ("\u0301", "visible"),                             # a combining mark with nothing to sit on
])
def test_a_name_that_is_not_one_is_refused_with_why(raw, says):
    with pytest.raises(BadRequest) as refused:
        display_name(raw)
    assert says in refused.value.message and refused.value.message.startswith("name ")


def test_a_name_that_grows_past_the_limit_as_it_is_normalised_is_refused():
    # U+0958 is one code point that NFC writes as two (it is excluded from composition)
    raw = "\u0958" * 41
    assert len(raw) <= 80
    with pytest.raises(BadRequest) as refused:
        display_name(raw)
    assert "80" in refused.value.message
