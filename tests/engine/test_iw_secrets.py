"""The Italian Wars' secrets (HERALD D4): written orders and Ecu bribes never appear in the public
view, the public log entry, /explain or an export before their time, and appear once revealed (an
order when its battle acts on it or is tested; a bribe at the roll it changes)."""
from __future__ import annotations

import json

from engine.core.events import Event
from engine.core.explain import Entry, entry_for_view, format_entry
from engine.core.public import public_command
from engine.italianwars import public
from engine.italianwars.ruleset import ITALIANWARS as IW
from tests.engine.test_iw_sequence import go, make_state


def orders_state():
    """Pre-battle step 8: the French write `hold` for fb1 (a word found nowhere else)."""
    st = make_state(phase="prebattle", turn=1)
    st.step = "orders"
    for b in st.battles.values():
        b.order = ""
    return st


def everything_public(st, entries):
    """What the channel may read: the public state, and every entry through the public view,
    formatted for /explain, as JSON (an export)."""
    view = public.view(None, st, None).to_dict()
    shown = [entry_for_view(Entry.from_record(i, side, text, events), IW, None, st)
             for i, (side, text, events) in enumerate(entries)]
    explained = ["\n".join(format_entry(e, markdown=False)) for e in shown]
    exported = [json.dumps({"text": e.text, "events": [x.to_dict() for x in e.events]}) for e in shown]
    return json.dumps(view) + "\n".join(explained) + "\n".join(exported)


def test_written_orders_hidden_until_the_battle_acts():
    """IW Prima della battaglia 8 (HERALD D4): the French orders are hidden from the League and
    the channel until the battle activates; then the log shows them in full."""
    st = orders_state()
    entries = []
    for side, line in (("french", "order fb0 attack"), ("french", "order fb1 hold"), ("french", "keep"),
                       ("league", "order lb0 attack"), ("league", "order lb1 attack"), ("league", "keep"),
                       ("french", "keep"), ("league", "keep")):
        st, events = go(st, side, line)
        entries.append((side, line, [e.to_dict() for e in events]))
    assert st.phase == "actions" and st.battles["fb1"].order == "hold"
    seen = everything_public(st, entries)
    assert "hold" not in seen.lower()
    assert public.view(None, st, "league").battles["fb1"].order == ""
    assert public.view(None, st, "french").battles["fb1"].order == "hold"
    shown = public_command(IW, None, st, "french", "order fb1 hold", entries[1][2])
    assert shown.text == "order (secret)" and shown.withheld
    # the French, the attacker, activate fb1 first: it acts on its order
    st, events = go(st, "french", "activate fb1 dice=6")
    entries.append(("french", "activate fb1 dice=6", [e.to_dict() for e in events]))
    assert any(e.kind == "order_revealed" and e.outcome["order"] == "hold" for e in events)
    assert public.view(None, st, "league").battles["fb1"].order == "hold"
    shown = public_command(IW, None, st, "french", "order fb1 hold", entries[1][2])
    assert shown.text == "order fb1 hold" and not shown.withheld
    still = public_command(IW, None, st, "french", "order fb0 attack", entries[0][2])
    assert still.text == "order (secret)"          # fb0 has not acted yet


def test_bribes_hidden_until_the_roll_they_change():
    """IW Tesoro, IW Prima della battaglia 9 (HERALD D4, D53): the League's Ecu on fb1 are unknown (battle, amount, direction,
    the treasury) until fb1's interpretation test, whose event names them."""
    st = make_state(phase="command", turn=2)
    st.done = []
    entries = []
    for side, line in (("league", "bribe fb1 3 defy"), ("french", "order fb1 delay"), ("french", "keep")):
        st, events = go(st, side, line)
        entries.append((side, line, [e.to_dict() for e in events]))
    seen = everything_public(st, entries)
    assert "delay" not in seen.lower() and "defy" not in seen and "bribe fb1" not in seen
    assert public.view(None, st, "french").armies["league"].ecu == 0
    assert public.view(None, st, "league").armies["league"].ecu == 1
    assert public.view(None, st, "french").secrets["league"] == {}
    st, events = go(st, "league", "keep dice=2")
    entries.append(("league", "keep dice=2", [e.to_dict() for e in events]))
    test = [e for e in events if e.kind == "interpretation"][0]
    assert test.outcome["ecu"] == {"league": 3} and "League spent 3 Ecu (defy)" in test.modifiers[1].reason
    shown = public_command(IW, None, st, "league", "bribe fb1 3 defy", entries[0][2])
    assert shown.text == "bribe fb1 3 defy"
    assert public_command(IW, None, st, "french", "order fb1 delay", entries[1][2]).text == "order fb1 delay"
    assert st.battles["fb1"].order == "delay" and public.view(None, st, "league").battles["fb1"].order == "delay"


def test_a_secret_event_keeps_its_content_only_under_the_hidden_key():
    """engine/core/public.py: the `secret` key of an event's inputs is dropped from every public
    view; the narrative never names the order."""
    st = orders_state()
    st2, events = go(st, "french", "order fb1 hold")
    assert events[0].inputs["secret"]["order"] == "hold" and "hold" not in events[0].narrative
    shown = public_command(IW, None, st2, "french", "order fb1 hold", events)
    assert "hold" not in repr([e.to_dict() for e in shown.events])


def test_hidden_companies_are_off_the_enemy_view():
    """IW Prima della battaglia 5: an ambush is seen only by its owner."""
    st = make_state()
    st.companies["lb1c1"].hidden = True
    assert "lb1c1" not in public.view(None, st, "french").companies
    assert "lb1c1" in public.view(None, st, "league").companies
    shown = public_command(IW, None, st, "league", "keep", [Event("x", "league", "IW", "lb1c1 waits")])
    assert "lb1c1" not in shown.events[0].narrative
