"""The random events [15], rolled when the end card shows a 5 [13], and what they leave in force.

[15] "Dado / Effetto": 1 limited visibility, 2 sunset, 3 surprise march, 4 reinforcements, 5 light
rain, 6 heavy rain (tables.RANDOM_EVENTS). What lasts is kept in `st.weather` and on the armies:

- visibility [15] 1: `weather["visibility"] = True`: only short-range fire (the fire module reads
  it), -1 on the Cpt rolls (command.roll_cpts); at the start of every later turn a d6: 4-6 it
  clears (`start_of_turn`);
- sunset [15] 2: `weather["sunset_turns"] = 2d6`, the turns left, the current one counting as the
  first (HERALD D45): the battle ends at the end of the turn that brings it to 0 (cards.end_turn);
  the first sunset of a battle may be ignored if both players agree (policy `sunset`, or asked):
  `weather["sunset_ignored"]`; a sunset while one runs changes nothing (HERALD D46);
- surprise march [15] 3: a die each (d6, ties rolled again), the winner's 1d4 on
  `army.surprise_march` single units that may triple their speed this turn or the next
  (`army.surprise_turns` = 2; the movement module spends them);
- reinforcements [15] 4: a die each, the winner's 1d4 bases destroyed by the enemy (not guns or
  generals) back within 10 cm of his own edge (policy `reinforcements`: Herald places them, or the
  player chooses which and where); they are listed in `st.returned` [12 B];
- light rain / heavy rain [15] 5-6: `weather["rain"] = "light" / "heavy"`, `weather["rain_turns"]`
  = 2 (the rest of this turn and the next, HERALD D23): firearms one die lower / no fire and half
  speed (the fire and movement modules read it).
"""
from __future__ import annotations

from engine.core.dice import DiceStream
from engine.core.errors import CannotParse, Illegal
from engine.core.events import Event

from engine.lion import checks, rules, tables
from engine.lion.rules import named, policy, side_of_letter
from engine.lion.state import LionState

EVENT_NAMES = {e.key: e.name for e in tables.RANDOM_EVENTS.values()}


def players(st: LionState) -> list[str]:
    """The sides in the cards' order: player A, then player B [3]."""
    return [side_of_letter(st, "A"), side_of_letter(st, "B")]


def random_event(sc, st: LionState, stream: DiceStream, roll: int | None = None) -> list[Event]:
    """[13] a 5 on the end card: "Consultare la tabella degli eventi casuali" [15]: a d6."""
    if roll is None:
        roll, dr = checks.roll(stream, 6, "the random events table")
        dice = [dr]
    else:
        dice = []
    ev = tables.random_event(roll)
    events = [Event("random_event", "", f"LdN [15] {roll}", f"Random event {roll}: {ev.name} ({ev.italian}). {ev.text}",
                    dice=dice, table="random events [15]", row=str(roll), outcome={"event": ev.key, "roll": roll})]
    events += HANDLERS[ev.key](sc, st, stream)
    return events


# -- 1 limited visibility --------------------------------------------------------------------------

def visibility(sc, st: LionState, stream: DiceStream) -> list[Event]:
    """[15] 1 "Visibilità limitata: Consentito solo il tiro a distanza breve. Sottrarre 1 a tutti
    i lanci di dado per il numero di Cpts." Tested at the start of each later turn."""
    st.weather["visibility"] = True
    return [Event("weather", "", "LdN [15] 1", "Visibility is limited: only short-range fire, -1 on the Cpt rolls; "
                  "a d6 at the start of each turn clears it on 4-6", outcome={"visibility": True})]


def visibility_test(sc, st: LionState, stream: DiceStream) -> list[Event]:
    """[15] 1 "All'inizio del turno successivo lanciare 1d6: 1-3 = La visibilità è ancora ridotta
    ... 4-6 = La visibilità torna normale"."""
    value, dr = checks.roll(stream, 6, "the visibility test")
    low, high = tables.VISIBILITY_CLEARS
    clears = low <= value <= high
    dr.effect = "visibility normal again" if clears else "still limited"
    if clears:
        st.weather.pop("visibility", None)
    return [Event("weather", "", "LdN [15] 1",
                  f"Visibility test at the start of turn {st.turn}: d6 {value}: "
                  + ("the visibility is normal again" if clears else "the visibility is still limited"),
                  dice=[dr], outcome={"visibility": not clears})]


