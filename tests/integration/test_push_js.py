"""The race page's merge of a pushed message into its board (frontend/src/push.js), run in Node."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NODE_PATH = subprocess.run([str(ROOT / "tools" / "node-path"), "--path"], capture_output=True, text=True).stdout.strip()
NODE = shutil.which("node", path=NODE_PATH or None)

pytestmark = pytest.mark.skipif(NODE is None, reason="no Node (make installs one)")


def apply(tmp_path, items, message):
    module = tmp_path / "push.mjs"
    module.write_text((ROOT / "frontend" / "src" / "push.js").read_text())
    script = (f"import {{ applyBoardMessage }} from {json.dumps(module.as_uri())};\n"
              f"console.log(JSON.stringify(applyBoardMessage({json.dumps(items)}, {json.dumps(message)})));")
    done = subprocess.run([NODE, "--input-type=module", "-e", script], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


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
