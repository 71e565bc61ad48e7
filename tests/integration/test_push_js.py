"""The race page's merge of a pushed message into its board (frontend/src/push.js), run in Node, and
its order, the twin of alleycat.rules.board's."""

import json
import random
import uuid
from decimal import Decimal

import pytest

from alleycat.rules.board import Board, Standing
from alleycat.rules.scores import number

from .nodejs import FRONTEND, imported, package, printed, run


def with_push(tmp_path, body):
    """What the async function ``body`` returns, with frontend/src/push.js as ``push``."""
    return run(imported(package(tmp_path, [FRONTEND / "push.js"]), push="push.js"), printed(body))


def apply(tmp_path, items, message):
    return with_push(tmp_path, f"return push.applyBoardMessage({json.dumps(items)}, {json.dumps(message)});")


def item(rank, racer, score, last, name=None):
    return {"rank": rank, "racerId": racer, "name": name or racer.upper(), "score": score, "lastSecond": last}


def test_a_message_moves_rows_forwards_and_ranks_the_board_again(tmp_path):
    items = [item(1, "a", 30, 2), item(2, "b", 20, 2), item(3, "c", 10, 2)]
    result = apply(tmp_path, items, {"rows": [[1, "a", 31, 3, "A"], [2, "c", 40, 3]]})
    assert [(row["racerId"], row["rank"], row["score"], row["lastSecond"]) for row in result["items"]] == [
        ("c", 1, 40, 3), ("a", 2, 31, 3), ("b", 3, 20, 2)]
    assert result["unknown"] is False


def test_an_older_message_never_rewinds_a_row(tmp_path):
    items = [item(1, "a", 30, 5)]
    result = apply(tmp_path, items, {"rows": [[1, "a", 20, 4, "A"]]})
    assert (result["items"][0]["score"], result["items"][0]["lastSecond"]) == (30, 5)


def test_ties_are_broken_by_racer_id_as_the_server_does(tmp_path):
    items = [item(1, "b", 10, 1), item(2, "a", 9, 1)]
    result = apply(tmp_path, items, {"rows": [[1, "a", 10, 2]]})
    assert [row["racerId"] for row in result["items"]] == ["a", "b"]


def test_a_racer_the_board_lacks_is_added_with_its_name_or_flagged(tmp_path):
    items = [item(1, "a", 30, 2)]
    added = apply(tmp_path, items, {"rows": [[1, "n", 50, 2, "New"]]})
    assert [(row["racerId"], row["rank"], row["name"]) for row in added["items"]] == [("n", 1, "New"), ("a", 2, "A")]
    flagged = apply(tmp_path, items, {"rows": [[40, "far", 1, 2]]})
    assert flagged["unknown"] is True and [row["racerId"] for row in flagged["items"]] == ["a"]


def test_a_row_held_beyond_the_top_block_keeps_its_servers_rank(tmp_path):
    # Given the top two and a racer's own row far down the board
    items = [item(1, "a", 30, 2), item(2, "b", 20, 2), item(57, "me", 5, 2)]
    # When a message moves the racer up to 41
    result = apply(tmp_path, items, {"rows": [[1, "a", 31, 3, "A"], [41, "me", 8, 3]]})
    # Then the top is ranked by position, and the own row takes the message's rank
    assert [(row["racerId"], row["rank"]) for row in result["items"]] == [("a", 1), ("b", 2), ("me", 41)]


def test_v3_rows_carry_equipment_and_review_and_a_disqualified_ride_has_no_rank(tmp_path):
    # Given a board of three, as read over HTTP
    items = [dict(item(1, "a", 30, 2), equipment="bike", review=None), dict(item(2, "b", 20, 2), equipment="virtual", review=None),
             dict(item(3, "c", 10, 2), equipment="trainer", review=None)]
    # When a v3 message puts a under review and disqualifies b (the same second: a decision), and adds n
    message = {"v": 3, "rows": [[1, "a", 31, 3, "bike", "pending", "A"], [None, "b", 20, 2, "virtual", "disqualified"],
                                [2, "n", 25, 3, "trainer", None, "New"]]}
    result = apply(tmp_path, items, message)
    # Then each row has its equipment and review; the disqualified ride comes last, without a rank
    assert [(row["racerId"], row["rank"], row["equipment"], row["review"]) for row in result["items"]] == [
        ("a", 1, "bike", "pending"), ("n", 2, "trainer", None), ("c", 3, "trainer", None), ("b", None, "virtual", "disqualified")]
    assert result["items"][1]["name"] == "New" and result["unknown"] is False
    # And a later clear gives it its rank back
    cleared = apply(tmp_path, result["items"], {"v": 3, "rows": [[2, "b", 20, 2, "virtual", "cleared"]]})
    assert [(row["racerId"], row["rank"], row["review"]) for row in cleared["items"]] == [
        ("a", 1, "pending"), ("n", 2, None), ("b", 3, "cleared"), ("c", 4, None)]