# -- 2 sunset ------------------------------------------------------------------------------------------

def sunset(sc, st: LionState, stream: DiceStream) -> list[Event]:
    """[15] 2 "Tramonto: Lanciare 2d6; il risultato indica tra quanti turni termina la partita.
    La prima volta che ciò si verifica, se i giocatori sono d'accordo, può essere ignorato." The
    turns count the current one as the first (HERALD D45); a sunset while one is running changes
    nothing (HERALD D46)."""
    if "sunset_turns" in st.weather:
        return [Event("weather", "", "LdN [15] 2",
                      f"The sun is already setting: the battle ends in {st.weather['sunset_turns']} "
                      "turn(s), as before (HERALD D46)", outcome={"sunset_turns": st.weather["sunset_turns"]})]
    n, dice = checks.roll_2d6(stream, "sunset: turns left")
    events = [Event("weather", "", "LdN [15] 2", f"Sunset: 2d6 = {n}", dice=dice, outcome={"turns": n})]
    if not st.weather.get("sunset_seen"):
        st.weather["sunset_seen"] = True
        st.weather["sunset_offer"] = {"turns": n, "agreed": []}
        return events + sunset_agreement(sc, st)
    return events + set_sunset(st, n)


def set_sunset(st: LionState, n: int) -> list[Event]:
    st.weather["sunset_turns"] = n
    st.weather.pop("sunset_offer", None)
    last = st.turn + n - 1
    return [Event("weather", "", "LdN [15] 2",
                  f"The sun sets: the battle ends at the end of turn {last} ({n} turn(s), this one counting)",
                  outcome={"sunset_turns": n, "last_turn": last})]


def sunset_agreement(sc, st: LionState) -> list[Event]:
    """The first sunset may be ignored "se i giocatori sono d'accordo" [15] 2: each player's
    standing answer (policy `sunset`: keep, ignore, ask), player A first; one `keep` and the
    sunset stands; both `ignore` and it is ignored (HERALD D47)."""
    offer = st.weather.get("sunset_offer") or {}
    n = offer.get("turns", 0)
    for side in players(st):
        if side in offer.get("agreed", []):
            continue
        answer = policy(st, side, "sunset")
        if answer == "keep":
            return [Event("sunset_answer", side, "LdN [15] 2",
                          f"{side.title()} keeps the sunset (standing answer)")] + set_sunset(st, n)
        if answer == "ignore":
            offer.setdefault("agreed", []).append(side)
            continue
        st.pending = {"kind": "sunset", "side": side, "options": ["ignore", "keep"], "default": "keep",
                      "section": "LdN [15] 2",
                      "prompt": f"the first sunset: the battle would end in {n} turns (this one counting); "
                                "ignore it? Both players must agree",
                      "labels": {"ignore": "Ignore the sunset", "keep": "Keep the sunset"}}
        return []
    st.weather.pop("sunset_offer", None)
    st.weather["sunset_ignored"] = True
    return [Event("weather", "", "LdN [15] 2", "Both players agree: the first sunset is ignored",
                  outcome={"sunset_ignored": True})]


def resume_sunset(sc, st: LionState, side: str, answer: str, more: list[str], stream: DiceStream) -> list[Event]:
    st.pending = None
    offer = st.weather.get("sunset_offer") or {"turns": 0, "agreed": []}
    if answer == "keep":
        return [Event("sunset_answer", side, "LdN [15] 2", f"{side.title()} keeps the sunset")] + \
            set_sunset(st, offer.get("turns", 0))
    offer.setdefault("agreed", []).append(side)
    st.weather["sunset_offer"] = offer
    return [Event("sunset_answer", side, "LdN [15] 2", f"{side.title()} agrees to ignore the sunset")] + \
        sunset_agreement(sc, st)


# -- 3 and 4: who benefits -------------------------------------------------------------------------------

