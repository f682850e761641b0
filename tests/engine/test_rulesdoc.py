"""The rules index behind /rules (engine/core/rulesdoc.py, engine/battlecry/rules_index.toml, and
the TACW index when it exists) and the /explain formatting and redaction (engine/core/explain.py,
engine/tacw/hidden.py)."""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from tests.engine.coverage import RULES_DIR

from engine.core import explain, rulesdoc
from engine.core.commands import parse
from engine.core.events import DieRoll, Event, Modifier
from engine.core.game import get_ruleset

ROOT = Path(__file__).resolve().parents[2]
RULES = RULES_DIR
BC_INDEX = ROOT / "engine" / "battlecry" / "rules_index.toml"
TACW_INDEX = ROOT / "engine" / "tacw" / "rules_index.toml"


@pytest.fixture(scope="module")
def bc():
    return rulesdoc.load_index("battlecry")


@pytest.fixture(scope="module")
def all_tests():
    return rulesdoc.scan_tests()


def ids(matches):
    return [m.section.id for m in matches]


# == the Battle Cry index =========================================================================

# Every section of the book as Herald numbers it (the digest's map of the unnumbered Italian text,
# plus the parts the engine cites below a number: cards, retreat rules, terrains, scenarios).
BOOK_SECTIONS = (["1", "2", "2.1", "2.2", "2.3", "2.4", "3", "3.1", "3.2", "4", "4.1", "4.2", "4.3", "4.4",
                  "4.4.1", "4.4.2", "4.4.3", "4.5", "4.6", "4.7", "4.8", "4.9", "5", "5.1", "5.2", "5.3",
                  "6", "6 campaign", "6 balancing", "7", "3.2 step 1", "3.2 step 2", "3.2 step 6",
                  "4.6 exception 1", "4.6 exception 2", "4.6 rule 6", "4.6 rule 7", "4.6 rule 8"]
                 + [f"2.4 card {n}" for n in range(1, 18)]
                 + [f"7 scenario {n}" for n in range(1, 16)]
                 + [f"2.3 {t}" for t in ("woods", "orchard", "hill", "field", "building", "rough", "river",
                                         "bridge", "fence", "field-works")])


def test_battlecry_index_is_valid_complete_and_every_test_prefix_finds_tests(bc, all_tests):
    assert bc is not None and bc.ruleset == "battlecry" and bc.cite == "BC"
    assert rulesdoc.validate(bc, rulesdoc.load_decisions("battlecry"), all_tests) == []
    listed = [s.id for s in bc.sections]
    assert len(listed) == len(set(listed))
    assert set(BOOK_SECTIONS) <= set(listed), sorted(set(BOOK_SECTIONS) - set(listed))
    for s in bc.sections:
        sentences = len(re.findall(r"[.!?](?:\s|$)", s.summary))
        assert 1 <= sentences <= 6 and len(s.summary) <= 900, s.id
        assert s.keywords, s.id
    # the card and scenario entries name what the book names
    assert bc.get("2.4 card 15").title == "Sharp Shooter"
    assert "Antietam" in bc.get("7 scenario 7").title and "Shiloh" in bc.get("7 scenario 4").title


def test_every_section_the_battle_cry_engine_cites_is_listed(bc):
    """An /explain reader can look up every citation an event or a refusal carries."""
    cited = set()
    for f in list((ROOT / "engine" / "battlecry").glob("*.py")) + list((ROOT / "engine" / "battlecry" / "scenarios").glob("*.toml")):
        cited |= set(re.findall(r"BC §\d[\d.]*(?: (?:card|rule|step|scenario|exception)s? \d+)?", f.read_text()))
    assert len(cited) > 30
    missing = [c for c in sorted(cited) if bc.section_for(c) is None]
    assert missing == []
    assert bc.section_for("BC §2.4 card 14").title == "Rally"
    assert bc.section_for("BC §3.2 (HERALD: empty deck)").id == "3.2 step 6"     # the words pick the step
    assert bc.section_for("DESIGN pending decisions") is None


