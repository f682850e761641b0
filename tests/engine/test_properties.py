"""Issue 17, property tests (Hypothesis) for every ruleset: random and malformed command
sequences, game options and uploaded scenario files.

For each ruleset (`rulesets(include_unfinished=True)`) and one or two of its battles, Hypothesis
draws a seed, the game options (real ones and junk) and a sequence of commands mixing

- the lines the ruleset's own autoplayer gives (its demo script, bot/demos, or an autoplayed
  opening; and, where the autoplayer is quick, its `play_step` asked live on the current state),
- lines built from the ruleset's declared verbs (`engine/<id>/verbs.py`) the way a slash command
  builds them (`line_for`), each option filled from the ruleset's completions (real units,
  companies, hexes, battles), other real ids of the state, numbers out of range or junk text,
- garbage: any unicode, empty lines, very long words, broken quotes and `dice=` words,

and checks after each command:

1. a refused command (`HeraldError`) leaves the game untouched: same state hash, same history;
   no other exception ever escapes `Game.apply`;
2. after each accepted command, a twin game replaying the accepted history from the seed
   (`Game.new` + `apply` of each record, the refused commands left out) has the same state hash;
   at the end the store's in-place replay (`Game.replay`) agrees too;
3. `state_from_dict(state_to_dict(st))` has the same hash and dict as `st` (the first state,
   every third accepted command's and the last), also after a strict JSON dumps/loads (no NaN or infinity may reach a state: PostgreSQL's JSON refuses them).

Scenario uploads: `parse_scenario` of random text and of mutations of a bundled scenario file
answers only `HeraldError` or the ruleset's `ScenarioError`; a mutated file it accepts starts a
game (or is refused the same way) and takes the opening of the autoplayer's script without any
other exception.

Reproducible: every test is derandomized (no example database). Lion and the Italian Wars apply
in 10-50 ms a command, so their sequences are kept short.
"""
from __future__ import annotations

import importlib
import json
import os
import re
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as hs

from bot.cli import DEMO_DIR, read_script
from engine.core.commands import split_side
from engine.core.errors import HeraldError
from engine.core.game import Game, autoplay, game_options, rulesets
from engine.core.verbs import WEIGH_CANDIDATES, command_set, complete_line, line_for

ENGINE = Path(__file__).resolve().parents[2] / "engine"

# (ruleset, battle): one or two battles of each ruleset, the demo battles first
CASES = [("battlecry", "first-bull-run"), ("battlecry", "shiloh"),
         ("tacw", "edgehill"), ("tacw", "first-newbury"),
         ("jdg", "marengo"),
         ("lion", "breitenfeld"), ("lion", "lutzen"),
         ("italianwars", "fornovo"), ("italianwars", "ravenna")]
SLOW = {"lion", "italianwars"}                   # 10-50 ms a command
LENGTH = {"lion": 10, "italianwars": 12}          # commands drawn per example (others: 24)
EXAMPLES = {"lion": 10, "italianwars": 12}        # examples per battle (others: 25)
LIVE_AUTOPLAY = {"battlecry", "jdg", "italianwars"}   # play_step quick enough to ask live (TACW's
#                                                       plays a whole activation, 0.5 s)
ROUND_TRIP_EVERY = 3                             # the JSON round trip: every 3rd accepted command
#                                                  and the last (TACW's from_dict is 0.1 s)
SCRIPT_LINES = 60                                # autoplayer lines kept of each battle
# HERALD_PROPERTY_SCALE=20 multiplies every test's examples, for a longer search by hand
SCALE = max(1, int(os.environ.get("HERALD_PROPERTY_SCALE", "1") or 1))

PROPS = {"deadline": None, "derandomize": True, "database": None,
         "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large,
                                   HealthCheck.filter_too_much]}


def test_every_ruleset_is_covered():
    """A ruleset added later gets its property tests (a battle in CASES) before it ships."""
    assert {rid for rid, _ in CASES} == set(rulesets(include_unfinished=True))


# == what the autoplayers and the rulesets give =================================================

@cache
def _scenario(rid: str, sid: str):
    return rulesets(include_unfinished=True)[rid].load_scenario(sid)


def _step(rid: str):
    """The autoplayer's one step: `play_step(game)`, or Battle Cry's `play_turn` of the side to act."""
    ap = importlib.import_module(f"engine.{rid}.autoplay")
    if hasattr(ap, "play_step"):
        return ap.play_step
    return lambda game: ap.play_turn(game, game.to_act) if game.to_act else []