def die_off(st: LionState, stream: DiceStream, what: str) -> tuple[str, list[Event]]:
    """[15] 3-4 "lanciando ciascuno 1 dado. Il più alto vince, rilanciare in caso di parità"
    (a d6 each, HERALD D9)."""
    events = []
    a, b = players(st)
    for attempt in range(1, 50):
        ra, da = checks.roll(stream, tables.EVENT_WINNER_DIE, f"{what}: {a.title()}'s die", a)
        rb, db = checks.roll(stream, tables.EVENT_WINNER_DIE, f"{what}: {b.title()}'s die", b)
        winner = a if ra > rb else b if rb > ra else ""
        events.append(Event("die_off", winner, "LdN [15]",
                            f"{what}: {a.title()} d6 {ra}, {b.title()} d6 {rb}: "
                            + (f"{winner.title()} wins" if winner else "a tie, rolled again"),
                            dice=[da, db], outcome={"winner": winner}))
        if winner:
            return winner, events
    return a, events


def surprise_march(sc, st: LionState, stream: DiceStream) -> list[Event]:
    """[15] 3 "Il giocatore che vince lancia 1d4. Il risultato indica il numero di singole unità
    che possono triplicare la propria velocità in questo turno o nel successivo."""
    winner, events = die_off(st, stream, "Surprise march")
    n, dr = checks.roll(stream, tables.EVENT_UNITS_DIE, "surprise march: units", winner)
    army = st.armies[winner]
    army.surprise_march = n
    army.surprise_turns = tables.RANDOM_EVENTS[3].turns
    events.append(Event("surprise_march", winner, "LdN [15] 3",
                        f"{winner.title()} rolls d4 {n}: {n} single unit(s) may move at triple speed this turn or the next",
                        dice=[dr], outcome={"units": n}))
    return events


# -- 4 reinforcements ----------------------------------------------------------------------------------

def bases_of(unit) -> int:
    """How many bases a unit stands on [2]: a Pike & Shot two side by side, a Tercio two P&S one
    behind the other (four), any other unit one (HERALD D48: the d4 of [15] 4 counts bases)."""
    if unit.type == "tercio":
        return 4
    if "pike_and_shot" in unit.type:
        return 2
    return 1


def eligible(st: LionState, side: str) -> list:
    """[15] 4 "tra le proprie già distrutte dall'avversario (con l'esclusione di Artiglieria o
    generali)": destroyed units of `side`, not artillery, fitting in the bases left."""
    left = st.armies[side].reinforcements
    out = []
    for u in sorted(st.units.values(), key=lambda u: u.id):
        if u.side == side and u.status == "destroyed" and tables.troop(u.type).arm not in \
                tables.REINFORCEMENT_EXCLUDED_ARMS and bases_of(u) <= left:
            out.append(u)
    return out


def reinforcements(sc, st: LionState, stream: DiceStream) -> list[Event]:
    """[15] 4 "Il giocatore che vince lancia 1d4 e preleva un numero corrispondente di basette tra
    le proprie già distrutte dall'avversario ... schierandole entro 10 cm dal proprio bordo
    tavolo." Herald places them (policy `reinforcements auto`) or asks which and where."""
    winner, events = die_off(st, stream, "Reinforcements")
    n, dr = checks.roll(stream, tables.EVENT_UNITS_DIE, "reinforcements: bases", winner)
    st.armies[winner].reinforcements = n
    events.append(Event("reinforcements", winner, "LdN [15] 4",
                        f"{winner.title()} rolls d4 {n}: up to {n} destroyed base(s) may come back", dice=[dr],
                        outcome={"bases": n}))
    return events + reinforce(sc, st, winner)


def reinforce(sc, st: LionState, side: str) -> list[Event]:
    """Bring back what is owed: all at once when the side's policy is auto, else one decision a
    unit."""
    if not eligible(st, side):
        st.armies[side].reinforcements = 0
        return [Event("reinforcements", side, "LdN [15] 4",
                      f"{side.title()} has no destroyed base to bring back (guns and generals never come back)")]
    if policy(st, side, "reinforcements") == "auto":
        return place_all(sc, st, side)
    ids = ", ".join(f"{named(sc, u.id)} ({bases_of(u)} base{'s' if bases_of(u) > 1 else ''})"
                    for u in eligible(st, side))
    st.pending = {"kind": "reinforcements", "side": side, "options": ["bring", "auto", "none"],
                  "default": "auto", "section": "LdN [15] 4",
                  "prompt": f"reinforcements: {st.armies[side].reinforcements} base(s) may come back within 10 cm "
                            f"of your edge: `react bring <unit> [x]` (x: the centre of its front, cm), "
                            f"`react auto` (Herald places the rest) or `react none`; destroyed: {ids}",
                  "labels": {"bring": "Bring a unit back", "auto": "Herald places them", "none": "No more"}}
    return []