def test_summaries_are_our_own_words_not_the_books_or_the_digests(bc):
    """No run of 8 words is shared with the Italian rulebook or with the English digest."""
    if not (RULES / "battle-cry.it.txt").is_file():
        pytest.skip(f"the rulebooks are not beside the repository ({RULES}); set HERALD_RULES_DIR")

    def grams(text: str) -> set[tuple[str, ...]]:
        w = re.findall(r"[a-zà-ù0-9']+", text.lower())
        return {tuple(w[i:i + 8]) for i in range(len(w) - 7)}
    book = grams((RULES / "battle-cry.it.txt").read_text(encoding="utf-8"))
    digest = grams((RULES / "digests" / "battle-cry.md").read_text(encoding="utf-8"))
    for s in bc.sections:
        for text in (s.summary, *s.decisions):
            shared = grams(text) & (book | digest)
            assert not shared, (s.id, [" ".join(g) for g in shared][:3])


def test_lookup_by_number_citation_nearest_and_words(bc):
    assert ids(bc.lookup("4.6")) == ids(bc.lookup("§4.6")) == ids(bc.lookup("BC §4.6")) == ["4.6"]
    assert bc.lookup("4.6")[0].how == "number"
    assert ids(bc.lookup("BC §4.6 rule 7")) == ["4.6 rule 7"]
    assert ids(bc.lookup("2.4 card 5")) == ["2.4 card 5"]
    # the words after a number choose among its subsections
    assert ids(bc.lookup("BC §7 (Antietam: no retreat across the creek)")) == ["7 scenario 7"]
    assert ids(bc.lookup("BC §7 Fredericksburg")) == ["7 scenario 8"]
    assert ids(bc.lookup("BC §2.3 target in woods")) == ["2.3 woods"]
    # a number the book does not list: the nearest enclosing section, said so
    near = bc.lookup("4.6 rule 99")
    assert ids(near) == ["4.6"] and near[0].how == "nearest"
    assert bc.lookup("4.4.9")[0].section.id == "4.4" and bc.lookup("4.4.9")[0].how == "nearest"
    assert bc.lookup("9") == [] and bc.lookup("   ") == []
    # words, best first
    assert ids(bc.lookup("retreat"))[0] == "4.6"
    assert ids(bc.lookup("retreats"))[0] == "4.6"                   # plurals fold
    assert ids(bc.lookup("sharp shooter"))[0] == "2.4 card 15"
    assert {"7 scenario 8", "7 scenario 14"} <= set(ids(bc.lookup("horse artillery"))[:3])
    assert ids(bc.lookup("line of sight"))[0] == "4.4.2"
    assert ids(bc.lookup("how do I kill a general"))[0] == "4.7"
    assert ids(bc.lookup("Shiloh"))[0] == "7 scenario 4"
    assert bc.lookup("zeppelin") == []


def test_autocomplete_by_number_prefix_then_words(bc):
    assert [s.id for s in bc.complete("4.4")] == ["4.4", "4.4.1", "4.4.2", "4.4.3"]
    assert [s.id for s in bc.complete("§2.4 card 1")][:3] == ["2.4 card 1", "2.4 card 10", "2.4 card 11"]
    assert bc.complete("rally")[0].id == "2.4 card 14"
    assert len(bc.complete("")) == 25


def test_answer_shows_summary_decisions_tests_and_subsections():
    text = rulesdoc.answer("battlecry", "4.6", ruleset=get_ruleset("battlecry"))
    assert text.startswith("**BC §4.6 — Retreats** (Battle Cry)")
    assert "toward the owner's own edge" in text                                  # a decision
    assert "tests/engine/test_battlecry_combat.py::test_bc_4_6_faq_last_row_retreat_eliminates" in text
    assert "§4.6 rule 7 — A retreat that cannot be made" in text                      # see also
    near = rulesdoc.answer("battlecry", "4.6 rule 99", markdown=False)
    assert near.startswith("(no section '4.6 rule 99' is listed; the nearest is below)")
    with pytest.raises(LookupError, match="nothing in the battlecry rules index matches 'zeppelin'"):
        rulesdoc.answer("battlecry", "zeppelin")
    # no tests directory (a deployed bot): no tests shown, the rest as usual
    bare = rulesdoc.answer("battlecry", "4.6", tests_root=ROOT / "no-such-dir")
    assert "Checked by the tests" not in bare and "toward the owner's own edge" in bare


