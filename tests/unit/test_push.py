"""What the stream processor pushes for a race (``alleycat.edge.push``): the message and its size."""

import random
import uuid
from decimal import Decimal

from alleycat.edge import push
from alleycat.storage import entities as e

RACE = "01JD5Z6Q8X0000000000000000"


def board(standings: dict[str, tuple]) -> tuple[str, list[e.RaceBoard]]:
    """A race's id and its board shards holding ``racerId -> (score, lastSecond, name)``."""
    shards: dict[int, e.RaceBoard] = {}
    for racer_id, (score, last, name) in standings.items():
        shard = e.RaceBoard.shard_of(racer_id)
        shards.setdefault(shard, e.RaceBoard(RACE, shard)).standings[racer_id] = [Decimal(str(score)), last, name]
    return RACE, list(shards.values())


def size(message: dict) -> int:
    """The message's bytes as published (its rows compressed)."""
    return len(push._dumps(push.encoded(message)).encode())


def test_channel_is_the_races_namespace_and_the_race():
    assert push.channel(RACE) == f"/races/{RACE}"


def cognito_ids(count: int, seed: int = 5) -> list[str]:
    rng = random.Random(seed)
    return [str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(count)]


def test_message_has_the_top_rows_with_names_then_the_changed_racers_in_board_order():
    # Given a board of 30 racers (ties broken by racerId, as the leaderboard route does)
    standings = {f"r{n:02d}": (1000 - n * 10 + (5 if n == 20 else 0), 41, f"Rider {n}") for n in range(30)}
    standings["r29"] = (990, 41, "Rider 29")  # ties with r01
    race, boards = board(standings)
    # When two racers below the top ten changed in this invocation, and the last message had no top
    message = push.board_message(race, boards, {"r25", "r15"}, now=1_800_000_000)
    # Then the rows are the top ten, each with its id and name, then the changed racers by key, with their ranks
    ranks = [row[0] for row in message["rows"]]
    assert ranks == list(range(1, 11)) + [17, 27]  # r29 ranks third
    assert message["rows"][1] == [2, ["r01", "Rider 1"], 990, 41]  # a bike without a review: no extras
    assert message["rows"][2][1] == ["r29", "Rider 29"]
    assert message["rows"][10] == [17, push.key("r15"), 850, 41]
    assert (message["v"], message["raceId"], message["status"], message["racers"], message["more"]) == (4, RACE, "open", 30, 0)
    assert message["at"] == 1_800_000_000_000


def test_top_rows_the_last_message_named_go_by_key_a_newcomer_with_its_name():
    race, boards = board({f"r{n:02d}": (1000 - n, 41, f"Rider {n}") for n in range(30)})
    before = push.top_racers(boards) - {"r09"}
    whos = [row[1] for row in push.board_message(race, boards, set(), top_before=before)["rows"]]
    assert whos == [push.key(f"r{n:02d}") for n in range(9)] + [["r09", "Rider 9"]]


def test_racers_who_share_a_key_go_by_their_ids():
    # Given two racers whose keys collide (FNV-1a's low 20 bits), found by search
    ids = cognito_ids(3000, seed=11)
    seen: dict[int, str] = {}
    pair = next((seen[push.key(r)], r) for r in ids if seen.setdefault(push.key(r), r) != r)
    race, boards = board({pair[0]: (5, 3, "A"), pair[1]: (4, 3, "B"), "c": (3, 3, "C")})
    rows = push.board_message(race, boards, set(), top_before={pair[0], pair[1], "c"})["rows"]
    assert [row[1] for row in rows] == [pair[0], pair[1], push.key("c")]


def test_the_key_is_fnv1a_of_the_ids_utf8_low_20_bits():
    assert push.key("") == 0x811C9DC5 & 0xFFFFF
    assert push.key("a") == 0xE40C292C & 0xFFFFF  # FNV-1a 32 of "a", the published test vector


def test_scores_are_rounded_like_the_leaderboard_route_and_read_back_exactly():
    race, boards = board({"a": (Decimal("123.456789"), 3, "A"), "b": (Decimal("0.0001"), None, "B")})
    message = push.board_message(race, boards, {"a", "b"})
    assert message["rows"] == [[1, ["a", "A"], 123.4568, 3], [2, ["b", "B"], 0.0001, None]]
    assert push.decoded(push.encoded(message)) == message


def test_equipment_and_review_are_sent_only_when_not_a_bike_without_one():
    race, boards = board({"a": (9, 3, "A"), "b": (8, 3, "B"), "c": (7, 3, "C")})
    shard = next(b for b in boards if "b" in b.standings)
    shard.standings["b"] += ["trainer", None]
    next(b for b in boards if "c" in b.standings).standings["c"] += ["bike", "disqualified"]
    message = push.board_message(race, boards, set(), top_before={"a", "b", "c"})
    assert [row[4:] for row in message["rows"]] == [[], ["trainer"], ["bike", "disqualified"]]
    assert message["rows"][2][0] is None and push.decoded(push.encoded(message)) == message


