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


def test_message_has_the_top_rows_with_names_then_the_changed_racers_in_board_order():
    # Given a board of 30 racers (ties broken by racerId, as the leaderboard route does)
    standings = {f"r{n:02d}": (1000 - n * 10 + (5 if n == 20 else 0), 41, f"Rider {n}") for n in range(30)}
    standings["r29"] = (990, 41, "Rider 29")  # ties with r01
    race, boards = board(standings)
    # When two racers below the top ten changed in this invocation
    message = push.board_message(race, boards, {"r25", "r15"}, now=1_800_000_000)
    # Then the rows are the top ten, each with its name, then the changed racers with their ranks
    ranks = [row[0] for row in message["rows"]]
    assert ranks == list(range(1, 11)) + [17, 27]  # r29 ranks third
    assert message["rows"][1] == [2, "r01", 990, 41, "bike", None, "Rider 1"]
    assert message["rows"][2][1] == "r29"
    assert message["rows"][10] == [17, "r15", 850, 41, "bike", None]  # no name below the top
    assert (message["raceId"], message["status"], message["racers"], message["more"]) == (RACE, "open", 30, 0)
    assert message["at"] == 1_800_000_000_000


def test_scores_are_rounded_like_the_leaderboard_route():
    race, boards = board({"a": (Decimal("123.456789"), 3, "A")})
    assert push.board_message(race, boards, {"a"})["rows"] == [[1, "a", 123.4568, 3, "bike", None, "A"]]


def test_a_full_board_of_changes_stays_within_the_message_budget_and_says_how_many_it_left_out():
    # Given 1,000 racers with Cognito-sized ids, every one of them changed in this invocation
    standings = {f"{n:08d}-aaaa-bbbb-cccc-dddddddddddd": (50_000 - n, 299, f"Racer number {n}") for n in range(1000)}
    race, boards = board(standings)
    message = push.board_message(race, boards, set(standings))
    # Then the message is at most the budget (one metered AppSync operation per delivery)
    assert size(message) <= push.MAX_MESSAGE_BYTES
    # And the rows are the best ranks, contiguous from the top; `more` counts the changed racers left out
    sent = len(message["rows"])
    assert [row[0] for row in message["rows"]] == list(range(1, sent + 1))
    assert 50 < sent < 1000 and message["more"] == 1000 - sent


def test_a_hundred_racer_race_fits_whole_with_cognito_sized_ids():
    rng = random.Random(5)
    standings = {str(uuid.UUID(int=rng.getrandbits(128))): (10_000 + n * 7.1234, 120, f"Firstname Lastname{n}")
                 for n in range(1, 101)}
    race, boards = board(standings)
    message = push.board_message(race, boards, set(standings))
    assert len(message["rows"]) == 100 and message["more"] == 0
    assert size(message) <= push.MAX_MESSAGE_BYTES


def test_the_rows_are_sent_compressed_and_read_back_as_they_were():
    race, boards = board({f"r{n:02d}": (1000 - n, 41, f"Rider {n}") for n in range(30)})
    message = push.board_message(race, boards, {"r25"}, now=1_800_000_000)
    sent = push.encoded(message)
    assert "rows" not in sent and sent["v"] == 3 and push.decoded(sent) == message
    assert push.encoded({"n": 1}) == {"n": 1}  # not a board message: as it is


def test_an_unchanged_board_still_sends_its_top_rows():
    race, boards = board({f"r{n}": (n, 1, "x") for n in range(20)})
    assert [row[0] for row in push.board_message(race, boards, set())["rows"]] == list(range(1, 11))


def test_finished_message_carries_no_rows():
    message = push.finished_message(RACE)
    assert (message["status"], message["rows"], message["raceId"]) == ("finished", [], RACE)


def test_finished_message_is_the_whole_shape_viewers_read():
    # docs/push.md: {"status": "finished", "rows": []}, in the board message's shape, v3, at in milliseconds
    assert push.finished_message(RACE, now=1_800_000_000.25) == {
        "v": 3, "raceId": RACE, "status": "finished", "racers": None, "at": 1_800_000_000_250, "rows": [], "more": 0}


def test_a_board_message_has_exactly_the_fields_of_docs_push_md():
    race, boards = board({"a": (5, 3, "A")})
    message = push.board_message(race, boards, {"a"}, now=1_800_000_000)
    assert set(message) == {"v", "raceId", "status", "racers", "at", "rows", "more"}
    assert set(push.encoded(message)) == {"v", "raceId", "status", "racers", "at", "more", "z"}


def packed_here(rows) -> str:
    """docs/push.md: `z` is the rows as compact JSON, gzip-compressed, base64; the gzip header with
    MTIME 0 (RFC 1952: no time stamp), so the same rows are the same bytes."""
    import base64
    import gzip
    import json

    compact = json.dumps(rows, separators=(",", ":"), ensure_ascii=False).encode()
    return base64.b64encode(gzip.compress(compact, mtime=0)).decode()


def test_the_rows_are_compact_json_gzipped_with_no_time_stamp():
    race, boards = board({"a": (5, 3, "Zoë Ŧ"), "b": (4, 3, "B")})
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