def resume_reinforcements(sc, st: LionState, side: str, answer: str, more: list[str],
                          stream: DiceStream) -> list[Event]:
    army = st.armies[side]
    if answer == "none":
        st.pending = None
        army.reinforcements = 0
        return [Event("reinforcements", side, "LdN [15] 4", f"{side.title()} brings no more units back")]
    if answer == "auto":
        st.pending = None
        return place_all(sc, st, side)
    if not more:
        raise CannotParse("usage: react bring <unit> [x]")
    uid = more[0]
    ok = {u.id: u for u in eligible(st, side)}
    if uid not in ok:
        from engine.core.ids import unknown
        raise Illegal(unknown(uid, "one of your destroyed units that may come back",
                              [(u.id, rules.display_name(sc, u.id)) for u in ok.values()]), "LdN [15] 4")
    x = None
    if len(more) > 1:
        try:
            x = float(more[1])
        except ValueError:
            raise CannotParse(f"the x of the unit's front centre is a number of cm, not '{more[1]}'") from None
    if len(more) > 2:
        raise CannotParse(f"the words '{' '.join(more[2:])}' are not part of the answer: react bring <unit> [x]")
    unit = ok[uid]
    pose = placement(sc, st, unit, x)
    if pose is None:
        where = f"at x {x:g}" if x is not None else "anywhere"
        raise Illegal(f"{named(sc, uid)} cannot be placed {where} within 10 cm of your edge: it would overlap "
                      "another base, ground it may not stand on or the table's side", "LdN [15] 4")
    st.pending = None
    events = [bring_back(sc, st, unit, pose)]
    return events + reinforce(sc, st, side)


def home_edge(sc, st: LionState, side: str) -> str:
    """"south" or "north": the army's home edge (HERALD D1: player A's is the south)."""
    try:
        return sc.armies[side].home_edge
    except (AttributeError, KeyError):
        return "south" if side == side_of_letter(st, "A") else "north"


def placement(sc, st: LionState, unit, x: float | None = None):
    """A place for a returning unit within 10 cm of its own edge [15] 4, facing the enemy: its
    front edge 10 cm from the edge (further back when that is taken), at `x` when given, else the
    free place nearest the middle of the table; never over another base, off the table, in water,
    in a marsh (only infantry) or a town (only the troops that may hold one) [5 B]. None when there
    is no room. Returns (x, y, facing)."""
    from engine.core.table.geometry import Pose, base_polygon, rnd
    width = float(getattr(sc, "width", tables.TABLE_WIDTH) or tables.TABLE_WIDTH)
    height = float(getattr(sc, "height", tables.TABLE_HEIGHT) or tables.TABLE_HEIGHT)
    troop = tables.troop(tables.effective_type(unit.type, unit.mounted))
    fp = checks.footprint(unit)
    south = home_edge(sc, st, unit.side) == "south"
    facing = 0.0 if south else 180.0
    zone = tables.REINFORCEMENT_ZONE
    others = []
    for u in sorted(st.units.values(), key=lambda u: u.id):
        if u.alive and u.id != unit.id:
            others.append(base_polygon(checks.pose(u), checks.footprint(u)))
    for g in sorted(st.generals.values(), key=lambda g: g.id):
        if g.alive:
            others.append(base_polygon(checks.pose(g), checks.footprint(g)))
    for c in sorted(st.camps.values(), key=lambda c: c.side):
        others.append(base_polygon(checks.pose(c), checks.footprint(c)))
    bad_ground = []
    for f in getattr(sc, "features", ()) or ():
        if f.kind in tables.IMPASSABLE_WATER or (f.kind == "marsh" and not troop.enters_marsh) \
                or (f.kind == "town" and not troop.occupies_towns):
            bad_ground.append(f.geometry)

    def fits(px: float, front: float):
        y = front if south else height - front
        poly = base_polygon(Pose(px, y, facing), fp)
        minx, miny, maxx, maxy = poly.bounds
        if minx < -1e-6 or maxx > width + 1e-6 or miny < -1e-6 or maxy > height + 1e-6:
            return None
        if any(poly.intersects(o) for o in others) or any(poly.intersects(g) for g in bad_ground):
            return None
        return (rnd(px), rnd(y), facing)

    fronts = []
    f = zone
    while f >= fp.depth - 1e-9:
        fronts.append(round(f, 2))
        f -= 0.5
    if x is not None:
        for front in fronts:
            got = fits(x, front)
            if got:
                return got
        return None
    xs = [width / 2]
    step = 0.5
    k = 1
    while width / 2 - k * step >= 0:
        xs += [width / 2 - k * step, width / 2 + k * step]
        k += 1
    for front in fronts:
        for px in xs:
            got = fits(px, front)
            if got:
                return got
    return None


