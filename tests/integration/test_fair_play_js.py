"""What the pages say about fair play (frontend/src/fairPlay.js), run in Node: equipment as an icon and a
word, review states, the plausibility rules as sentences, and the seconds of a ride that broke each."""

import json
import random
from decimal import ROUND_HALF_UP, Decimal

import pytest

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


CADENCE_HELD = "cadence above 170 rpm in 10 or more of any 20 seconds"
OUTPUT_HELD = "average output above 250 over any 60 seconds (a second not sent counts 0)"
CADENCE_SWING = "cadence rising 200 rpm or more in all within any 10 seconds"
CADENCE_JUMP = "cadence rising 80 rpm or more in one second (a rule before contract v1.3)"


def test_each_rule_id_has_its_sentence_and_an_unknown_one_reads_as_itself(tmp_path):
    sentences = fair(tmp_path, 'return ["cadence-held", "output-held", "cadence-swing", "cadence-jump", "new-rule"].map(fair.ruleSentence);')
    assert sentences == [CADENCE_HELD, OUTPUT_HELD, CADENCE_SWING, CADENCE_JUMP, "new-rule"]


def test_the_racer_reads_why_with_the_admins_note(tmp_path):
    reasons = fair(tmp_path, """return [
      fair.reviewReason("pending", ["cadence-held", "cadence-swing"], null),
      fair.reviewReason("disqualified", ["output-held"], "Keys, not legs."),
      fair.reviewReason("pending", ["cadence-jump"], null),
      fair.reviewReason("cleared", ["output-held"], null),
      fair.reviewReason(null, null, null)];""")
    assert reasons == [
        f"Under review: {CADENCE_HELD}; {CADENCE_SWING}.",
        f"Disqualified: {OUTPUT_HELD}. The admin's note: Keys, not legs.",
        f"Under review: {CADENCE_JUMP}.",
        None, None]


def ride(cadences, resistance=100, seconds=None):
    """Samples as GET .../history gives them: [second, cadence, resistance, output, heartRate]; ``seconds``:
    the race's second of each (0, 1, 2, ... when not given)."""
    seconds = range(len(cadences)) if seconds is None else seconds
    return [[s, c, resistance, float(output(c, resistance)), None] for s, c in zip(seconds, cadences, strict=True)]


def output(cadence, resistance) -> Decimal:
    return ((Decimal(cadence) + 35) * (Decimal(resistance) + 65) / 100).quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP)


def loaded(tmp_path, value) -> str:
    """A JS expression of ``value``, read from a file (a long ride is beyond a command line's length)."""
    path = tmp_path / f"value-{len(list(tmp_path.glob('value-*.json')))}.json"
    path.write_text(json.dumps(value))
    return f"JSON.parse((await import('node:fs')).readFileSync({json.dumps(str(path))}, 'utf8'))"


def marked(tmp_path, samples, rules=("cadence-held", "output-held", "cadence-swing")):
    """{rule: the seconds of ``samples`` the page marks for it}."""
    found = fair(tmp_path, f"const samples = {loaded(tmp_path, samples)};"
                           f" return {json.dumps(list(rules))}.map((rule) => fair.brokenSeconds(rule, samples));")
    return dict(zip(rules, found, strict=True))


def windows(samples, length):
    """Every window of ``length`` seconds of race time that holds a second sent, as the samples in it:
    [t, t + length) for each t from length - 1 before the first second to the last (done the long way)."""
    seconds = [sample[0] for sample in samples]
    return [[sample for sample in samples if t <= sample[0] < t + length]
            for t in range(seconds[0] - length + 1, seconds[-1] + 1)]


