"""Phase B, the strategic initiative [1.B], [3].

[3] L199: each player rolls a die and adds his commander-in-chief's modifier; the higher total has
the initiative for the turn. On a tie nobody has it and every IA goes in the cup. The winner may
choose one IA of his formations to start the turn with (not put in the cup), With or Without
Orders, or decline, when phase D begins with a random draw as on a tie. HERALD D17: he may pick
any IA due in the cup this turn (a reinforcement's single IA included) or his IAC chosen in phase
A (Marengo D 2.1 L937).
"""
from __future__ import annotations

from engine.core.dice import DiceStream
from engine.core.errors import CannotParse, Illegal
from engine.core.events import DieRoll, Event, Modifier
from engine.core.ids import unknown

from engine.jdg import tables
from engine.jdg.checks import d10
from engine.jdg.sequence.command import chief
from engine.jdg.state import SIDES, JdgState

SECTION = "JdG [3]"


def roll_strategic_initiative(sc, st: JdgState, stream: DiceStream) -> list[Event]:
    """[3]: d10 + the chief's modifier for each side (SIDES order; each rolls his own die); the
    higher wins (tables.strategic_initiative); a tie gives nobody the initiative."""
    a, b = SIDES
    rolls, mods, dice, modifiers = {}, {}, [], []
    for side in SIDES:
        ch = chief(sc, st, side)
        rolls[side] = d10(stream, f"strategic initiative, {side.title()}", side)
        mods[side] = ch.modifier
        dice.append(DieRoll(f"strategic initiative, {side.title()}", "d10", rolls[side]))
        modifiers.append(Modifier(ch.modifier, f"{side.title()}: {ch.name}'s modifier", SECTION))
    won = tables.strategic_initiative(rolls[a], mods[a], rolls[b], mods[b])
    winner = {"a": a, "b": b}.get(won or "", "")
    st.initiative = winner
    st.chosen_marker = ""
    totals = {s: rolls[s] + mods[s] for s in SIDES}
    score = ", ".join(f"{s.title()} {rolls[s]}{mods[s]:+d} = {totals[s]}" for s in SIDES)
    if winner:
        text = (f"Turn {st.turn} strategic initiative: {score}; {winner.title()} has the initiative "
                f"and may pick the marker that starts the turn (`first <marker>` or `first none`)")
    else:
        text = f"Turn {st.turn} strategic initiative: {score}; a tie: nobody has the initiative, every IA goes in the cup"
    return [Event("strategic_initiative", winner or "both", "JdG [1] B, [3]", text, dice=dice,
                  modifiers=modifiers, table="d10 + commander-in-chief's modifier, higher wins",
                  row=tables.CHECK_SECTIONS["strategic_initiative"],
                  outcome={"initiative": winner, "totals": totals})]


def pick_candidates(sc, st: JdgState, side: str) -> list[str]:
    """The markers `side` may start the turn with (HERALD D17): his IAs due in the cup this turn
    and his IAC chosen in phase A."""
    from engine.jdg.sequence.cup import due_markers
    out = [m for m in due_markers(sc, st) if st.markers[m].side == side]
    out += [m for m in st.cup if st.markers[m].side == side and st.markers[m].kind == "combined"]
    return out


def do_first(sc, st: JdgState, side: str, cmd, stream: DiceStream) -> list[Event]:
    """`first <marker|formation|none>` [1.B.2], [3]: the initiative winner's pick, activated before
    every other; `none` declines, and phase D begins with a random draw."""
    section = "JdG [1] B.2, [3]"
    if st.phase != "initiative":
        raise Illegal(f"the strategic initiative's pick is made in phase B (now: phase {st.phase})", section)
    if not st.initiative:
        raise Illegal("nobody has the strategic initiative this turn (a tie): every IA is in the cup", section)
    if side != st.initiative:
        raise Illegal(f"{st.initiative.title()} has the strategic initiative, not {side.title()}", section)
    if not cmd.args:
        raise CannotParse("usage: first <marker> (or none)")
    word = cmd.args[0]
    if word == "none":
        st.chosen_marker = ""
        st.phase = "cup"
        return [Event("first", side, section, f"{side.title()} declines to pick a marker: phase D starts "
                      "with a random draw")]
    cands = pick_candidates(sc, st, side)
    mid = word if word in cands else next((m for m in cands if st.markers[m].formation == word), None)
    if mid is None:
        pairs = [(m, st.markers[m].formation or st.markers[m].kind) for m in cands]
        raise Illegal(unknown(word, "one of your markers due in the cup this turn", pairs, query="cup"), section)
    st.chosen_marker = mid
    st.phase = "cup"
    return [Event("first", side, section, f"{side.title()} starts the turn with {marker_label(sc, st, mid)}",
                  outcome={"marker": mid})]


def marker_label(sc, st: JdgState, mid: str) -> str:
    """How a marker is named to people: `watrin-1` (Watrin (Lannes)'s IA), or the special name."""
    m = st.markers[mid]
    if m.kind == "ia":
        return f"{sc.formation(m.formation).name}'s IA `{mid}`"
    name = next((x.name for x in sc.markers if x.id == mid), mid)
    return f"the {'combined marker' if m.kind == 'combined' else 'special IA'} \"{name}\" `{mid}`"