def test_v2_rows_are_still_read_and_keep_what_the_row_knew(tmp_path):
    items = [dict(item(1, "a", 30, 2), equipment="trainer", review="pending")]
    # A v2 row: [rank, racerId, score, lastSecond, name?] (its fifth value is the name, not the equipment)
    result = apply(tmp_path, items, {"v": 2, "rows": [[1, "a", 40, 3, "Amy"], [2, "z", 1, 3, "Zed"]]})
    assert [(row["racerId"], row["name"], row["score"], row.get("equipment"), row.get("review")) for row in result["items"]] == [
        ("a", "Amy", 40, "trainer", "pending"), ("z", "Zed", 1, None, None)]


def test_message_rows_read_both_shapes_and_the_last_rank_skips_a_disqualified_row(tmp_path):
    read = with_push(tmp_path, """
      const v3 = {v: 3, rows: [[1, "a", 5, 2, "bike", null, "A"], [7, "b", 4, 2, "virtual", "pending"], [null, "c", 9, 2, "bike", "disqualified"]]};
      const v2 = {v: 2, rows: [[1, "a", 5, 2, "A"], [4, "b", 4, 2]]};
      return { v3: push.messageRows(v3), v2: push.messageRows(v2), last3: push.lastRankOf(v3), last2: push.lastRankOf(v2) };""")
    assert read["v3"] == [
        {"rank": 1, "racerId": "a", "score": 5, "lastSecond": 2, "equipment": "bike", "review": None, "name": "A"},
        {"rank": 7, "racerId": "b", "score": 4, "lastSecond": 2, "equipment": "virtual", "review": "pending"},
        {"rank": None, "racerId": "c", "score": 9, "lastSecond": 2, "equipment": "bike", "review": "disqualified"}]
    assert read["v2"] == [{"rank": 1, "racerId": "a", "score": 5, "lastSecond": 2, "name": "A"},
                          {"rank": 4, "racerId": "b", "score": 4, "lastSecond": 2}]
    assert (read["last3"], read["last2"]) == (7, 4)


def board_rows(seed: int, racers: int = 300) -> list:
    """A race board with many ties (few distinct scores, four decimals), racer ids that sort
    differently by locale than by code point, and reviews (a disqualified ride comes last)."""
    rng = random.Random(seed)
    scores = [Decimal(rng.randrange(0, 4000)) / 10000 * rng.choice([1, 10, 1000]) for _ in range(12)]
    ids = {rng.choice(["", "A", "a", "Z", "_", "-", "0"]) + f"{rng.randrange(1000):x}" + rng.choice(["", "b", "B"])
           for _ in range(racers)}
    return [Standing(racer_id, rng.choice(scores), rng.randrange(60), racer_id.upper(), rng.choice(["bike", "trainer", "virtual"]),
                     rng.choice([None, None, None, "pending", "cleared", "disqualified"])) for racer_id in ids]


@pytest.mark.parametrize("seed", range(5))
def test_the_frontend_orders_a_board_as_the_board_module_does(tmp_path, seed):
    # Given a board with ties, ranked by alleycat.rules.board
    standings = board_rows(seed)
    ranked = Board(standings).ranked()
    shuffled = random.Random(seed).sample(standings, len(standings))
    rows = [{"racerId": s.racer_id, "score": number(s.score), "review": s.review} for s in shuffled]
    # When the frontend sorts the same rows (its order) and merges them as one v3 message into an empty board
    message = {"v": 3, "rows": [[n, s.racer_id, number(s.score), s.last_second, s.equipment, s.review, s.name]
                                for n, s in enumerate(shuffled, 1)]}
    orders = with_push(tmp_path, f"const sorted = {json.dumps(rows)}.sort(push.byBoardOrder).map((row) => row.racerId);"
                                 f"const merged = push.applyBoardMessage([], {json.dumps(message)}).items.map((row) => row.racerId);"
                                 "return { sorted, merged };")
    # Then both are the contract's order, the board module's too: the highest score first, a tie by racerId
    # (code points), a disqualified ride last, ties included
    expected = [s.racer_id for s in sorted(standings, key=lambda s: (s.review == "disqualified", -s.score, s.racer_id))]
    assert len({s.score for s in standings}) < len(standings) / 10  # ties, many
    assert orders["sorted"] == expected and orders["merged"] == expected
    assert [s.racer_id for s in ranked] == expected
    assert any(s.review == "disqualified" for s in standings) and not ranked[-1].ranked