def test_a_full_board_of_changes_stays_under_the_budget_with_the_top_and_the_best_ranks():
    # Given 1,000 racers with Cognito ids, every one of them changed in this invocation (a real-time race)
    ids = cognito_ids(1000)
    race, boards = board({racer: (Decimal(40_000 - n * 3) + Decimal("0.1234"), 287, f"Racer number {n}")
                          for n, racer in enumerate(ids)})
    for top_before in (None, push.top_racers(boards)):  # an invocation's first message, then the next
        message = push.board_message(race, boards, set(ids), top_before=top_before)
        # Then the message is at most ~1.3 KB as published (one delivery under 1.5 KB)
        assert size(message) <= push.MAX_MESSAGE_BYTES == 1300
        # And the rows are the best ranks, contiguous from the top; `more` counts the changed racers left out
        sent = len(message["rows"])
        assert [row[0] for row in message["rows"]] == list(range(1, sent + 1))
        assert message["more"] == 1000 - sent and push.decoded(push.encoded(message)) == message
    # And the steady message (the top named before) holds the top hundred the page shows
    assert sent >= 100


def test_a_viewers_row_far_down_is_sent_when_it_changed():
    ids = cognito_ids(1000)
    race, boards = board({racer: (40_000 - n, 287, f"R{n}") for n, racer in enumerate(ids)})
    rows = push.board_message(race, boards, {ids[700]}, top_before=push.top_racers(boards))["rows"]
    assert rows[-1] == [701, push.key(ids[700]), 39_300, 287] and len(rows) == push.TOP_ROWS + 1


def test_a_hundred_racer_race_fits_whole_with_cognito_ids():
    ids = cognito_ids(100)
    race, boards = board({racer: (10_000 + n * 7.1234, 120, f"Firstname Lastname{n}") for n, racer in enumerate(ids, 1)})
    message = push.board_message(race, boards, set(ids))
    assert len(message["rows"]) == 100 and message["more"] == 0
    assert size(message) <= push.MAX_MESSAGE_BYTES


def test_the_rows_are_sent_compressed_and_read_back_as_they_were():
    race, boards = board({f"r{n:02d}": (1000 - n, 41, f"Rider {n}") for n in range(30)})
    message = push.board_message(race, boards, {"r25"}, now=1_800_000_000)
    sent = push.encoded(message)
    assert "rows" not in sent and sent["v"] == 4 and push.decoded(sent) == message
    assert push.encoded({"n": 1}) == {"n": 1}  # not a board message: as it is


def test_an_unchanged_board_still_sends_its_top_rows():
    race, boards = board({f"r{n}": (n, 1, "x") for n in range(20)})
    assert [row[0] for row in push.board_message(race, boards, set())["rows"]] == list(range(1, 11))


def test_finished_message_carries_no_rows():
    message = push.finished_message(RACE)
    assert (message["status"], message["rows"], message["raceId"]) == ("finished", [], RACE)


def test_finished_message_is_the_whole_shape_viewers_read():
    # docs/push.md: {"status": "finished", "rows": []}, in the board message's shape, v4, at in milliseconds
    assert push.finished_message(RACE, now=1_800_000_000.25) == {
        "v": 4, "raceId": RACE, "status": "finished", "racers": None, "at": 1_800_000_000_250, "rows": [], "more": 0}


def test_a_board_message_has_exactly_the_fields_of_docs_push_md():
    race, boards = board({"a": (5, 3, "A")})
    message = push.board_message(race, boards, {"a"}, now=1_800_000_000)
    assert set(message) == {"v", "raceId", "status", "racers", "at", "rows", "more"}
    assert set(push.encoded(message)) == {"v", "raceId", "status", "racers", "at", "more", "z"}


def packed_here(rows) -> str:
    """docs/push.md: `z` is the rows as columns of steps in compact JSON, gzip-compressed, base64; the gzip
    header with MTIME 0 (RFC 1952: no time stamp), so the same rows are the same bytes."""
    import base64
    import gzip
    import json

    def steps(values):
        last, out = 0, []
        for value in values:
            out.append(None if value is None else value - last)
            last = last if value is None else value
        return out

    columns = [steps([r[0] for r in rows]), [r[1] for r in rows], steps([round(r[2] * 10_000) for r in rows]),
               steps([r[3] for r in rows]), [[i, *r[4:]] for i, r in enumerate(rows) if len(r) > 4]]
    compact = json.dumps(columns, separators=(",", ":"), ensure_ascii=False).encode()
    return base64.b64encode(gzip.compress(compact, mtime=0)).decode()


def test_the_rows_are_columns_of_steps_gzipped_with_no_time_stamp():
    race, boards = board({"a": (5, 3, "Zoë Ŧ"), "b": (4, 2, "B"), "c": (4, None, "C")})
    message = push.board_message(race, boards, {"a", "b"}, now=1_800_000_000)
    assert push.encoded(message)["z"] == packed_here(message["rows"])


def test_every_row_is_sent_when_the_whole_message_and_room_for_more_fit():
    # The message with every row, as published (compact JSON, its rows packed), plus 16 bytes for
    # `more`'s digits: exactly that budget sends every row; one byte less leaves some out.
    import json

    standings = {f"{n:08d}-aaaa-bbbb-cccc-dddddddddddd": (5_000 - n, 99, f"Racer {n}") for n in range(60)}
    race, boards = board(standings)
    whole = push.board_message(race, boards, set(standings), max_bytes=10**6, now=1_800_000_000)
    published = {key: value for key, value in whole.items() if key != "rows"} | {"z": packed_here(whole["rows"])}
    size = len(json.dumps(published, separators=(",", ":"), ensure_ascii=False).encode())
    fits = push.board_message(race, boards, set(standings), max_bytes=size + 16, now=1_800_000_000)
    assert len(fits["rows"]) == 60 and fits["more"] == 0
    short = push.board_message(race, boards, set(standings), max_bytes=size + 15, now=1_800_000_000)
    assert len(short["rows"]) < 60 and short["more"] == 60 - len(short["rows"])