def by_the_rules(samples):
    """What the page must mark, worked out here window by window from the rules' words (in Decimal)."""
    rises = {}
    for before, sample in zip([None, *samples], samples, strict=False):
        rises[sample[0]] = max(Decimal(0), Decimal(str(sample[1])) - Decimal(str(before[1]))) if before else Decimal(0)
    found = {"cadence-held": set(), "output-held": set(), "cadence-swing": set()}
    for held in windows(samples, 20):
        if sum(1 for sample in held if sample[1] > 170) >= 10:
            found["cadence-held"] |= {sample[0] for sample in held if sample[1] > 170}
    for minute in windows(samples, 60):
        if sum(output(sample[1], sample[2]) for sample in minute) > 250 * 60:
            found["output-held"] |= {sample[0] for sample in minute}
    for ten in windows(samples, 10):
        if sum(rises[sample[0]] for sample in ten) >= 200:
            found["cadence-swing"] |= {sample[0] for sample in ten if rises[sample[0]] > 0}
    return {rule: sorted(seconds) for rule, seconds in found.items()}


@pytest.mark.parametrize("left_out", [10, 3, 2], ids=["one in ten", "one in three", "one in two"])
def test_the_gap_trick_is_marked_as_the_seconds_that_break_output_held_and_cadence_held(tmp_path, left_out):
    # cadence 300 at 100 % (552.75 a second) for 300 s, every ``left_out``-th second left out (second % n == n - 1)
    sent = [s for s in range(300) if s % left_out != left_out - 1]
    samples = ride([300] * len(sent), seconds=sent)
    found = marked(tmp_path, samples)
    # Then every second sent breaks both: above 170 rpm in 10 or more of any 20 s, above 15,000 in any 60 s
    assert found["cadence-held"] == sent and found["output-held"] == sent
    assert found["cadence-swing"] == []  # a steady 300 rises once, from nothing: no rise at all
    assert found == by_the_rules(samples)


def test_cadence_alternating_20_and_99_rpm_every_second_is_marked_as_a_swing(tmp_path):
    cadences = [20 if s % 2 == 0 else 99 for s in range(60)]
    found = marked(tmp_path, ride(cadences, resistance=50))
    # Then each rise of 79 is marked (five of them in any 10 s add up to 395), nothing else
    assert found["cadence-swing"] == [s for s in range(60) if s % 2 == 1]
    assert found["cadence-held"] == [] and found["output-held"] == []
    assert found == by_the_rules(ride(cadences, resistance=50))


def honest_ride():
    """What honest riders do: a start from 0 rpm to 80 in one second, 60 s at 80-90, a 20-s stop (nothing sent
    for 10 of it, 0 rpm for the rest) and a restart to 85 in one second, then a 30-s sprint to 135 and a
    9-s burst at 180; at 60 %."""
    cadences = [0, 80] + [80 + s % 11 for s in range(60)] + [0] * 10
    seconds = list(range(len(cadences)))
    restart = seconds[-1] + 11  # the next 10 s not sent: a phone in a pocket
    sprint = [85] * 10 + [95, 105, 115, 125, 135] + [135] * 25 + [180] * 9 + [90] * 20
    return ride(cadences + sprint, resistance=60, seconds=seconds + list(range(restart, restart + len(sprint))))


def test_a_start_from_standstill_a_stop_and_restart_and_a_sprint_mark_nothing(tmp_path):
    samples = honest_ride()
    assert marked(tmp_path, samples) == {"cadence-held": [], "output-held": [], "cadence-swing": []}
    assert by_the_rules(samples) == {"cadence-held": [], "output-held": [], "cadence-swing": []}


def test_each_rule_marks_the_seconds_of_the_windows_that_break_it_and_only_those(tmp_path):
    # 5 s at 90 rpm, 12 s at 180, 5 at 90, a 9-s burst at 200 (10 of any 20 s above 170 with the 12 s
    # only where the windows reach both), 5 at 90; then a gap of 30 s and a minute at 300 rpm
    cadences = [90] * 5 + [180] * 12 + [90] * 5 + [200] * 9 + [90] * 5 + [300] * 60
    seconds = list(range(36)) + list(range(66, 126))
    samples = ride(cadences, seconds=seconds)
    found = marked(tmp_path, samples)
    assert found == by_the_rules(samples)
    assert found["cadence-held"][:12] == list(range(5, 17)) and 22 in found["cadence-held"]
    assert found["output-held"][-1] == 125 and 0 not in found["output-held"]
    # 90 -> 180 (a rise of 90) and 90 -> 200 (110) are 17 s apart; 90 -> 300 is 210 at once, from the ride's previous
    # second sent, 30 s before
    assert found["cadence-swing"] == [66]