@cache
def _script(rid: str, sid: str) -> tuple[int | str, tuple[tuple[str, str], ...]]:
    """The autoplayer's opening of the battle: its demo script, else an autoplayed one (seed 1)."""
    rs = rulesets(include_unfinished=True)[rid]
    demo = DEMO_DIR / f"{rid}--{sid}.txt"
    if demo.exists():
        seed, raw = read_script(demo)
        lines = []
        for text in raw[:SCRIPT_LINES]:
            side, line = split_side(text, rs.sides)
            lines.append((side or "", line))
        seed = int(seed) if seed and seed.isdigit() else (seed or 1)
        return seed, tuple(lines)
    game = Game.new(rid, sid, 1, scenario=_scenario(rid, sid))
    return 1, tuple(autoplay(game, _step(rid), max_commands=SCRIPT_LINES)[:SCRIPT_LINES])


@cache
def _script_words(rid: str, sid: str) -> tuple[str, ...]:
    """Every word of the autoplayer's lines: real ids, hexes, distances the rules have taken."""
    words = {w for _, line in _script(rid, sid)[1] for w in line.split()[1:]}
    return tuple(sorted(words))


def _state_ids(d: dict) -> list[str]:
    """The ids a state names: the keys of its top-level tables (units, pieces, companies,
    battles, generals, leaders, wings, armies...)."""
    out = []
    for v in d.values():
        if isinstance(v, dict) and len(v) < 400:
            out += [k for k in v if isinstance(k, str)]
    return sorted(set(out))


def _completions(game: Game, side: str | None, kind: str, context: dict) -> list[str]:
    """The values the ruleset offers for an option of `kind` (what the slash command's
    autocomplete shows), as the bot asks them: cheap labels, at most 25."""
    if not kind:
        return []
    token = WEIGH_CANDIDATES.set(False)
    try:
        pairs = game.ruleset.completions(game.scenario, game.state, side, kind, "", context)
    finally:
        WEIGH_CANDIDATES.reset(token)
    return [v for _, v in pairs][:25]


# == strategies ==================================================================================

NUMBERS = hs.one_of(hs.integers(-3, 30), hs.integers(-10**20, 10**20),
                    hs.sampled_from(["0", "-0", "1e400", "nan", "inf", "-inf", "0.5", "-1.5", "1e-9",
                                     "99999999999999999999999", "0x10", "1_000", "½", "٣", "NaN"]))
JUNK_WORD = hs.one_of(
    hs.text(min_size=0, max_size=12),
    hs.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-+,.", min_size=1, max_size=12),
    NUMBERS.map(str),
    hs.sampled_from(["", " ", "\t", "\x00", "'", '"', "#", "\\", "dice=", "dice=,", "dice=99,-1",
                     "dice=flag", "dice=x", "é", "🎲", "\u202e", "a" * 300, "NE", "n", "front", "all"]))
GARBAGE = hs.one_of(
    hs.text(max_size=60),
    hs.lists(JUNK_WORD, max_size=8).map(" ".join),
    hs.sampled_from(["", "   ", "#", "# only a comment", "'unbalanced", 'a "b', "\\", "dice=1",
                     "x" * 5000, "move " + "y" * 3000, "\x00\x00", "\n\n", "dice=" + ",".join(["6"] * 400)]))


def _real_word(draw, game: Game, rid: str, sid: str):
    """A word a player might plausibly type: an id of the state or of the autoplayer's lines."""
    pool = _state_ids(game.ruleset.state_to_dict(game.state)) + list(_script_words(rid, sid))
    return draw(hs.sampled_from(pool)) if pool else draw(JUNK_WORD)


