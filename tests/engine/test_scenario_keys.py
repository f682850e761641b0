"""Unknown keys in a scenario file are refused, never silently dropped (a typo such as
`[[unit]]` or `hexx = ` would otherwise lose data): the message names the key, where it is,
the closest known key and the line. The helper is shared by Battle Cry and TACW
(engine/core/scenario_files.py)."""
from __future__ import annotations

import re

import pytest

from engine.battlecry.scenario import SCENARIO_DIR, ScenarioError, load_scenario, parse_scenario
from engine.core.scenario_files import check_keys, key_line, key_lines
from engine.tacw.scenario.parse import _keys as tacw_keys

SHILOH = (SCENARIO_DIR / "shiloh.toml").read_text(encoding="utf-8")


def edit(text: str, old: str, new: str, nth: int = 1) -> str:
    """`text` with the nth occurrence of `old` replaced by `new`."""
    parts = text.split(old)
    assert len(parts) > nth, f"{old!r} occurs fewer than {nth} times"
    return old.join(parts[:nth]) + new + old.join(parts[nth:])


def line_of(text: str, needle: str) -> int:
    return text[:text.index(needle)].count("\n") + 1


def refused(text: str, *words: str) -> str:
    with pytest.raises(ScenarioError) as err:
        parse_scenario(text, source="club.toml")
    msg = str(err.value)
    for w in words:
        assert w in msg, f"{w!r} not in {msg!r}"
    assert len(re.findall(r"\(line \d+\)", msg)) == 1, msg
    return msg


def test_the_bundled_shiloh_still_loads():
    assert parse_scenario(SHILOH, "shiloh.toml").id == "shiloh"


def test_a_typod_table_name_is_refused_with_its_line():
    text = edit(SHILOH, "[[units]]", "[[unit]]", nth=3)
    refused(text, "club.toml [shiloh]: unknown key(s) unit", "did you mean 'units'?",
            "known: ", "field_works", f"(line {line_of(text, '[[unit]]')})")


def test_a_typod_unit_key_is_refused_naming_the_unit_and_its_line():
    # the 4th [[units]] entry: its `hex = ` becomes `hexx = `
    start = SHILOH.index("[[units]]")
    for _ in range(3):
        start = SHILOH.index("[[units]]", start + 1)
    at = SHILOH.index('hex = "', start)
    text = SHILOH[:at] + "hexx" + SHILOH[at + 3:]
    msg = refused(text, "club.toml [shiloh] units[3]: unknown key(s) hexx", "did you mean 'hex'?",
                  "known: figures, hex, id, kind, name, side, special",
                  f"(line {line_of(text, 'hexx = ')})")
    assert msg.endswith(")")


def test_an_unknown_top_level_key_is_refused_with_its_line():
    text = edit(SHILOH, "flags_to_win = 6", "flags_to_win = 6\nvictory_points = 3")
    refused(text, "club.toml [shiloh]: unknown key(s) victory_points", "known: date, description",
            f"(line {line_of(text, 'victory_points')})")


def test_a_misspelt_top_level_key_is_named_with_the_closest_one():
    text = edit(SHILOH, "first_player =", "first_playr =")
    refused(text, "unknown key(s) first_playr", "did you mean 'first_player'?",
            f"(line {line_of(text, 'first_playr')})")


@pytest.mark.parametrize("old, new, words, needle", [
    ("[sides.union]", "[sides.unoin]", ["club.toml [shiloh] sides: unknown key(s) unoin",
                                        "did you mean 'union'?"], "[sides.unoin]"),
    ("cards = ", "card = ", ["sides.union: unknown key(s) card", "did you mean 'cards'?",
                             "known: cards, commander, home_edge"], "card = "),
    ("[provenance]", "[provenance]\nsource = \"x\"",
     ["provenance: unknown key(s) source", "known: from_book, herald_completion, note"], "source ="),
    ("[provenance]", "[provenence]", ["unknown key(s) provenence", "did you mean 'provenance'?"],
     "[provenence]"),
])
def test_unknown_keys_in_the_other_tables(old, new, words, needle):
    text = edit(SHILOH, old, new)
    refused(text, *words, f"(line {line_of(text, needle)})")


def test_unknown_keys_of_fences_and_field_works():
    text = load_text("antietam")
    text = edit(text, "front = ", "fornt = ")
    refused(text, "fences[0]: unknown key(s) fornt", "did you mean 'front'?",
            f"(line {line_of(text, 'fornt')})")
    text = load_text("chickamauga")
    text = edit(text, "owner = ", "owner = \"union\"\nowne = ")
    refused(text, "field_works[0]: unknown key(s) owne", "did you mean 'owner'?",
            f"(line {line_of(text, 'owne =')})")