def test_the_page_reads_a_v4_message_of_a_1000_racer_board_into_the_rows_it_holds(tmp_path):
    # Given a 1,000-racer board with Cognito ids and non-ASCII names, every row changed, two racers sharing a
    # key, as the ticker publishes it after a first message (its top named before)
    from alleycat.edge import push
    from alleycat.storage import entities as e

    rng = random.Random(3)
    racers = [*colliding_pair(), "Zoë-ŧ", *(str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(997))]
    shards = {}
    for n, racer in enumerate(racers):
        shard = e.RaceBoard.shard_of(racer)
        shards.setdefault(shard, e.RaceBoard("R1", shard)).standings[racer] = [
            Decimal(900_000 - n * 7 - rng.randrange(7)) / 10000 * 7, 120 - (n == 5), f"Zoë Ångström {n}",
            "trainer" if n == 4 else "bike", "pending" if n == 3 else None]
    boards = list(shards.values())
    ranked = Board.from_shards(boards)
    held = [{"rank": rank, "racerId": s.racer_id, "name": s.name, "score": 0, "lastSecond": 0, "equipment": s.equipment,
             "review": None} for rank, s in ranked.page(100)]  # the page's first read: the top 100, behind
    message = push.board_message("R1", boards, set(racers), top_before=push.top_racers(boards) - {racers[0]})
    sent = push.encoded(message)
    assert len(json.dumps(sent, separators=(",", ":"), ensure_ascii=False).encode()) <= push.MAX_MESSAGE_BYTES
    # When the page decodes it and merges it into the rows it holds
    read = with_push(tmp_path, f"""
      const decoded = await push.decodeMessage({json.dumps(sent)});
      const merged = push.applyBoardMessage({json.dumps(held)}, decoded, 100);
      const unshown = push.applyBoardMessage({json.dumps(held)}, decoded);
      return {{ decoded, merged, unshown: unshown.unknown, keys: {json.dumps(racers[:3])}.map(push.keyOf) }};""")
    # Then it has the rows the ticker chose, and every held row is the board's: rank, name, score, second
    assert read["decoded"]["rows"] == json.loads(json.dumps(message["rows"])) and len(message["rows"]) >= 100
    assert read["keys"] == [push.key(racer) for racer in racers[:3]]  # the same key in both (UTF-8)
    # And rows ranked below the 100 it shows are no reason to read the board again; with all shown they are
    assert read["merged"]["unknown"] is False and read["unshown"] is (len(message["rows"]) > 100) is True
    board_rows = {s.racer_id: (rank, s.name, number(s.score), s.last_second, s.equipment, s.review) for rank, s in ranked.page(100)}
    assert {row["racerId"]: (row["rank"], row["name"], row["score"], row["lastSecond"], row["equipment"], row["review"])
            for row in read["merged"]["items"]} == board_rows
    # And a message without rows compressed (version 1) is taken as it is
    assert with_push(tmp_path, 'return push.decodeMessage({"v": 1, "rows": [[1, "a", 2, 3]]});')["rows"] == [[1, "a", 2, 3]]


def colliding_pair() -> tuple[str, str]:
    """Two Cognito-shaped ids with the same message key (``push.key``), found by search."""
    from alleycat.edge import push

    rng, seen = random.Random(11), {}
    while True:
        racer = str(uuid.UUID(int=rng.getrandbits(128)))
        if seen.setdefault(push.key(racer), racer) != racer:
            return seen[push.key(racer)], racer


def test_a_v4_key_no_held_racer_has_or_two_share_is_unknown_and_an_id_with_a_name_is_added(tmp_path):
    from alleycat.edge import push

    first, second = colliding_pair()
    items = [item(1, "a", 30, 2), item(2, "b", 20, 2)]
    read = with_push(tmp_path, f"""
      const items = {json.dumps(items)};
      const both = [...items, {json.dumps(item(3, first, 10, 2))}, {json.dumps(item(4, second, 9, 2))}];
      const stranger = {{v: 4, rows: [[1, {push.key("zz") ^ 1}, 40, 3]]}};
      const named = {{v: 4, rows: [[1, ["n", "New"], 50, 3], [2, {push.key("a")}, 31, 3]]}};
      const shared = {{v: 4, rows: [[1, {push.key(first)}, 99, 3]]}};
      return {{ stranger: push.applyBoardMessage(items, stranger), named: push.applyBoardMessage(items, named),
               shared: push.applyBoardMessage(both, shared) }};""")
    assert read["stranger"]["unknown"] is True and [row["score"] for row in read["stranger"]["items"]] == [30, 20]
    assert [(row["racerId"], row["rank"], row["name"], row["score"]) for row in read["named"]["items"]] == [
        ("n", 1, "New", 50), ("a", 2, "A", 31), ("b", 3, "B", 20)]
    assert read["named"]["unknown"] is False
    assert read["shared"]["unknown"] is True and [row["score"] for row in read["shared"]["items"]] == [30, 20, 10, 9]