def bring_back(sc, st: LionState, unit, pose) -> Event:
    """A destroyed unit back on the table in good order [15] 4; still lost for victory [12 B]."""
    x, y, facing = pose
    unit.x, unit.y, unit.facing = x, y, facing
    unit.status = "active"
    unit.hits = 0
    unit.looting = False
    unit.moved = True                  # it arrives: no move this turn (HERALD D48)
    if unit.id not in st.returned:
        st.returned.append(unit.id)
    st.armies[unit.side].reinforcements -= bases_of(unit)
    return Event("reinforcement", unit.side, "LdN [15] 4, [12 B]",
                 f"{named(sc, unit.id)} comes back at ({x:g}, {y:g}) facing {facing:g}; it still counts as lost "
                 "for victory", outcome={"unit": unit.id, "x": x, "y": y, "facing": facing})


def place_all(sc, st: LionState, side: str) -> list[Event]:
    """Herald's choice: the largest destroyed units first (then by id), each at the free place
    nearest the middle of the edge."""
    events = []
    while True:
        candidates = sorted(eligible(st, side), key=lambda u: (-bases_of(u), u.id))
        placed = False
        for unit in candidates:
            pose = placement(sc, st, unit)
            if pose is not None:
                events.append(bring_back(sc, st, unit, pose))
                placed = True
                break
        if not placed:
            break
    left = st.armies[side].reinforcements
    st.armies[side].reinforcements = 0
    if not events:
        events.append(Event("reinforcements", side, "LdN [15] 4", f"{side.title()}: no room to bring any unit back"))
    elif left:
        events.append(Event("reinforcements", side, "LdN [15] 4",
                            f"{side.title()}: {left} base(s) unused (no destroyed unit fits)"))
    return events


# -- 5 and 6 rain ----------------------------------------------------------------------------------------

def light_rain(sc, st: LionState, stream: DiceStream) -> list[Event]:
    """[15] 5 "Pioggia leggera: per le prossime due mosse le armi da fuoco sparano lanciando 1
    dado minore di quanto normale." (HERALD D23: the rest of this turn and the next.)"""
    st.weather["rain"] = "light"
    st.weather["rain_turns"] = tables.RANDOM_EVENTS[5].turns
    return [Event("weather", "", "LdN [15] 5", "Light rain: firearms shoot one die lower, this turn and the next",
                  outcome={"rain": "light", "rain_turns": st.weather["rain_turns"]})]


def heavy_rain(sc, st: LionState, stream: DiceStream) -> list[Event]:
    """[15] 6 "Pioggia forte: Per le prossime due mosse le armi da fuoco non sparano e le velocità
    di marcia sono ridotte della metà." (HERALD D23.)"""
    st.weather["rain"] = "heavy"
    st.weather["rain_turns"] = tables.RANDOM_EVENTS[6].turns
    return [Event("weather", "", "LdN [15] 6", "Heavy rain: no firearms fire and moves are halved, this turn and the next",
                  outcome={"rain": "heavy", "rain_turns": st.weather["rain_turns"]})]


HANDLERS = {"limited_visibility": visibility, "sunset": sunset, "surprise_march": surprise_march,
            "reinforcements": reinforcements, "light_rain": light_rain, "heavy_rain": heavy_rain}


# -- the turn's ends ---------------------------------------------------------------------------------------