def test_command_line_entry_point(capsys):
    assert rulesdoc.main(["battlecry", "2.4", "card", "14"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("BC §2.4 card 14 — Rally") and "**" not in out
    assert rulesdoc.main(["battlecry", "zeppelin"]) == 1
    assert rulesdoc.main(["battlecry"]) == 2


# == loading, validation, decisions, tests ========================================================

GOOD = """
ruleset = "demo"
[[sections]]
id = "1.2"
title = "Marching"
summary = "Troops march."
decisions = ["D2", "free text"]
keywords = ["march"]
test_prefixes = ["test_demo_1_2", "march"]
"""


def test_parse_errors_name_the_file_and_the_section():
    idx = rulesdoc.parse_index(GOOD, "demo.toml", ruleset="demo")
    assert idx.cite == "DEMO" and idx.get("1.2").decisions == ("D2", "free text")
    bad = [
        ("ruleset = 'demo'\n[[sections]]\nid = 'x'\n", "section 'x': `title` missing"),
        (GOOD + "[[sections]]\nid = '1.2'\ntitle = 't'\nsummary = 's'\n", "section '1.2': id used twice"),
        (GOOD.replace('"demo"', '"other"'), "`ruleset` is 'other', expected 'demo'"),
        (GOOD.replace('id = "1.2"', 'id = "§1.2"'), "write the id without §"),
        (GOOD.replace('keywords = ["march"]', 'keywords = "march"'), "keywords: must be a list of strings"),
        ("ruleset = 'demo'\n[[sections]\n", "TOML syntax"),
        ("ruleset = 'demo'\n", "no [[sections]]"),
    ]
    for text, words in bad:
        with pytest.raises(rulesdoc.RulesIndexError) as exc:
            rulesdoc.parse_index(text, "demo.toml", ruleset="demo")
        assert str(exc.value).startswith("demo.toml: ") and words in str(exc.value), (words, str(exc.value))


def test_validate_reports_unknown_keys_missing_decisions_and_prefixes_without_tests():
    idx = rulesdoc.parse_index(GOOD.replace('title = "Marching"', 'title = "Marching"\ncolour = "red"'), "d.toml")
    tests = [rulesdoc.TestRef("tests/engine/test_demo_rules.py", "test_demo_1_2_marching"),
             rulesdoc.TestRef("tests/engine/test_other.py", "test_forced_march")]
    decisions = rulesdoc.parse_decisions("**D2 — Marching order (§1.2).** Columns first.\n")
    assert rulesdoc.validate(idx, decisions, tests) == ["d.toml: unknown section '1.2': key `colour`"]
    problems = rulesdoc.validate(idx, {}, tests[1:])
    assert "section '1.2': D2 is not in DECISIONS.md" in problems
    assert "section '1.2': test prefix 'test_demo_1_2' matches no test" in problems
    # 'march' is a word: it matches inside names, in the ruleset's own test files only
    assert "section '1.2': test prefix 'march' matches no test" in problems


def test_match_tests_prefixes_everywhere_words_in_the_rulesets_own_files():
    tests = [rulesdoc.TestRef("tests/engine/test_battlecry_combat.py", "test_bc_4_6_retreat"),
             rulesdoc.TestRef("tests/engine/test_tacw_retreat.py", "test_10_4_retreat_hexes"),
             rulesdoc.TestRef("tests/bot/test_play.py", "test_bc_4_6_by_slash_command")]
    assert [t.name for t in rulesdoc.match_tests(["test_bc_4_6"], tests, "battlecry")] == \
        ["test_bc_4_6_retreat", "test_bc_4_6_by_slash_command"]
    assert [t.name for t in rulesdoc.match_tests(["retreat"], tests, "battlecry")] == ["test_bc_4_6_retreat"]
    assert [t.name for t in rulesdoc.match_tests(["retreat"], tests, "tacw")] == ["test_10_4_retreat_hexes"]
    assert rulesdoc.scan_tests(ROOT / "no-such-dir") == []


def test_scan_reads_function_names_and_docstrings(all_tests):
    mine = [t for t in all_tests if t.path == "tests/engine/test_rulesdoc.py"]
    assert "test_scan_reads_function_names_and_docstrings" in {t.name for t in mine}
    doc = next(t for t in all_tests if t.name == "test_every_section_the_battle_cry_engine_cites_is_listed")
    assert doc.doc == "An /explain reader can look up every citation an event or a refusal carries."


def test_decisions_file_parsing_and_descriptions():
    text = ("# Title\n\n**D7 — A long title that runs over\ntwo lines (§4.1).** First sentence here. "
            "Second one.\nMore text.\n\n**D8 — Short.** \"Quoted.\" Then this.\n")
    d = rulesdoc.parse_decisions(text)
    assert set(d) == {"D7", "D8"}
    assert d["D7"].title == "A long title that runs over two lines (§4.1)"
    # whole sentences: all of a short decision, else the first ones and where to read the rest
    assert d["D7"].short() == "D7 — A long title that runs over two lines (§4.1): First sentence here. " \
                              "Second one. More text."
    assert d["D7"].short(limit=30) == ("D7 — A long title that runs over two lines (§4.1): First sentence here. "
                                       "(the whole decision: /rules D7)")
    assert d["D8"].short() == 'D8 — Short: "Quoted." Then this.'
    assert rulesdoc.describe_decision("d7", d).startswith("D7 — A long title")
    assert rulesdoc.describe_decision("D99", d) == "D99"
    assert rulesdoc.describe_decision("free words", d) == "free words"


def test_index_files_are_found_per_ruleset_and_reread_when_changed(tmp_path):
    class Later:                        # a later ruleset: its files, no code here
        id = "later"
        rules_index_path = tmp_path / "rules_index.toml"
        decisions_path = tmp_path / "DECISIONS.md"
    assert rulesdoc.load_index("later", Later) is None
    with pytest.raises(LookupError, match="has no rules index yet"):
        rulesdoc.answer("later", "1.2", ruleset=Later)
    Later.rules_index_path.write_text(GOOD.replace('"demo"', '"later"'), encoding="utf-8")
    Later.decisions_path.write_text("**D2 — Marching order.** Columns first.\n", encoding="utf-8")
    text = rulesdoc.answer("later", "1.2", ruleset=Later, tests_root=tmp_path)
    assert "LATER §1.2 — Marching" in text and "D2 — Marching order: Columns first." in text
    import os
    Later.rules_index_path.write_text(GOOD.replace('"demo"', '"later"').replace("Marching", "Striding"),
                                      encoding="utf-8")
    os.utime(Later.rules_index_path, (1, 1))            # a different mtime, whatever the clock
    assert rulesdoc.load_index("later", Later).get("1.2").title == "Striding"


# == the TACW index (another engineer's content, read by the same code) ===========================

def test_tacw_index_when_present_loads_and_answers(all_tests):
    idx = rulesdoc.load_index("tacw")
    if idx is None:
        assert not TACW_INDEX.exists()
        with pytest.raises(LookupError, match="no rules index yet"):
            rulesdoc.answer("tacw", "9.4")
        return
    assert idx.ruleset == "tacw" and idx.cite == "TACW" and len(idx.sections) > 50
    assert rulesdoc.validate(idx, rulesdoc.load_decisions("tacw"), all_tests) == []
    assert idx.lookup("§9.4")[0].section.id == "9.4"
    assert idx.section_for("TACW §10.4.7") is not None
    text = rulesdoc.answer("tacw", "9.4", ruleset=get_ruleset("tacw"))
    assert text.startswith("**TACW §9.4")
    if idx.get("9.4").decisions:                     # D-numbers come out with their titles
        assert re.search(r"• D\d+ — ", text)


# == /explain: formatting and hidden information ==================================================

def battle_event(**kw) -> Event:
    e = Event("battle", "union", "BC §4.4", "ui2 battles ci2 at 0604 with 5 dice: 2 hits, 1 flag", base=4,
              modifiers=[Modifier(1, "General ug1 attached", "BC §4.7")],
              dice=[DieRoll("battle die 1 of 5", "battlecry-d6", 5, "flag", "retreat"),
                    DieRoll("battle die 2 of 5", "battlecry-d6", 1, "infantry", "hit")],
              table="BC §4.4.1 battle dice", row="infantry, range 1",
              inputs={"attacker": "ui2", "to": "0604"}, outcome={"hits": 2, "flags": 1, "figures_lost": 2})
    for k, v in kw.items():
        setattr(e, k, v)
    return e


def test_format_event_shows_every_step_of_the_calculation(bc):
    titles = lambda c, h="": bc.title_of(f"{c} {h}".strip())      # noqa: E731
    lines = explain.format_event(battle_event(), titles)
    text = "\n".join(lines)
    assert lines[0] == "Battle · BC §4.4 (Battle)"
    assert "  Base      4" in lines
    assert "  +1        General ug1 attached  [BC §4.7 (Generals in battle)]" in lines
    assert "  Total     5" in lines
    assert "  Table     BC §4.4.1 battle dice (Battle dice by range), row: infantry, range 1" in lines
    assert "battle die 1 of 5 (battlecry-d6): 5 flag -> retreat" in text
    assert "  Result    hits 2 · flags 1 · figures lost 2" in lines
    assert "Inputs    attacker ui2 · to 0604" in text
    # a table entered with one die plus modifiers (TACW): the die is the base
    e = Event("fire", "royalist", "TACW §9.9.2", "fires: 3 -2 = 1 -> Miss", base=3,
              modifiers=[Modifier(-2, "range 12 hexes", "TACW §9.9.2")],
              dice=[DieRoll("artillery fire", "d10", 3)], table="Artillery Fire table", row="0-4",
              outcome={"result": "Mancato", "hit": False})
    tl = explain.format_event(e)
    assert explain.roll_is_base(e) and not explain.roll_is_base(battle_event())
    assert "  Roll      3  (artillery fire, d10)" in tl and "  Total     1" in tl
    assert not any(line.strip().startswith("Dice") for line in tl)             # shown once, as the roll
    assert "  Result    result Mancato · hit no" in tl


def test_format_entry_orders_adjudications_and_what_followed():
    move = Event("move", "union", "BC §4.2", "ui2 moves 0606 -> 0605")
    retreat = Event("retreat", "confederate", "BC §4.6", "ci2 retreats 0604 -> 0603")
    entry = explain.Entry(4, "union", "battle ui2 0604", [battle_event(), retreat])
    blocks = explain.format_entry(entry)
    assert blocks[0] == "**#4 · Union · battle ui2 0604**"
    assert blocks[1].startswith("```\nBattle · BC §4.4\n") and blocks[1].endswith("\n```")
    assert blocks[2] == "→ ci2 retreats 0604 -> 0603 (BC §4.6)"
    quiet = explain.Entry(3, "union", "move ui2 0605", [move], undone=True)
    text = "\n".join(explain.format_entry(quiet, markdown=False))
    assert "#3 · Union · move ui2 0605 (undone)" in text and "taken back" in text
    assert "No die was rolled" in text and "→ ui2 moves 0606 -> 0605 (BC §4.2)" in text
    assert explain.entry_label(entry).startswith("#4 Union: battle ui2 0604 — ui2 battles ci2")
    assert len(explain.entry_label(entry, 30)) == 30


def test_redaction_drops_hidden_keys_and_secret_strings():
    e = battle_event(inputs={"attacker": "ui2", "hand": ["rally"], "to": "3338"},
                     outcome={"drawn": "leadership", "hits": 2, "deck": 40, "where": ["3338", "0101"],
                              "3338": "bridge"},
                     narrative="crosses at 3338")
    entry = explain.Entry(9, "parliament", "boatbridge 3338", [e])
    pub = explain.public_entry(entry, {"3338"}, {"boatbridge"})
    shown = "\n".join(explain.format_entry(pub))
    assert "3338" not in shown and "rally" not in shown and "leadership" not in shown and "40" not in shown
    assert pub.text == "boatbridge (secret)" and pub.events[0].narrative == "crosses at (secret)"
    assert pub.events[0].outcome == {"hits": 2, "where": ["(secret)", "0101"], "(secret)": "bridge"}
    assert entry.text == "boatbridge 3338" and e.narrative == "crosses at 3338"     # originals untouched
    # with no secret left, a private verb shows its words again
    assert explain.public_entry(entry, set(), {"boatbridge"}).text == "boatbridge 3338"


def test_tacw_boat_bridge_is_secret_in_explanations_until_revealed():
    """Second Newbury special rule 5 (D108): engine/tacw/hidden.py names the secret hex."""
    from engine.tacw import hidden, rules
    from engine.tacw.scenario.schema import load_scenario
    from engine.tacw.setup import new_state
    tacw = get_ruleset("tacw")
    sc = load_scenario("second-newbury")
    st, _ = rules.start(sc, new_state(sc, 1))
    for side in ("royalist", "parliament"):
        st, _ = rules.apply(sc, st, side, parse("deploy done"))
    assert hidden.hidden_strings(sc, st) == set()
    st, ev = rules.apply(sc, st, "parliament", parse("boatbridge 3338"))
    record = explain.Entry(1, "parliament", "boatbridge 3338", ev)
    assert hidden.hidden_strings(sc, st) == {"3338"}
    assert hidden.private_verbs(sc, st) == {"boatbridge"}
    text = "\n".join(explain.format_entry(explain.entry_for_view(record, tacw, sc, st)))
    assert "3338" not in text and "boatbridge (secret)" in text and "records in secret" in text
    st, _ = rules.apply(sc, st, "parliament", parse("activate p-manchester"))
    st, ev = rules.apply(sc, st, "parliament", parse("move p-thorpe 3340 3339 3338 face ne 3437"))
    assert hidden.hidden_strings(sc, st) == set()                             # revealed
    move = explain.entry_for_view(explain.Entry(3, "parliament", "move p-thorpe 3340 3339 3338", ev),
                                  tacw, sc, st)
    assert any("placed on the map at 3338" in e.narrative for e in move.events)
    assert explain.entry_for_view(record, tacw, sc, st).text == "boatbridge 3338"
    # Battle Cry keeps no secret in its log: no hook, nothing redacted but hidden keys
    bc = explain.Entry(2, "union", "move ui1 0207", [battle_event(narrative="ui1 to 0207")])
    assert explain.entry_for_view(bc, get_ruleset("battlecry"), None, None).text == "move ui1 0207"


def test_battlecry_events_never_carry_hand_or_deck():
    """BC §3.1: hands are secret. Across a whole demo battle, no event's inputs or outcome holds
    a hidden key, and no 'end' (which draws) names the card drawn."""
    from engine.core.game import Game
    from bot.cli import DEMO_DIR, read_script
    seed, lines = read_script(DEMO_DIR / "battlecry--first-bull-run.txt")
    g = Game.new("battlecry", "first-bull-run", int(seed))
    from engine.battlecry.tables import CARD_TYPES
    for line in lines[:120]:
        side, _, text = line.partition(":")
        before = {s: list(h) for s, h in g.state.hands.items()}
        played = g.state.current.card             # named in the 'end' narrative, face up
        events = g.apply(side.strip(), text.strip())
        for e in events:
            assert not explain.HIDDEN_KEYS & {k.lower() for k in (*e.inputs, *e.outcome)}, e
        if text.strip() == "end":
            drawn = list((Counter(g.state.hands[side.strip()]) - Counter(before[side.strip()])).elements())
            said = " ".join(e.narrative.lower() for e in events)
            assert drawn or not g.state.deck                # a card was drawn, unseen
            assert not any(c in said or CARD_TYPES[c].name.lower() in said for c in drawn if c != played)


def test_bracketed_citations_of_jdg_and_lion_events_find_their_section():
    """JdG and Lion events cite paragraphs in brackets ("JdG [8.6]", "LdN [8 C]"): /explain links
    them to the rules index as it does TACW's "§10.4.7" (they used to find nothing)."""
    from engine.core.rulesdoc import load_index
    assert load_index("jdg").section_for("JdG [8.6]").key == "8.6"
    assert load_index("lion").section_for("LdN [8 C]").key == "8 c"
    assert load_index("lion").section_for("LdN [7]").title.startswith("Shooting")
    # sections named by a heading rather than a number: the Lion summary sheet and TIRO grid, the
    # Italian Wars' tables
    assert load_index("lion").section_for("LdN [TIRO]").title == "Shooting grid (TIRO)"
    assert load_index("italianwars").section_for("IW Tabella 6").key == "tabella 6"


def test_a_completion_supplement_is_served_beside_the_rulebook():
    """Issue 16: the Italian Wars' SUPPLEMENT.md sections ("## IW-H 6 — Melee") are sections of
    /rules, titled as Herald's completion, their tables kept as lines of cells; an event's
    citation "IW-H 6.2; Herald completion" finds IW-H 6."""
    from engine.core.rulesdoc import load_index, supplement_sections
    secs = supplement_sections("# Title\n\n## XX-H 1 — Moving\n\n*Completes: a,\nb.*\n\n1. Foot move **4**.\n\n"
                               "| column | d6 1 |\n|---|---|\n| 0 | 0 |\n\n## XX-H 2 — Fighting\n\nHit hard.\n")
    assert [(s.id, s.title) for s in secs] == [("XX-H 1", "XX-H 1 — Moving (Herald completion)"),
                                               ("XX-H 2", "XX-H 2 — Fighting (Herald completion)")]
    assert secs[0].summary == "1. Foot move **4**. column · d6 1; 0 · 0;"
    idx = load_index("italianwars")
    assert idx.lookup("IW-H 6")[0].section.title == "IW-H 6 — Melee (Herald completion)"
    assert idx.section_for("IW-H 6.2; Herald completion").id == "IW-H 6"
    assert [s.id for s in idx.sections if s.id.startswith("IW-H")] == [f"IW-H {n}" for n in range(1, 17)]
