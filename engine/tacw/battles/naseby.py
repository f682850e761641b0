"""Naseby, 14 June 1645: the battle's special rule and what Herald adds to the book's setup (book,
"NASEBY": "Regole speciali" (one rule, the Bard brigade), "Artiglieria opzionale", the red wagon
and "Comandi indipendenti, dietro la siepe di Sulby"; digest §7.5, §8, G6; DECISIONS.md
D111-D117). The file's `[special]` block carries the data (read by `battles/special_data.py`),
its [[special_rules]] the book's words.

    the Bard brigade     the special rule: I and II/Bard, heavy infantry without pikes, may not
                         form hedgehog and take "-1 when attacked by cavalry in close combat"
                         (+1 to an all-cavalry attacker's roll, D28, D113). A unit flag of the
                         file (`no_hedgehog`), read where each rule is played: the hedgehog
                         refused in `movement/paths.py`, none tried in reaction in
                         `movement/reactions.py`, the modifier "naseby_bard_vs_cavalry" of
                         `tables_combat.py` asked by `close_combat/melee.py`; no code here
    the red wagon        §7.2.1 gives it 2 MP; Herald adds the rest (digest G6, D115): it stacks
                         with one friendly single-hex foot or horse unit (`movement/stacking.py`,
                         the file's check in `special_data.finish`), never fires, fights or is
                         fired at (`fire/small_arms.py`, `close_combat/melee.py`), and an
                         unguarded wagon next to an enemy is captured between activations
                         (`wagon_captures`); the book gives it no VP, so it scores its 10 VP
                         for the captor only with the optional rule red-wagon-prize (`wagon_vp`)
    Okey's dragoons      the independent command behind the Sulby hedges: a wing of its own under
                         Okey (D114), plain scenario data (`scenarios/naseby.toml`); no code
    the King's Lifeguard the book stacks horse and foot in 1516: allowed at setup only
                         (`[[special.setup_stacks]]`, `special_data`, D116)
    optional artillery   the two Royalist Falcons, in play only with the optional rule
                         (`[[special.option_units]]`, `special_data.setup_plan`, D117)

The sequence of play calls `wagon_captures` after every command between activations
(`sequence/activation.py`); `victory.victory_points` adds `wagon_vp`. Nothing here imports the
rules engine.
"""
from __future__ import annotations

from engine.core.events import Event

from engine.tacw.battles.special_data import special_of

WAGON_SECTION = "TACW §7.2.1, Naseby (HERALD D115, digest G6)"


# == the red wagon (HERALD D115) ===================================================================

def wagon_captures(sc, st) -> list[Event]:
    """HERALD D115 (digest G6): between activations, a wagon with no friendly unit in its hex and
    an enemy infantry or cavalry unit (not morale Broken) adjacent is captured: it leaves the
    map and scores its capture VP for the captor."""
    out: list[Event] = []
    for w in special_of(sc).wagons:
        u = st.units.get(w.unit)
        if u is None or not u.alive:
            continue
        h = u.hexes[0]
        if any(o.id != u.id and o.side == u.side for o in st.units_at(h)):
            continue
        takers = sorted((e for e in st.units.values() if e.alive and e.side != u.side
                         and e.kind in ("cavalry", "heavy", "light") and e.morale_state != "broken"
                         and any(sc.grid.adjacent(x, h) for x in e.hexes)), key=lambda e: e.id)
        if not takers:
            continue
        taker = takers[0]
        u.status, u.hexes, u.gun_state, u.captured_by = "eliminated", [], "captured", taker.side
        vp = _capture_vp(w, st)
        worth = (f"{vp} VP to the {taker.side.title()}" if vp else
                 f"no VP (the book gives the wagon none; {w.capture_vp} VP with the optional rule "
                 f"{w.vp_option})")
        out.append(Event("wagon_captured", taker.side, WAGON_SECTION,
                         f"{u.called} in {h}, unguarded, is captured by {taker.called}: {worth}",
                         outcome={"wagon": u.id, "hex": h, "by": taker.id, "vp": vp}))
    return out


def _capture_vp(w, st) -> int:
    """The book gives the wagon a hex and no victory points: its capture VP count only with the
    optional rule the file names (`vp_option`, Naseby's `red-wagon-prize`; D115)."""
    return w.capture_vp if not w.vp_option or w.vp_option in st.options else 0


def wagon_vp(sc, st) -> dict[str, int]:
    """VP per side for the wagons it has captured (victory.py)."""
    vp: dict[str, int] = {}
    for w in special_of(sc).wagons:
        u = st.units.get(w.unit)
        if u is not None and u.gun_state == "captured" and u.captured_by and _capture_vp(w, st):
            vp[u.captured_by] = vp.get(u.captured_by, 0) + _capture_vp(w, st)
    return vp