def _verb_line(draw, game: Game, rid: str, sid: str, side: str | None) -> str:
    """A line built from one of the ruleset's verbs as a slash command builds it (`line_for`),
    each option a completion, a real id, a number or junk; a few with words left over."""
    commands = command_set(game.ruleset)
    verb = draw(hs.sampled_from([v for v in commands.verbs if v.name != "resign"]))
    values: dict[str, object] = {}
    context: dict[str, str] = {}
    for o in verb.options:
        if o.is_flag:
            values[o.name] = draw(hs.booleans())
            continue
        if not o.needed and draw(hs.integers(0, 3)) == 0:
            continue
        source = draw(hs.sampled_from(["offered", "offered", "offered", "real", "number", "junk"]))
        value = None
        if source == "offered":
            offered = [v for _, v in o.choices] or _completions(game, side, o.kind, context)
            if offered:
                value = draw(hs.sampled_from(offered))
                if o.multi and draw(hs.booleans()):
                    value = " ".join(draw(hs.lists(hs.sampled_from(offered), min_size=1, max_size=4)))
        if value is None:
            value = (draw(NUMBERS) if source == "number" else
                     draw(JUNK_WORD) if source == "junk" else _real_word(draw, game, rid, sid))
        values[o.name] = value
        context[o.name] = str(value)
    if verb.dice and draw(hs.integers(0, 3)) == 0:
        values["dice"] = ",".join(str(x) for x in draw(hs.lists(hs.integers(-2, 13), min_size=1, max_size=6)))
    line = line_for(verb, values)
    if draw(hs.integers(0, 7)) == 0:
        line += " " + draw(JUNK_WORD)
    return line


def _act_line(draw, game: Game, side: str | None) -> str:
    """A line completed word by word as `/act` offers it (`complete_line`, the verbs the game
    waits for first), stopped anywhere once it has a verb and a word."""
    rs = game.ruleset

    def complete(kind, prefix, context, head=""):
        return rs.completions(game.scenario, game.state, side, kind, prefix, context, head)
    line = ""
    token = WEIGH_CANDIDATES.set(False)
    try:
        for n in range(8):
            offered = [v for _, v in complete_line(command_set(rs), line, complete)]
            offered = [v for v in offered if v.strip() != line.strip()]
            if not offered or (n >= 2 and draw(hs.integers(0, 5)) == 0):
                break
            line = draw(hs.sampled_from(offered))
            if not line.endswith(" "):
                line += " "
    finally:
        WEIGH_CANDIDATES.reset(token)
    return line.strip() or draw(JUNK_WORD)


def _live_line(game: Game, rid: str) -> tuple[str, str] | None:
    """The first line the autoplayer gets accepted now (asked on a scratch copy of the game)."""
    scratch = Game(game.ruleset, game.scenario, game.seed, game.state.copy(), options=game.options)
    lines = _step(rid)(scratch)
    return lines[0] if lines else None


@hs.composite
def _options(draw, rid: str, sid: str):
    """The game options: usually none, else some of the battle's optional rules, spelt as a
    player might (`Eight-Turns`, `eight_turns`), now and then with a word naming none."""
    known = [oid for oid, _ in game_options(rulesets(include_unfinished=True)[rid], _scenario(rid, sid))]
    if draw(hs.integers(0, 3)):
        return None
    chosen = draw(hs.lists(hs.sampled_from(known), unique=True, max_size=len(known))) if known else []
    chosen = [draw(hs.sampled_from([o, o.upper(), o.replace("-", "_"), o.replace("_", "-")])) for o in chosen]
    if not known or draw(hs.integers(0, 4)) == 0:
        chosen.append(draw(JUNK_WORD))
    return chosen


# == the properties ==============================================================================

def _scenario_error(rid: str) -> type[Exception]:
    """The ruleset's documented scenario error (a ValueError naming the file and key)."""
    module = importlib.import_module(f"engine.{rid}.scenario")
    if not hasattr(module, "ScenarioError"):             # TACW's scenario package
        module = importlib.import_module(f"engine.{rid}.scenario.schema")
    return module.ScenarioError


def _assert_round_trip(rs, st, where: str) -> None:
    """Property 3: the state as a dict and back, and as strict JSON and back, is the same state."""
    d = rs.state_to_dict(st)
    back = rs.state_from_dict(d)
    assert rs.state_to_dict(back) == d, f"{where}: state_from_dict(state_to_dict(st)) differs"
    assert back.state_hash() == st.state_hash(), where
    text = json.dumps(d, allow_nan=False, sort_keys=True)       # ValueError: NaN or inf in the state
    again = rs.state_from_dict(json.loads(text))
    assert again.state_hash() == st.state_hash(), f"{where}: the JSON round trip changed the state"
    assert json.dumps(rs.state_to_dict(again), allow_nan=False, sort_keys=True) == text, where


