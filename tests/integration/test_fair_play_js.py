"""What the pages say about fair play (frontend/src/fairPlay.js), run in Node: equipment as an icon and a
word, review states, the plausibility rules as sentences, and the seconds of a ride that broke each."""

import json

from .nodejs import FRONTEND, imported, package, printed, run


def fair(tmp_path, body):
    """What the async function ``body`` returns, with frontend/src/fairPlay.js as ``fair``."""
    return run(imported(package(tmp_path, [FRONTEND / "fairPlay.js"]), fair="fairPlay.js"), printed(body))


def test_each_equipment_reads_as_a_word_with_the_class_of_its_icon(tmp_path):
    said = fair(tmp_path, 'return ["bike", "trainer", "virtual", "rocket", null].map((e) => [fair.equipmentLabel(e), fair.equipmentClass(e)]);')
    assert said == [["bike", "eq eq-bike real"], ["trainer", "eq eq-trainer real"], ["virtual", "eq eq-virtual not-real"],
                    ["rocket", "eq"], ["", "eq"]]


def test_style_css_draws_an_icon_for_every_equipment(tmp_path):
    # The icon is the stylesheet's (an SVG: no emoji font needed); an equipment without one would show its word alone
    kinds = fair(tmp_path, "return Object.keys(fair.EQUIPMENT);")
    css = (FRONTEND / "style.css").read_text()
    assert kinds == ["bike", "trainer", "virtual"]
    for kind in kinds:
        assert f'.eq-{kind}::before {{ background-image: url("data:image/svg+xml,' in css


def test_review_states_and_ranks_read_as_words(tmp_path):
    said = fair(tmp_path, "return { labels: [null, 'pending', 'cleared', 'disqualified'].map(fair.reviewLabel),"
                          " ranks: [1, 12, null].map(fair.rankText) };")
    assert said == {"labels": [None, "under review", "cleared", "disqualified"], "ranks": ["1", "12", "—"]}


def test_each_rule_id_has_its_sentence_and_an_unknown_one_reads_as_itself(tmp_path):
    sentences = fair(tmp_path, 'return ["cadence-held", "output-held", "cadence-jump", "new-rule"].map(fair.ruleSentence);')
    assert sentences == ["cadence above 170 rpm for 10 s or more", "average output above 250 over 60 s",
                         "cadence rising 80 rpm or more in one second", "new-rule"]


def test_the_racer_reads_why_with_the_admins_note(tmp_path):
    reasons = fair(tmp_path, """return [
      fair.reviewReason("pending", ["cadence-held", "cadence-jump"], null),
      fair.reviewReason("disqualified", ["output-held"], "Keys, not legs."),
      fair.reviewReason("cleared", ["output-held"], null),
      fair.reviewReason(null, null, null)];""")
    assert reasons == [
        "Under review: cadence above 170 rpm for 10 s or more; cadence rising 80 rpm or more in one second.",
        "Disqualified: average output above 250 over 60 s. The admin's note: Keys, not legs.",
        None, None]


def ride(cadences, resistance=100):
    """Samples as GET .../history gives them: [second, cadence, resistance, output, heartRate]."""
    return [[s, c, resistance, round((c + 35) * (resistance + 65) / 100, 4), None] for s, c in enumerate(cadences)]


def test_the_seconds_that_broke_each_rule_are_found(tmp_path):
    # 5 s at 90 rpm, a jump to 180 held 12 s, back to 90, a 9-s burst at 200 (too short to count as held)
    cadences = [90] * 5 + [180] * 12 + [90] * 5 + [200] * 9 + [90] * 5
    found = fair(tmp_path, f"""const samples = {json.dumps(ride(cadences))};
      return ["cadence-held", "cadence-jump", "output-held", "nope"].map((rule) => fair.brokenSeconds(rule, samples));""")
    held, jumps, output, unknown = found
    assert held == list(range(5, 17))  # the 12-s run; the 9-s one is too short
    assert jumps == [5, 22]  # 90 -> 180 and 90 -> 200
    assert output == [] and unknown == []  # an average of 250 over 60 s needs 60 s


def test_a_minute_at_full_effort_breaks_the_output_rule_on_every_second_of_it(tmp_path):
    # 300 rpm at 100 %: 552.75 a second; 70 s of it after 10 s at 60 rpm, 40 %
    samples = ride([60] * 10, 40) + [[10 + s, 300, 100, 552.75, None] for s in range(70)]
    seconds = fair(tmp_path, f"return fair.brokenSeconds('output-held', {json.dumps(samples)});")
    assert seconds[0] <= 10 and seconds[-1] == 79 and seconds == list(range(seconds[0], 80))


def test_seconds_read_as_ranges(tmp_path):
    assert fair(tmp_path, "return [[3, 4, 5, 9], [], [7], [1, 2, 4, 5, 6]].map(fair.secondRanges);") == [
        "3–5, 9", "", "7", "1–2, 4–6"]


def test_the_pages_sentences_are_the_servers_rules(tmp_path):
    # The rule ids and sentences of alleycat.rules.fairplay (what flags a ride) and of the page (what a person reads) agree
    from alleycat.rules import fairplay

    page = fair(tmp_path, "return Object.fromEntries(Object.keys(fair.RULES).map((id) => [id, fair.ruleSentence(id)]));")
    assert page == {rule.id: rule.says for rule in fairplay.RULES}
