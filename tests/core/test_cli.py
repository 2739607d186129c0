"""The score command's contract: python -m companion score HAND.json [--json]."""

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from companion.handfile import MAX_SCORE

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "companion" / "schemas" / "hand.schema.json").read_text())
EXAMPLE = ROOT / "datasets" / "hands" / "example_modern.json"


def run(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "companion", "score", *args], input=stdin,
                          capture_output=True, text=True, cwd=ROOT)


def test_json_output_follows_the_contract():
    result = run(str(EXAMPLE), "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert set(report) == {"variant", "teams", "game_over", "winner"}
    for team in ("A", "B"):
        t = report["teams"][team]
        assert set(t) == {"total", "lines", "score_before", "score_after", "next_minimum"}
        assert t["total"] == sum(line["points"] for line in t["lines"])
        assert t["score_after"] == t["score_before"] + t["total"]


def test_readable_output():
    result = run(str(EXAMPLE))
    assert result.returncode == 0
    assert "Team A" in result.stdout and "hand total" in result.stdout


def test_example_hand_files_match_the_schema():
    for path in (ROOT / "datasets" / "hands").glob("*.json"):
        jsonschema.validate(json.loads(path.read_text()), SCHEMA)


KINGS = ["KH", "KS", "KD"]


@pytest.mark.parametrize("data, field", [
    ({"teams": {"A": {"melds": [["KH"] * 9]}, "B": {}}}, "teams"),                         # 9 × KH: breaks the pack
    ({"teams": {"A": {"melds": [["JK"] * 5]}, "B": {}}}, "teams"),                         # 5 jokers
    ({"teams": {"A": {"melds": [["KH", "QH", "JH"]]}, "B": {}}}, "teams.A.melds[0]"),      # mixed ranks
    ({"teams": {"A": {"melds": [["KH", "KS", "KD", "KC", "KH", "KS", "KD", "KC"]]}, "B": {}}}, "teams.A.melds[0]"),
    ({"teams": {"A": {"melds": [["KH", "KS", "XX"]]}, "B": {}}}, "teams.A.melds[0][2]"),   # unknown card
    ({"teams": {"A": {"threes": ["KH"]}, "B": {}}}, "teams.A.threes[0]"),
    ({"teams": {"A": {"score_before": "lots"}, "B": {}}}, "teams.A.score_before"),
    ({"teams": {"A": {"score_before": 10 ** 29}, "B": {}}}, "teams.A.score_before"),    # no game reaches it
    ({"teams": {"A": {}, "B": {"score_before": -1_000_001}}}, "teams.B.score_before"),
    ({"teams": {"C": {}}}, "teams.C"),
    ({"teams": {"A": {}, "B": {}}, "went_out": "C"}, "went_out"),
    ({"teams": {"A": {}, "B": {}}, "variant": "samba"}, "variant"),
    ({"teams": {"A": {}, "B": {}}, "table_rules": {"wild_card_threshold": 7}}, "table_rules.wild_card_threshold"),
    ({"teams": {"A": {"special_hand": "royal"}, "B": {}}}, "teams.A.special_hand"),
    ({"teams": {"A": {"melds": "KH KS KD"}, "B": {}}}, "teams.A.melds"),
    ([1, 2], "hand file"),
])
def test_bad_hands_exit_2_with_one_line_naming_the_field(tmp_path, data, field):
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(data))
    result = run(str(path), "--json")
    assert result.returncode == 2
    assert result.stdout == ""
    message = result.stderr.strip()
    assert "\n" not in message and "Traceback" not in message
    assert field in message


@pytest.mark.parametrize("content, words", [
    ("{not json", "not valid JSON"), ("", "not valid JSON"),
    ("[" * 100_000, "nested too deeply"), ('{"teams": ' + "9" * 5000 + "}", "not a hand file"),
])
def test_malformed_json(tmp_path, content, words):
    path = tmp_path / "hand.json"
    path.write_text(content)
    result = run(str(path))
    assert result.returncode == 2 and words in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16"])
def test_a_hand_file_saved_with_a_byte_order_mark_is_read(tmp_path, encoding):
    """Windows Notepad writes a byte-order mark first ("UTF-8 with BOM", "Unicode")."""
    path = tmp_path / "hand.json"
    path.write_bytes(EXAMPLE.read_text().encode(encoding))
    result = run(str(path), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == json.loads(run(str(EXAMPLE), "--json").stdout)


def test_a_file_too_large_for_a_hand_is_refused_in_one_line(tmp_path):
    padded = tmp_path / "padded.json"  # a valid hand, padded with 24 MB of spaces
    padded.write_text(EXAMPLE.read_text() + " " * 24_000_000)
    for path in (str(padded), "/dev/zero"):
        result = run(path)
        assert result.returncode == 2 and result.stderr == (f"canasta-score: {path}: too large for a hand file "
                                                            "(over 2 MB; a hand is a few kB)\n")
    assert run("-", stdin=" " * 3_000_000).stderr.startswith("canasta-score: -: too large for a hand file")


def test_the_schema_bounds_score_before_as_the_scorer_does():
    bounds = SCHEMA["$defs"]["team"]["properties"]["score_before"]
    assert bounds["maximum"] == -bounds["minimum"] == MAX_SCORE


def test_missing_file_and_stdin(tmp_path):
    result = run(str(tmp_path / "nope.json"))
    assert result.returncode == 2 and "can't read" in result.stderr
    result = run("-", "--json", stdin=EXAMPLE.read_text())
    assert result.returncode == 0 and json.loads(result.stdout)["variant"] == "modern"