def test_several_unknown_keys_are_all_named_and_the_first_line_given():
    text = edit(SHILOH, 'hex = "', 'hexx = "', nth=1)
    text = edit(text, "kind = ", "knd = ", nth=1)
    msg = refused(text, "units[0]: unknown key(s) hexx, knd")
    assert "'hex' for 'hexx'" in msg and "'kind' for 'knd'" in msg
    first = min(line_of(text, "hexx"), line_of(text, "knd"))
    assert f"(line {first})" in msg


def test_unknown_terrain_and_special_rules_also_give_the_line():
    text = edit(SHILOH, "woods = ", "wods = ")
    refused(text, "unknown terrain 'wods'", "did you mean 'woods'?", f"(line {line_of(text, 'wods')})")
    text = edit(SHILOH, "[special]", "[special]\nfields_block_lose = false")
    refused(text, "special: unknown rule 'fields_block_lose'", "did you mean 'fields_block_los'?",
            f"(line {line_of(text, 'fields_block_lose')})")


def test_entries_that_are_not_tables_are_refused_clearly():
    text = edit(SHILOH, "flags_to_win = 6", 'flags_to_win = 6\nfences = "0101"')
    with pytest.raises(ScenarioError, match=r"fences: expected \[\[fences\]\] entries"):
        parse_scenario(text, "club.toml")
    text = edit(SHILOH, "flags_to_win = 6", "flags_to_win = 6\nfences = [1]")
    with pytest.raises(ScenarioError, match=r"fences\[0\]: expected a table, got 1"):
        parse_scenario(text, "club.toml")
    text = edit(SHILOH, "flags_to_win = 6", "flags_to_win = 6\nterrain = 3")
    text = edit(text, "[terrain]", "[provenance.extra]")
    with pytest.raises(ScenarioError, match=r"terrain: expected a table \(\[terrain\]\), got 3"):
        parse_scenario(text, "club.toml")


def load_text(scenario_id: str) -> str:
    load_scenario(scenario_id)                      # the bundled file itself is valid
    return (SCENARIO_DIR / f"{scenario_id}.toml").read_text(encoding="utf-8")


# -- the shared helper --------------------------------------------------------------------------

def test_check_keys_plain_message_is_tacws():
    with pytest.raises(ValueError) as err:
        check_keys({"b": 1, "a": 2, "x": 3}, {"x", "y"}, "f.toml [s] wings[0]", ValueError)
    assert str(err.value) == "f.toml [s] wings[0]: unknown key(s) a, b (known: x, y)"
    check_keys({"x": 1}, {"x", "y"}, "w", ValueError)           # nothing unknown: no error


def test_tacw_keys_message_is_unchanged():
    from engine.tacw.scenario.schema import ScenarioError as TacwError
    with pytest.raises(TacwError) as err:
        tacw_keys({"moral": 3, "side": "royalist"}, {"side", "morale"}, "e.toml [e] units[2]")
    assert str(err.value) == "e.toml [e] units[2]: unknown key(s) moral (known: morale, side)"


def test_key_lines_skips_strings_and_follows_tables():
    text = "\n".join([
        'id = "x"',                                   # 1
        'description = """',                          # 2
        'units = "not a key"',                        # 3
        '[[not_a_table]]"""',                         # 4
        'list = [',                                   # 5
        '  "a", # ] a comment',                       # 6
        '  "]",',                                     # 7
        ']',                                          # 8
        '[sides."union"]',                            # 9
        'cards = 3  # [',                             # 10
        '[[units]]',                                  # 11
        "side = 'union'",                             # 12
        '[[units]]',                                  # 13
        'hex.x = "0101"',                             # 14
        'areas = [',                                  # 15
        '  { id = "a", hexes = ["0101"] },',          # 16
        '  { id = "b", hexes = ["0102"] },',          # 17
        ']',                                          # 18
        'after = 1',                                  # 19
    ])
    index = key_lines(text)
    assert index["description"] == 2 and "units" not in {k for k, v in index.items() if v == 3}
    assert "not_a_table" not in index
    assert index["list"] == 5 and index["sides"] == 9 and index["sides.union"] == 9
    assert index["sides.union.cards"] == 10
    assert index["units"] == 11 and index["units[0]"] == 11 and index["units[0].side"] == 12
    assert index["units[1]"] == 13 and index["units[1].hex"] == 14 and index["units[1].hex.x"] == 14
    assert index["units[1].areas[1]"] == 17 and index["units[1].areas[1].hexes"] == 17
    assert index["units[1].after"] == 19
    assert key_line(text, "units[1].hexx") == 13                 # falls back to the entry
    assert key_line(text, "units[1].hexx", exact=True) is None
    assert key_line(text, "nothing") is None