def _try(game: Game, side: str, line: str, log: list[str]) -> bool:
    """Property 1: apply `line`; a refusal must leave the game untouched, and only a
    HeraldError may come out. Returns whether the rules accepted it."""
    before, n = game.state.state_hash(), len(game.history)
    state = game.state
    try:
        game.apply(side, line)
    except HeraldError as exc:
        assert str(exc).strip(), f"a refusal without a reason: {side}: {line!r}"
        assert game.state is state and len(game.history) == n, f"refused but recorded: {line!r}"
        assert state.state_hash() == before, \
            f"the refused command changed the state: {side}: {line!r} ({exc})\nafter: {log}"
        return False
    except Exception as exc:         # the engine must answer HeraldError, never crash
        raise AssertionError(f"{type(exc).__name__} escaped the engine for {side}: {line!r}: {exc}\n"
                             f"after the accepted commands {log}") from exc
    return True


def _run_sequence(data, rid: str, sid: str) -> None:
    rs = rulesets(include_unfinished=True)[rid]
    sc = _scenario(rid, sid)
    script_seed, script = _script(rid, sid)
    seed = data.draw(hs.one_of(hs.just(script_seed), hs.just(script_seed),
                               hs.integers(0, 2**31 - 1), hs.text(max_size=8)), label="seed")
    options = data.draw(_options(rid, sid), label="options")
    try:
        game = Game.new(rid, sid, seed, scenario=sc, options=options)
    except (HeraldError, _scenario_error(rid)) as exc:
        assert options and str(exc).strip(), f"a new game refused without game options: {exc}"
        return
    twin = Game.new(rid, sid, seed, scenario=sc, options=options)
    _assert_round_trip(rs, game.state, "the first state")
    cursor = 0                                   # the next line of the autoplayer's script
    accepted: list[str] = []
    kinds = ["script"] * 4 + ["verb"] * 3 + ["act"] * 3 + ["garbage"] * 2
    if rid in LIVE_AUTOPLAY:
        kinds += ["live"]
    for _ in range(data.draw(hs.integers(1, LENGTH.get(rid, 24)), label="length")):
        kind = data.draw(hs.sampled_from(kinds))
        acting = game.to_act or rs.sides[0]
        side = data.draw(hs.sampled_from([acting] * 6 + list(rs.sides) + ["referee"]))
        if kind == "script" and cursor < len(script):
            side, line = script[cursor]
            cursor += 1
        elif kind == "live":
            found = _live_line(game, rid)
            if found is None:
                continue
            side, line = found
        elif kind == "act":
            line = _act_line(data.draw, game, side)
        elif kind == "verb":
            line = _verb_line(data.draw, game, rid, sid, side)
        else:
            line = data.draw(GARBAGE)
        note(f"{side}: {line!r}")
        if not _try(game, side, line, accepted):
            continue
        rec = game.history[-1]
        accepted.append(f"{rec.side}: {rec.text}")
        # property 2: the accepted history replayed from the seed is the same game
        twin.apply(rec.side, rec.text)
        assert twin.state.state_hash() == game.state.state_hash(), \
            f"replaying the accepted history from the seed differs after {accepted}"
        if len(accepted) % ROUND_TRIP_EVERY == 0:
            _assert_round_trip(rs, game.state, f"after {accepted[-1]!r}")
    if accepted:
        _assert_round_trip(rs, game.state, f"after {accepted[-1]!r}")                                 # the store's in-place replay of the log
        replayed = Game.new(rid, sid, seed, scenario=sc, options=options)
        replayed.replay([(r.side, r.text) for r in game.history])
        assert replayed.state.state_hash() == game.state.state_hash(), "the in-place replay differs"


def _sequence_test(rid: str, sid: str):
    @settings(max_examples=SCALE * EXAMPLES.get(rid, 25), **PROPS)
    @given(data=hs.data())
    def run(data):
        _run_sequence(data, rid, sid)
    return run


@pytest.mark.parametrize("rid,sid", CASES)
def test_command_sequences(rid, sid):
    """Random and malformed commands: refusals change nothing, accepted commands replay to the
    same state, the state survives JSON (properties 1-3 above)."""
    _sequence_test(rid, sid)()


# == scenario uploads ============================================================================

def _bundled(rid: str, sid: str) -> str:
    return (ENGINE / rid / "scenarios" / f"{sid}.toml").read_text(encoding="utf-8")