def test_random_rides_are_marked_as_the_rules_say_window_by_window(tmp_path):
    generator = random.Random(51)
    rides = []
    for _ in range(40):
        seconds = sorted(generator.sample(range(200), generator.randint(20, 200)))
        base = generator.choice([60, 120, 175, 240])
        rides.append(ride([min(300, max(0, base + generator.randint(-60, 60))) for _ in seconds],
                          resistance=generator.choice([20, 80, 100]), seconds=seconds))
    found = fair(tmp_path, f"""const rides = {json.dumps(rides)};
      return rides.map((samples) => Object.fromEntries(["cadence-held", "output-held", "cadence-swing"]
        .map((rule) => [rule, fair.brokenSeconds(rule, samples)])));""")
    assert found == [by_the_rules(samples) for samples in rides]
    assert all(any(marks[rule] for marks in found) for rule in ("cadence-held", "output-held", "cadence-swing"))


def test_a_review_stored_before_v13_still_marks_its_cadence_jumps(tmp_path):
    cadences = [90] * 5 + [180] * 12 + [90] * 5 + [200] * 9 + [90] * 5
    assert marked(tmp_path, ride(cadences), rules=("cadence-jump", "nope")) == {"cadence-jump": [5, 22], "nope": []}


def test_seconds_read_as_ranges(tmp_path):
    assert fair(tmp_path, "return [[3, 4, 5, 9], [], [7], [1, 2, 4, 5, 6]].map(fair.secondRanges);") == [
        "3–5, 9", "", "7", "1–2, 4–6"]


def test_the_pages_sentences_are_the_servers_rules(tmp_path):
    # The rule ids and sentences of alleycat.rules.fairplay (what flags a ride) and of the page (what a person reads)
    # agree, the retired ones too (reviews stored before contract v1.3 name them)
    from alleycat.rules import fairplay

    page = fair(tmp_path, "return [fair.RULES, fair.POWER_RULES, fair.RETIRED_RULES].map((rules) =>"
                          " Object.entries(Object.fromEntries(Object.keys(rules).map((id) => [id, fair.ruleSentence(id)]))));")
    # a power class's rules too, in the server's order (contract v1.3)
    assert page == [[[rule.id, rule.says] for rule in rules] for rules in (fairplay.RULES, fairplay.POWER_RULES)] + [
        [list(item) for item in fairplay.RETIRED.items()]]
    assert fair(tmp_path, 'return ["output", "power", null].map((metric) => Object.keys(fair.rulesOf(metric)));') == [
        [rule.id for rule in fairplay.rules_of(metric)] for metric in ("output", "power", "output")]


POWER_RULE_IDS = ("cadence-held", "cadence-swing", "power-peak", "power-minute", "power-5-minutes", "power-20-minutes",
                  "power-cadence")


def powered(watts, cadences, seconds=None, resistance=50):
    """A power class's samples as GET .../history gives them: [second, cadence, resistance, output, heartRate, power]."""
    seconds = range(len(watts)) if seconds is None else seconds
    return [[s, c, resistance, float(output(c, resistance)), None, w]
            for s, c, w in zip(seconds, cadences, watts, strict=True)]


def server_flags(samples):
    """The power rules alleycat.rules.fairplay finds broken by ``samples`` (the server's judgement of the ride)."""
    from alleycat.rules import fairplay
    from alleycat.rules.samples import POWER, Sample

    ride_ = {s: Sample(Decimal(str(c)), Decimal(str(r)), None, w) for s, c, r, _, _, w in samples}
    return fairplay.broken_rules(ride_, POWER)