def end_of_turn(sc, st: LionState) -> list[Event]:
    """The countdowns at the end of a turn: rain and surprise march (the current turn counts as
    the first of their two, HERALD D23), the sunset's turns left (HERALD D45)."""
    events = []
    if "rain_turns" in st.weather:
        st.weather["rain_turns"] -= 1
        if st.weather["rain_turns"] <= 0:
            st.weather.pop("rain_turns", None)
            rain = st.weather.pop("rain", "")
            events.append(Event("weather", "", "LdN [15] 5-6", f"The {rain} rain stops"))
    for side in sorted(st.armies):
        army = st.armies[side]
        if army.surprise_turns:
            army.surprise_turns -= 1
            if army.surprise_turns <= 0:
                if army.surprise_march:
                    events.append(Event("surprise_march", side, "LdN [15] 3",
                                        f"{side.title()}'s surprise march is over ({army.surprise_march} unused)"))
                army.surprise_march = 0
    if "sunset_turns" in st.weather:
        st.weather["sunset_turns"] = max(0, st.weather["sunset_turns"] - 1)
    return events


def start_of_turn(sc, st: LionState, stream: DiceStream) -> list[Event]:
    """The start of a turn: the visibility test [15] 1, then units arriving this turn (the
    scenario's `arrives = "turn N"`) come on at their places when clear (HERALD D49)."""
    events = []
    if st.weather.get("visibility"):
        events += visibility_test(sc, st, stream)
    events += arrivals(sc, st)
    return events


def arrivals(sc, st: LionState) -> list[Event]:
    from engine.core.table.geometry import base_polygon
    events = []
    for u in sorted(st.units.values(), key=lambda u: u.id):
        if u.status != "waiting":
            continue
        try:
            turn = sc.unit(u.id).arrival_turn
        except (AttributeError, KeyError):
            continue
        if not turn or turn > st.turn:
            continue
        poly = base_polygon(checks.pose(u), checks.footprint(u))
        blocked = [o.id for o in sorted(st.units.values(), key=lambda o: o.id)
                   if o.alive and base_polygon(checks.pose(o), checks.footprint(o)).intersects(poly)]
        if blocked:
            events.append(Event("arrival", u.side, "HERALD D49",
                                f"{named(sc, u.id)} cannot come on: {', '.join(blocked)} stand(s) where it enters; "
                                "it tries again next turn"))
            continue
        u.status = "active"
        events.append(Event("arrival", u.side, "HERALD D49", f"{named(sc, u.id)} arrives at ({u.x:g}, {u.y:g})",
                            outcome={"unit": u.id}))
    events += general_arrivals(sc, st)
    return events


def general_arrivals(sc, st: LionState) -> list[Event]:
    """A general of the scenario with `arrives = "turn N"` comes on at the start of turn N at his
    place in the file, like the units he arrives with (HERALD D49, D122): Pappenheim at Lützen.
    When a base stands there he waits a turn. Until then he commands nothing (he is not alive)
    but counts in his army's total [11 B] (HERALD D22)."""
    from engine.core.table.geometry import base_polygon
    events = []
    for g in sorted(st.generals.values(), key=lambda g: g.id):
        if g.status != "waiting":
            continue
        try:
            turn = sc.general(g.id).arrival_turn
        except (AttributeError, KeyError, StopIteration):
            continue
        if not turn or turn > st.turn:
            continue
        poly = base_polygon(checks.pose(g), checks.footprint(g))
        blocked = [o.id for o in sorted(st.units.values(), key=lambda o: o.id)
                   if o.alive and base_polygon(checks.pose(o), checks.footprint(o)).intersects(poly)]
        if blocked:
            events.append(Event("arrival", g.side, "HERALD D122",
                                f"{named(sc, g.id)} cannot come on: {', '.join(blocked)} stand(s) where he enters; "
                                "he tries again next turn"))
            continue
        g.status = "active"
        events.append(Event("arrival", g.side, "HERALD D122", f"{named(sc, g.id)} arrives at ({g.x:g}, {g.y:g})",
                            outcome={"general": g.id}))
    return events


rules.register_reaction("sunset", resume_sunset)
rules.register_reaction("reinforcements", resume_reinforcements)