TOML_VALUES = hs.one_of(
    hs.integers(-10**6, 10**6).map(str), hs.sampled_from(
        ["0", "-1", "999999999999999999999", "1e309", "nan", "inf", "-inf", "0.0", "true", "false",
         '""', '"x"', '"🎲"', "''", "[]", "[1, 2]", '["a", "b"]', "[[]]", "{}", '{a = 1}', "1979-05-27",
         '"' + "z" * 2000 + '"', "[ 0, -5, 1e9 ]", '"0101"', '"9999"', '"-"', '"ALL CAPS"']),
    hs.text(alphabet=hs.characters(blacklist_categories=("Cs",), blacklist_characters='"\\\n\r'),
            max_size=20).map(lambda s: f'"{s}"'))
KEY_VALUE = re.compile(r"^(\s*[A-Za-z0-9_\-\.\"]+\s*=\s*)(.*)$")


@hs.composite
def _mutated(draw, text: str) -> str:
    """A bundled file with a few edits: a value replaced by a value of another type or range, a
    line dropped, doubled or moved, a key misspelt, the text cut short, junk inserted."""
    lines = text.splitlines()
    for _ in range(draw(hs.integers(1, 4))):
        if not lines:
            break
        i = draw(hs.integers(0, len(lines) - 1))
        how = draw(hs.sampled_from(["value"] * 5 + ["drop", "double", "move", "key", "cut", "junk"]))
        m = KEY_VALUE.match(lines[i])
        if how == "value" and m:
            lines[i] = m.group(1) + draw(TOML_VALUES)
        elif how == "drop":
            del lines[i]
        elif how == "double":
            lines.insert(i, lines[i])
        elif how == "move":
            lines.insert(draw(hs.integers(0, len(lines) - 1)), lines.pop(i))
        elif how == "key" and m:
            lines[i] = draw(hs.sampled_from(["x", "_", "Z", ""])) + lines[i].lstrip()
        elif how == "cut":
            lines = lines[:i]
        else:
            lines.insert(i, draw(hs.one_of(hs.text(max_size=30), TOML_VALUES.map(lambda v: f"junk = {v}"))))
    return "\n".join(lines) + "\n"


def _check_upload(rid: str, sid: str, text: str) -> None:
    """An uploaded file: refused with the ruleset's own errors, or a battle that can be played."""
    rs = rulesets(include_unfinished=True)[rid]
    allowed = (HeraldError, _scenario_error(rid))
    try:
        sc = rs.parse_scenario(text, "upload.toml")
    except allowed as exc:
        assert str(exc).strip()
        return
    except Exception as exc:
        raise AssertionError(f"{type(exc).__name__} escaped parse_scenario: {exc}") from exc
    seed, script = _script(rid, sid)
    try:
        game = Game.new(rid, sid, seed, scenario=sc)
    except allowed:
        return
    except Exception as exc:
        raise AssertionError(f"{type(exc).__name__} escaped new_state of an accepted upload: {exc}") from exc
    _assert_round_trip(rs, game.state, "the uploaded battle's first state")
    for side, line in script[:6 if rid in SLOW else 12]:
        _try(game, side, line, [])


@pytest.mark.parametrize("rid,sid", CASES)
def test_mutated_scenario_files(rid, sid):
    """Mutations of a bundled scenario file: the ruleset's error or a playable battle."""
    text = _bundled(rid, sid)

    @settings(max_examples=SCALE * (8 if rid in SLOW else 12), **PROPS)
    @given(mutated=_mutated(text))
    def run(mutated):
        _check_upload(rid, sid, mutated)
    run()


@pytest.mark.parametrize("rid", sorted({rid for rid, _ in CASES}))
def test_random_scenario_text(rid):
    """Random text and random TOML tables as an uploaded file: only the ruleset's errors."""
    sid = next(s for r, s in CASES if r == rid)
    toml_doc = hs.lists(hs.tuples(hs.sampled_from(["title", "id", "units", "map", "turns", "sides",
                                                   "x", "[map]", "[[units]]", "[provenance]"]),
                                  TOML_VALUES), max_size=8).map(
        lambda kv: "\n".join(k if k.startswith("[") else f"{k} = {v}" for k, v in kv))

    @settings(max_examples=SCALE * 25, **PROPS)
    @given(text=hs.one_of(hs.text(max_size=200), toml_doc, hs.just(""), hs.just("\x00" * 10),
                          hs.just("a = 1\n" * 20000)))
    def run(text):
        _check_upload(rid, sid, text)
    run()