def by_the_power_rules(samples):
    """What the page must mark for the watts' rules, worked out here window by window from the rules' words."""
    found = {rule: set() for rule in POWER_RULE_IDS[2:]}
    for rule, watts, length in (("power-peak", 2700, 5), ("power-minute", 1400, 60), ("power-5-minutes", 800, 300),
                                ("power-20-minutes", 600, 1200)):
        for window in windows(samples, length):
            if sum(sample[5] or 0 for sample in window) > watts * length:
                found[rule] |= {sample[0] for sample in window}
    if any(sample[1] > 0 for sample in samples):
        beyond = [sample for sample in samples if (sample[5] or 0) > 100 and (sample[5] or 0) > 42 * sample[1]]
        for window in windows(samples, 30):
            strained = [sample for sample in window if sample in beyond]
            if len(strained) >= 15:
                found["power-cadence"] |= {sample[0] for sample in strained}
    return {rule: sorted(seconds) for rule, seconds in found.items()}


def test_a_power_rides_broken_rules_are_located_where_the_server_flags_them(tmp_path):
    # 1,500 W held at 90 rpm for 80 s after a 200-W warm-up of 120 s (10 s of it not sent), then 200 W again
    seconds = [s for s in range(400) if not 50 <= s < 60]
    watts = [1500 if 120 <= s < 200 else 200 for s in seconds]
    samples = powered(watts, [90] * len(seconds), seconds)
    found = marked(tmp_path, samples, POWER_RULE_IDS)
    assert server_flags(samples) == ["power-minute"]
    # Then the page marks power-minute alone: the seconds sent of every minute above 1,400 W on average
    assert [rule for rule in POWER_RULE_IDS if found[rule]] == ["power-minute"]
    assert found["power-minute"][0] > 120 - 60 and found["power-minute"][-1] < 200 + 60
    assert {s for s in seconds if 120 <= s < 200} <= set(found["power-minute"])
    assert {rule: found[rule] for rule in POWER_RULE_IDS[2:]} == by_the_power_rules(samples)
    assert fair(tmp_path, 'return ["power-minute", "power-cadence", "cadence-held"].map(fair.ruleMarksOn);') == [
        "power", "power", "cadence"]


def test_a_power_cadence_ride_and_one_without_cadence(tmp_path):
    # 600 W at 10 rpm (60 W per rpm) for 20 s after a standing start: strained beyond any crank's torque
    strained = powered([250] * 30 + [600] * 20 + [250] * 30, [90] * 30 + [10] * 20 + [90] * 30)
    # A power meter that measures no cadence: the same watts at 0 rpm throughout are not judged by it
    no_cadence = powered([250] * 30 + [600] * 20 + [250] * 30, [0] * 80)
    # A standing start: 14 s of strain in any 30 is not enough
    start = powered([400] * 14 + [250] * 60, [5] * 14 + [90] * 60)
    for samples, flagged in ((strained, ["power-cadence"]), (no_cadence, []), (start, [])):
        found = marked(tmp_path, samples, POWER_RULE_IDS)
        assert server_flags(samples) == flagged
        assert [rule for rule in POWER_RULE_IDS if found[rule]] == flagged
        assert {rule: found[rule] for rule in POWER_RULE_IDS[2:]} == by_the_power_rules(samples)
    assert marked(tmp_path, strained, ["power-cadence"]) == {"power-cadence": list(range(30, 50))}


def test_random_power_rides_are_marked_where_the_server_flags_them_window_by_window(tmp_path):
    generator = random.Random(52)
    rides = []
    for _ in range(30):
        seconds = sorted(generator.sample(range(400), generator.randint(30, 400)))
        base = generator.choice([200, 900, 1500, 2800])
        cadence = generator.choice([0, 5, 30, 90])
        rides.append(powered([min(3000, max(0, base + generator.randint(-300, 300))) for _ in seconds],
                             [max(0, cadence + generator.randint(-5, 5)) for _ in seconds], seconds))
    found = fair(tmp_path, f"""const rides = {loaded(tmp_path, rides)};
      return rides.map((samples) => Object.fromEntries({json.dumps(POWER_RULE_IDS)}
        .map((rule) => [rule, fair.brokenSeconds(rule, samples)])));""")
    for samples, marks in zip(rides, found, strict=True):
        assert [rule for rule in POWER_RULE_IDS if marks[rule]] == server_flags(samples)
        assert {rule: marks[rule] for rule in POWER_RULE_IDS[2:]} == by_the_power_rules(samples)
    assert all(any(marks[rule] for marks in found) for rule in POWER_RULE_IDS[2:])
