"""Before the battle (IW Prima della battaglia 1-9).

1 the army's organisation is the scenario's; 2 the captains' personalities (IW Tabella 2: every
captain rolls a d6 by his company's morale class; the Swiss are always Rash); 3 season, weather
and the hour (IW Tabelle 3-4: the weather die plus the season die; 2d6 for the hour), with the
dawn assault on a 2 (decided once the attacker is known) and the bad-weather postponement when
both players agree; 4 attacker and defender (the side with more Rash captains; a tie: each rolls
a d6, the higher attacks); 5 the secret deployment map, with the defender's ambushes; 6 field
defences, then camps, the defender first; 7 the battles placed one at a time, alternately, the
defender first; 8 the written orders of every battle (secret); 9 bribery (secret Ecu).

A scenario may fix any step (captains already set, the weather and hour, the attacker, companies
already on the table, camps, orders): the step then passes by itself. `step(sc, st, stream)`
walks the current step: it returns (events, wait) with wait True when the players must act.
"""
from __future__ import annotations

from engine.core.dice import DiceStream
from engine.core.errors import CannotParse, Illegal
from engine.core.events import Event

from engine.italianwars import checks, rules, tables
from engine.italianwars.public import reveal
from engine.italianwars.state import PREBATTLE_STEPS, SIDES, IWState

S_PERSON = "IW Tabella 2"
S_WEATHER = "IW Prima della battaglia 3"
S_ATTACKER = "IW Prima della battaglia 4"
S_DEPLOY = "IW Prima della battaglia 5"
S_CAMPS = "IW Prima della battaglia 6"
S_PLACE = "IW Prima della battaglia 7"
S_ORDERS = "IW Prima della battaglia 8"
S_BRIBE = "IW Prima della battaglia 9"

SWISS = tables.SWISS_NATIONS
DEPLOY_DEPTH = tables.DEPLOYMENT_DEPTH      # "fino a 6 udm dal bordo del tavolo"
TABLE_SIZE = (tables.TABLE_WIDTH, tables.TABLE_HEIGHT)
VOLUNTARY = tables.VOLUNTARY_ORDERS
NEEDS_OBJECTIVE = ("occupy", "march")      # HERALD D51


def weather_for(total: int) -> str:
    """IW Tabella 4: the weather die plus the season die (HERALD D17)."""
    return tables.WEATHER_TABLE[total]


def edge_of(sc, st: IWState, side: str) -> str:
    """A side's home edge ("south", "north", "west", "east") from the scenario; French south and
    the League north when it says nothing."""
    for holder in (getattr(sc, "armies", None) or {},):
        a = holder.get(side) if isinstance(holder, dict) else None
        e = (getattr(a, "home_edge", "") or getattr(a, "edge", "")) if a is not None else ""
        if e:
            return e
    edges = getattr(sc, "edges", None) or {}
    if isinstance(edges, dict) and edges.get(side):
        return edges[side]
    return "south" if side == SIDES[0] else "north"


def table_size(sc) -> tuple[float, float]:
    t = getattr(sc, "table", None)
    w = getattr(t, "width", None) or getattr(sc, "width", None)
    h = getattr(t, "height", None) or getattr(t, "depth", None) or getattr(sc, "height", None)
    return (float(w), float(h)) if w and h else TABLE_SIZE


def depth_from_edge(sc, st: IWState, side: str, x: float, y: float) -> float:
    w, h = table_size(sc)
    return {"south": y, "north": h - y, "west": x, "east": w - x}[edge_of(sc, st, side)]


def defender(st: IWState) -> str:
    return st.other(st.attacker) if st.attacker in SIDES else SIDES[1]


# -- the walk ------------------------------------------------------------------------------------------

def step(sc, st: IWState, stream: DiceStream) -> tuple[list[Event], bool]:
    fn = {"personalities": step_personalities, "weather": step_weather, "attacker": step_attacker,
          "deployment": step_deployment, "defences": step_defences, "placement": step_placement,
          "orders": step_orders, "bribery": step_bribery, "done": step_done}[st.step]
    return fn(sc, st, stream)


def next_step(st: IWState) -> None:
    st.step = PREBATTLE_STEPS[PREBATTLE_STEPS.index(st.step) + 1]
    st.done = []
    st.active_side = ""


def to_act(st: IWState) -> str | None:
    if st.step in ("personalities", "weather", "attacker"):
        return st.attacker or SIDES[0]
    if st.step in ("deployment", "orders", "bribery"):
        for side in ([st.attacker, defender(st)] if st.attacker else list(SIDES)):
            if side not in st.done:
                return side
        return None
    if st.step in ("defences", "placement"):
        return st.active_side or defender(st)
    return None


def uncaptained(st: IWState) -> list:
    return [c for c in sorted(st.companies.values(), key=lambda c: c.id) if not c.captain]


def step_personalities(sc, st, stream):
    if not uncaptained(st):
        next_step(st)
        return [], False
    if all(rules.nation_of(sc, st, c.id) in SWISS for c in uncaptained(st)):
        return roll_personalities(sc, st, stream), False
    return [], True


def roll_personalities(sc, st: IWState, stream: DiceStream) -> list[Event]:
    """IW Prima della battaglia 2, IW Tabella 2: a d6 for every captain without a personality,
    each side's dice its own."""
    events = []
    for c in uncaptained(st):
        morale, nation = rules.morale_of(sc, st, c.id), rules.nation_of(sc, st, c.id)
        if nation in SWISS:
            c.captain = "rash"
            events.append(Event("personality", c.side, S_PERSON,
                                f"{rules.named(sc, c.id)}: a Swiss captain is always Rash (Irruento)",
                                table="Tabella 2 Personalità del Comandante", row="Svizzeri",
                                outcome={"company": c.id, "personality": "rash"}))
            continue
        value, dr = checks.roll(stream, f"personality of {c.id}'s captain", c.side)
        c.captain = tables.personality(morale, nation, value)
        row = tables.personality_row(morale, nation)
        dr.effect = c.captain
        events.append(Event("personality", c.side, S_PERSON,
                            f"{rules.named(sc, c.id)} ({morale}): d6 {value}: its captain is {c.captain}",
                            dice=[dr], table="Tabella 2 Personalità del Comandante", row=f"{row} {value}",
                            outcome={"company": c.id, "personality": c.captain}))
    next_step(st)
    return events


def step_weather(sc, st, stream):
    if st.weather and st.season:
        if st.weather == "bad" and not st.options.get("postpone_asked"):
            return ask_postpone(sc, st, stream), False
        next_step(st)
        return [], False
    return [], True


def roll_weather(sc, st: IWState, stream: DiceStream) -> list[Event]:
    """IW Prima della battaglia 3, IW Tabelle 3-4, IW Ora del giorno: the season die, the weather
    die added to it, 2d6 for the hour (the day's clock)."""
    s, ds = checks.roll(stream, "the season (Tabella 3)")
    w, dw = checks.roll(stream, "the weather (Tabella 4: added to the season die)")
    h, dh = checks.roll_2d6(stream, "the hour of the day")
    st.season, st.weather, st.clock = tables.season(s), tables.weather(s, w), tables.start_clock(*(d.result for d in dh))
    st.options["season_die"] = s
    ds.effect, dw.effect = st.season, st.weather
    events = [Event("weather", "", S_WEATHER,
                    f"Season d6 {s}: {st.season}; weather d6 {w} + {s} = {s + w}: {st.weather} weather; "
                    f"hour 2d6 = {h}" + (": dawn" if h == 2 else ""),
                    dice=[ds, dw, *dh], table="Tabella 3 Stagione; Tabella 4 Tempo atmosferico",
                    row=f"season {s}, weather {s + w}, hour {h}",
                    outcome={"season": st.season, "weather": st.weather, "clock": h})]
    if st.weather == "bad":
        events += ask_postpone(sc, st, stream)
    return events


def ask_postpone(sc, st: IWState, stream: DiceStream, after: str = "") -> list[Event]:
    """IW Tempo cattivo: both players may wait for the weather to clear, only if both agree ("Se uno
    decide di combattere allora l'altro dovrà farlo"); each side's standing answer first, the
    French asked before the League (HERALD D66)."""
    st.options["postpone_asked"] = True
    for side in SIDES:
        if side == after or (after and SIDES.index(side) < SIDES.index(after)):
            continue
        answer = rules.policy(st, side, "postpone")
        if answer == "fight":
            return [Event("postpone", side, "IW Tempo cattivo", f"{side.title()} will fight in the bad weather",
                          outcome={"side": side, "answer": "fight"})]
        if answer == "ask":
            st.pending = {"kind": "postpone", "side": side, "options": ["fight", "wait"],
                          "labels": {"fight": "Fight now", "wait": "Wait for better weather"},
                          "section": "IW Tempo cattivo", "default": "fight",
                          "prompt": "the weather is bad: fight now, or wait for it to clear (both must agree)?"}
            return []
    return wait_for_weather(sc, st, stream)


def wait_for_weather(sc, st: IWState, stream: DiceStream) -> list[Event]:
    """IW Tempo cattivo: both wait: a d6 for the moves (hours) before the weather is rolled again
    (the season's die kept); past hour 16 take 12: the battle starts the next morning. Repeated
    until the weather is not bad."""
    events = []
    for _ in range(50):
        n, dn = checks.roll(stream, "hours to wait for the weather")
        clock, morning = tables.postponed_clock(st.clock, n)
        st.clock = clock
        w, dw = checks.roll(stream, "the weather again (Tabella 4)")
        s = int(st.options.get("season_die") or tables.season_die(st.season or "spring", w))
        st.weather = weather_for(s + w)
        events.append(Event("weather", "", "IW Tempo cattivo",
                            f"Both wait: d6 {n} hours, now hour {clock}" + (" of the next morning" if morning else "")
                            + f"; weather d6 {w} + {s} = {s + w}: {st.weather}",
                            dice=[dn, dw], table="Tabella 4 Tempo atmosferico", row=str(s + w),
                            outcome={"clock": clock, "weather": st.weather, "next_morning": morning}))
        if st.weather != "bad":
            break
    return events


def resume_postpone(sc, st: IWState, side: str, answer: str, more, stream: DiceStream) -> list[Event]:
    st.pending = None
    if answer == "fight":
        return [Event("postpone", side, "IW Tempo cattivo", f"{side.title()} will fight in the bad weather",
                      outcome={"side": side, "answer": "fight"})]
    events = [Event("postpone", side, "IW Tempo cattivo", f"{side.title()} would wait for better weather",
                    outcome={"side": side, "answer": "wait"})]
    if side == SIDES[-1]:
        return events + wait_for_weather(sc, st, stream)
    return events + ask_postpone(sc, st, stream, after=side)


def step_attacker(sc, st, stream):
    if st.attacker in SIDES:
        if st.clock == tables.DAWN_ASSAULT_CLOCK and "dawn_assault" not in st.options:
            return ask_dawn(sc, st), False
        next_step(st)
        return [], False
    counts = rash_counts(st)
    who = tables.attacker_by_captains(counts[SIDES[0]], counts[SIDES[1]])
    if who:
        st.attacker = SIDES[who - 1]
        return [Event("attacker", st.attacker, S_ATTACKER,
                      f"{st.attacker.title()} has more Rash captains ({counts[st.attacker]} to "
                      f"{counts[st.other(st.attacker)]}): it attacks", outcome={"attacker": st.attacker, "rash": counts})], False
    return [], True


def rash_counts(st: IWState) -> dict[str, int]:
    """IW Prima della battaglia 4: the Rash captains of each side (HERALD D11: every captain of
    the army, Rash only)."""
    return {s: sum(1 for c in st.companies.values() if c.side == s and c.captain in tables.ATTACKER_COUNTS)
            for s in SIDES}


def roll_attacker(sc, st: IWState, stream: DiceStream) -> list[Event]:
    """The tie: "lanciare 1D6: il più alto sarà l'attaccante" (equal dice: rolled again)."""
    counts = rash_counts(st)
    for _ in range(50):
        a, da = checks.roll(stream, f"{SIDES[0]}'s die for the attacker", SIDES[0])
        b, db = checks.roll(stream, f"{SIDES[1]}'s die for the attacker", SIDES[1])
        if a != b:
            st.attacker = SIDES[0] if a > b else SIDES[1]
            return [Event("attacker", st.attacker, S_ATTACKER,
                          f"Rash captains tied {counts[SIDES[0]]}-{counts[SIDES[1]]}: d6 {a} against {b}: "
                          f"{st.attacker.title()} attacks", dice=[da, db],
                          outcome={"attacker": st.attacker, "rash": counts})]
    raise Illegal("the dice kept tying", S_ATTACKER)


def ask_dawn(sc, st: IWState) -> list[Event]:
    """IW Assalto all'alba: the hour is 2: the attacker may attack at dawn."""
    side = st.attacker
    answer = rules.policy(st, side, "dawn")
    if answer in ("attack", "normal"):
        return set_dawn(st, side, answer == "attack")
    st.pending = {"kind": "dawn", "side": side, "options": ["attack", "normal"],
                  "labels": {"attack": "Dawn assault", "normal": "A normal start"},
                  "section": "IW Assalto all'alba", "default": "normal",
                  "prompt": "the hour is 2: make a dawn assault (the defender starts disordered and idle until he sees you)?"}
    return []


def set_dawn(st: IWState, side: str, dawn: bool) -> list[Event]:
    st.options["dawn_assault"] = dawn
    text = ("makes a dawn assault: the defender's troops start disordered and do nothing until the enemy is in sight"
            if dawn else "does not make a dawn assault")
    return [Event("dawn", side, "IW Assalto all'alba", f"{side.title()} {text}", outcome={"dawn_assault": dawn})]


def resume_dawn(sc, st, side, answer, more, stream):
    st.pending = None
    return set_dawn(st, side, answer == "attack")


# -- step 5: the secret deployment map ---------------------------------------------------------------

def waiting_battles(st: IWState, side: str) -> list[str]:
    return sorted({c.battle for c in st.companies.values() if c.side == side and c.status == "waiting"})


def the_map(st: IWState, side: str) -> dict:
    return st.secrets.setdefault(side, {}).setdefault("deployment", {})


def step_deployment(sc, st, stream):
    if not any(waiting_battles(st, s) for s in SIDES):
        next_step(st)
        return [], False
    for s in SIDES:
        if not waiting_battles(st, s) and s not in st.done:
            st.done.append(s)
    if all(s in st.done for s in SIDES):
        next_step(st)
        return [Event("deployment", "", S_DEPLOY, "Both deployment maps are drawn (secret until placed)")], False
    return [], True


def layout(sc, st: IWState, bid: str, x: float, y: float, facing: float) -> dict[str, tuple[float, float, float]]:
    """A battle's companies in line, side by side and touching ("a contatto tra di loro", IW
    Organizzazione dell'esercito), left to right in id order, centred on (x, y) (HERALD D57)."""
    from engine.core.table.geometry import rightward, rnd
    comps = sorted(c.id for c in st.companies.values() if c.battle == bid and c.alive or
                   (c.battle == bid and c.status == "waiting"))
    rx, ry = rightward(facing)
    n = len(comps)
    return {cid: (rnd(x + rx * (i - (n - 1) / 2)), rnd(y + ry * (i - (n - 1) / 2)), facing)
            for i, cid in enumerate(comps)}


def parse_xy(word: str, section: str) -> tuple[float, float]:
    try:
        a, b = word.split(",")
        return float(a), float(b)
    except (ValueError, AttributeError):
        raise CannotParse(f"'{word}' is not a place: give x,y in UDM, e.g. 22.5,3") from None


def facing_arg(args: list[str], default: float) -> tuple[float, list[str]]:
    if "facing" in args:
        i = args.index("facing")
        try:
            value = float(args[i + 1])
        except (IndexError, ValueError):
            raise CannotParse("facing needs a number of degrees, e.g. facing 0") from None
        return value % 360, args[:i] + args[i + 2:]
    return default, args


def default_facing(sc, st: IWState, side: str) -> float:
    return {"south": 0.0, "north": 180.0, "west": 90.0, "east": 270.0}[edge_of(sc, st, side)]


def do_deploy(sc, st: IWState, side: str, cmd, stream) -> list[Event]:
    """`deploy <battle> <x,y> [facing <deg>]` (IW Prima della battaglia 5): a battle's place on the
    side's secret map, its companies in line; the army within 6 UDM of its own edge (an ambush
    anywhere in its own half: `ambush`)."""
    rules.need_phase(st, "prebattle", "The deployment map is drawn", S_DEPLOY, "deployment")
    args = list(cmd.args)
    facing, args = facing_arg(args, default_facing(sc, st, side))
    if len(args) != 2:
        raise CannotParse("usage: deploy <battle> <x,y> [facing <degrees>]")
    b = rules.battle_of(sc, st, side, args[0])
    if b.id not in waiting_battles(st, side):
        raise Illegal(f"{rules.battle_name(sc, st, b.id)} is already on the table", S_DEPLOY)
    x, y = parse_xy(args[1], S_DEPLOY)
    places = layout(sc, st, b.id, x, y, facing)
    w, h = table_size(sc)
    ambush = set(st.secrets.get(side, {}).get("ambush", []))
    for cid, (cx, cy, f) in places.items():
        c = st.companies[cid]
        c.x, c.y, c.facing = cx, cy, f
        poly = checks.polygon(sc, st, c)
        minx, miny, maxx, maxy = poly.bounds
        if minx < -1e-6 or miny < -1e-6 or maxx > w + 1e-6 or maxy > h + 1e-6:
            raise Illegal(f"{rules.named(sc, cid)} would stand off the table ({w:g} x {h:g} UDM)", S_DEPLOY)
        if cid in ambush:
            continue
        deepest = max(depth_from_edge(sc, st, side, px, py) for px, py in poly.exterior.coords)
        if deepest > DEPLOY_DEPTH + 1e-6:
            raise Illegal(f"{rules.named(sc, cid)} would stand {deepest:.2f} UDM from {side.title()}'s "
                          f"{edge_of(sc, st, side)} edge: the army deploys within {DEPLOY_DEPTH:g} UDM "
                          f"({deepest - DEPLOY_DEPTH:.2f} too far)", S_DEPLOY)
    key = f"deploy:{b.id}"
    the_map(st, side)[b.id] = {"x": x, "y": y, "facing": facing, "key": key}
    if side in st.done:
        st.done.remove(side)
    return [Event("deploy", side, S_DEPLOY, f"{side.title()} draws a battle on its deployment map (secret)",
                  inputs={"secret": {"key": key, "battle": b.id, "x": x, "y": y, "facing": facing}})]


def do_ambush(sc, st: IWState, side: str, cmd, stream) -> list[Event]:
    """`ambush <company...>|none` (IW Prima della battaglia 5): "Solo il difensore può disporre
    truppe in Imboscata, nascosto e in terreno rotto o chiuso od al di fuori della vista del
    nemico, e comunque non oltre la propria metà del tavolo". Each company's place is its
    battle's on the map; it must lie in its own half and in broken or closed ground (HERALD D52:
    "out of the enemy's sight" cannot be judged before the enemy is placed: a scenario may set
    such an ambush itself)."""
    rules.need_phase(st, "prebattle", "Ambushes are drawn", S_DEPLOY, "deployment")
    if side != defender(st):
        raise Illegal(f"only the defender ({defender(st).title()}) may lay ambushes", S_DEPLOY)
    words = [w for w in cmd.args if w.lower() != "none"]
    mapped = the_map(st, side)
    w, h = table_size(sc)
    chosen = []
    for word in words:
        c = st.companies.get(word) or st.companies.get(word.lower())
        if c is None or c.side != side or c.status != "waiting":
            raise Illegal(f"'{word}' is not one of your companies still off the table", S_DEPLOY)
        if c.battle not in mapped:
            raise Illegal(f"{rules.named(sc, c.id)}'s battle is not on your map yet: deploy it first", S_DEPLOY)
        m = mapped[c.battle]
        cx, cy, f = layout(sc, st, c.battle, m["x"], m["y"], m["facing"])[c.id]
        c.x, c.y, c.facing = cx, cy, f
        poly = checks.polygon(sc, st, c)
        half = h / 2 if edge_of(sc, st, side) in ("south", "north") else w / 2
        deepest = max(depth_from_edge(sc, st, side, px, py) for px, py in poly.exterior.coords)
        if deepest > half + 1e-6:
            raise Illegal(f"{rules.named(sc, c.id)} would lie {deepest - half:.2f} UDM beyond your half of the table", S_DEPLOY)
        cats = checks.categories_at(sc, poly)
        if not cats & {"broken", "closed"}:
            raise Illegal(f"{rules.named(sc, c.id)} is not in broken or closed ground: an ambush must be hidden there",
                          S_DEPLOY)
        chosen.append(c.id)
    st.secrets.setdefault(side, {})["ambush"] = chosen
    key = "ambush:" + "+".join(chosen)
    return [Event("ambush", side, S_DEPLOY, f"{side.title()} marks its map (secret)",
                  inputs={"secret": {"key": key, "companies": chosen}})]


# -- step 6: field defences and camps -------------------------------------------------------------

def camps_fixed(sc, side: str) -> bool:
    camps = getattr(sc, "camps", None) or {}
    if isinstance(camps, dict):
        return bool(camps.get(side))
    return any(getattr(c, "side", None) == side for c in camps)


def step_defences(sc, st, stream):
    order = [defender(st), st.attacker or SIDES[0]]
    for s in order:
        if s not in st.done and (camps_fixed(sc, s) or s in (st.options.get("camps") or {})):
            st.done.append(s)
    for s in order:
        if s not in st.done:
            st.active_side = s
            return [], True
    next_step(st)
    return [], False


def need_defences_turn(st: IWState, side: str, what: str) -> None:
    rules.need_phase(st, "prebattle", what, S_CAMPS, "defences")
    if to_act(st) != side:
        raise Illegal(f"the defender places his defences and camp first: now {to_act(st).title()}'s turn", S_CAMPS)


def do_defences(sc, st: IWState, side: str, cmd, stream) -> list[Event]:
    """`defences <x1,y1> <x2,y2>|none` (IW Prima della battaglia 6, IW Difese campali): a field
    defence line before the camp, the defender first."""
    need_defences_turn(st, side, "Field defences are placed")
    args = [a for a in cmd.args]
    if [a.lower() for a in args] == ["none"]:
        return [Event("defences", side, S_CAMPS, f"{side.title()} places no field defences")]
    if len(args) != 2:
        raise CannotParse("usage: defences <x1,y1> <x2,y2> (or none)")
    (x1, y1), (x2, y2) = parse_xy(args[0], S_CAMPS), parse_xy(args[1], S_CAMPS)
    for x, y in ((x1, y1), (x2, y2)):
        if depth_from_edge(sc, st, side, x, y) > DEPLOY_DEPTH + 1e-6 + (0 if side != defender(st) else 9e9):
            raise Illegal(f"({x:g}, {y:g}) is beyond {side.title()}'s deployment zone", S_CAMPS)
    st.options.setdefault("defences", []).append({"side": side, "line": [[x1, y1], [x2, y2]]})
    return [Event("defences", side, S_CAMPS, f"{side.title()} places a field defence from ({x1:g}, {y1:g}) to ({x2:g}, {y2:g})",
                  outcome={"side": side, "line": [[x1, y1], [x2, y2]]})]


def do_camp(sc, st: IWState, side: str, cmd, stream) -> list[Event]:
    """`camp <x,y> [facing <deg>]` (IW Accampamento, IW Prima della battaglia 6): 1 x 2 UDM, in open
    ground only, within the deployment zone (HERALD D52); it ends the side's part of step 6."""
    from engine.core.table.geometry import Footprint, Pose, base_polygon
    need_defences_turn(st, side, "The camp is placed")
    args = list(cmd.args)
    facing, args = facing_arg(args, default_facing(sc, st, side))
    if len(args) != 1:
        raise CannotParse("usage: camp <x,y> [facing <degrees>]")
    x, y = parse_xy(args[0], S_CAMPS)
    poly = base_polygon(Pose(x, y, facing), Footprint(2.0, 1.0))
    w, h = table_size(sc)
    minx, miny, maxx, maxy = poly.bounds
    if minx < 0 or miny < 0 or maxx > w or maxy > h:
        raise Illegal("the camp would stand off the table", "IW Accampamento")
    deepest = max(depth_from_edge(sc, st, side, px, py) for px, py in poly.exterior.coords)
    if deepest > DEPLOY_DEPTH + 1e-6:
        raise Illegal(f"the camp would stand {deepest:.2f} UDM from your edge: within {DEPLOY_DEPTH:g} UDM "
                      f"({deepest - DEPLOY_DEPTH:.2f} too far)", "IW Accampamento")
    cats = checks.categories_at(sc, poly) - {"open"}
    if cats:
        raise Illegal(f"the camp must stand in open ground, not {', '.join(sorted(cats))}", "IW Prima della battaglia 6")
    st.options.setdefault("camps", {})[side] = {"x": x, "y": y, "facing": facing}
    st.done.append(side)
    return [Event("camp", side, "IW Accampamento", f"{side.title()} pitches its camp at ({x:g}, {y:g})",
                  outcome={"side": side, "x": x, "y": y, "facing": facing})]


# -- step 7: the battles placed alternately ---------------------------------------------------------

def step_placement(sc, st, stream):
    left = {s: [b for b in waiting_battles(st, s) if b in the_map(st, s)] for s in SIDES}
    if not any(left.values()):
        next_step(st)
        return [], False
    if not st.active_side or not left.get(st.active_side):
        first = defender(st)
        st.active_side = first if left[first] else st.other(first)
    return [], True


def do_place(sc, st: IWState, side: str, cmd, stream) -> list[Event]:
    """`place <battle>` (IW Prima della battaglia 7): "Iniziando dal difensore, ogni giocatore,
    alternativamente, schiera sul tavolo una battaglia alla volta": the battle goes where the map
    says; its ambushers stay hidden."""
    rules.need_phase(st, "prebattle", "Battles are placed", S_PLACE, "placement")
    if st.active_side != side:
        raise Illegal(f"it is {st.active_side.title()}'s turn to place a battle (alternately, the defender first)", S_PLACE)
    if len(cmd.args) != 1:
        raise CannotParse("usage: place <battle>")
    b = rules.battle_of(sc, st, side, cmd.args[0])
    m = the_map(st, side).get(b.id)
    if m is None or b.id not in waiting_battles(st, side):
        raise Illegal(f"{rules.battle_name(sc, st, b.id)} is not on your map waiting to be placed", S_PLACE)
    ambush = set(st.secrets.get(side, {}).get("ambush", []))
    placed = []
    for cid, (x, y, f) in layout(sc, st, b.id, m["x"], m["y"], m["facing"]).items():
        c = st.companies[cid]
        c.x, c.y, c.facing = x, y, f
        c.status = "active"
        c.hidden = cid in ambush
        if st.options.get("dawn_assault") and side == defender(st):
            c.disordered = True
        if not c.hidden:
            placed.append(cid)
    if not any(st.companies[c].hidden for c in st.companies if st.companies[c].battle == b.id):
        reveal(st, m["key"])
    other = st.other(side)
    if [x for x in waiting_battles(st, other) if x in the_map(st, other)]:
        st.active_side = other
    text = ", ".join(rules.named(sc, c) for c in placed) or "its companies, all in ambush"
    return [Event("place", side, S_PLACE, f"{side.title()} places {rules.battle_name(sc, st, b.id)}: {text}",
                  outcome={"battle": b.id, "companies": placed})]


# -- step 8: written orders; step 9: bribery -------------------------------------------------------------

def step_orders(sc, st, stream):
    if st.options.get("entered") != "orders":
        # on entering the step: a side whose battles all have the scenario's orders is done
        st.options["entered"] = "orders"
        for s in SIDES:
            if all(b.order for b in st.battles.values() if b.side == s) and not st.options.get("write_orders"):
                st.done.append(s)
    if all(s in st.done for s in SIDES):
        next_step(st)
        return [Event("orders", "", S_ORDERS, "Both sides' orders are written (secret until each battle acts)")], False
    return [], True


def roll_treasuries(sc, st: IWState, stream: DiceStream) -> list[Event]:
    """IW Tesoro: "Se non specificato altrimenti dallo scenario o dalle note dell'esercito, ogni
    giocatore ha in dotazione un tesoro corrispondente ad 1D6 in Ecu": rolled as bribery begins,
    each side its own die; the amount is told only to its owner (an Event's `secret`).

    HERALD D67: the die is a hidden draw from the seeded stream (`DiceStream.randbelow`), like a
    card shuffle: never asked of a player in a physical-dice game (his /dice would be entered in
    the channel, in the enemy's sight) and never enumerated by /odds (a what-if cannot reveal it)."""
    events = []
    for side in SIDES:
        spec = (getattr(sc, "armies", None) or {}).get(side) if sc is not None else None
        fixed = sc.ecu_fixed(side) if spec is not None and hasattr(sc, "ecu_fixed") else None
        if spec is None or fixed is not None or st.options.get(f"ecu_rolled_{side}"):
            continue
        value = stream.randbelow(6) + 1
        st.armies[side].ecu = value
        st.options[f"ecu_rolled_{side}"] = True
        events.append(Event("treasury", side, "IW Tesoro", f"{side.title()} rolls its treasury in secret",
                            inputs={"secret": {"ecu": value, "die": value}}))
    return events


def step_bribery(sc, st, stream):
    events = roll_treasuries(sc, st, stream)
    for s in SIDES:
        army = st.armies.get(s)
        if s not in st.done and (army is None or army.ecu <= 0):
            st.done.append(s)
    if all(s in st.done for s in SIDES):
        next_step(st)
        return events, False
    return events, True


def step_done(sc, st, stream):
    """The pre-battle steps are done: turn 1 begins with its actions (no command phase on turn
    1, IW Emanazione di nuovi ordini); dawn-assaulted defenders start disordered."""
    st.phase = "command"
    st.step = "done"
    st.done = []
    if st.options.get("dawn_assault"):
        for c in st.companies.values():
            if c.side == defender(st) and c.alive:
                c.disordered = True
    return [Event("battle_begins", st.attacker, "IW Sequenza di mossa",
                  f"The battle begins: turn 1, hour {st.clock}; {st.attacker.title()} attacks",
                  outcome={"turn": st.turn, "clock": st.clock, "attacker": st.attacker})], False


def write_order(sc, st: IWState, side: str, cmd, section: str) -> tuple:
    """Read `order <battle> <order> [objective...]`: the battle, the order, the objective."""
    args = list(cmd.args)
    if len(args) < 2:
        raise CannotParse("usage: order <battle> <order> [objective]")
    b = rules.battle_of(sc, st, side, args[0])
    order = args[1].lower()
    if order in ("assault", "hesitate"):
        raise Illegal(f"{order.title()} is never given: a commander takes it only by disobeying (IW Ordini)", "IW Ordini")
    if order == "retreat":
        raise Illegal("Retreat is not given: it is the order of a broken army (IW Ordini)", "IW Ordini")
    if order not in VOLUNTARY:
        raise Illegal(f"'{order}' is not an order: one of {', '.join(VOLUNTARY)}", "IW Ordini")
    objective = " ".join(args[2:])
    if order in NEEDS_OBJECTIVE and not objective:
        raise Illegal(f"{order.title()} needs an objective (a feature, a place x,y or enemy companies)",
                      "IW Definizione degli ordini di gioco")
    return b, order, objective


def do_order(sc, st: IWState, side: str, cmd, stream) -> list[Event]:
    """`order <battle> <order> [objective]`: before the battle (step 8) the order in force on turn
    1 (understood by itself, IW Interpretazione degli ordini); in the command phase a new order
    (sequence/command.py). Secret either way (HERALD D4)."""
    if st.phase == "command":
        from engine.italianwars.sequence.command import new_order
        return new_order(sc, st, side, cmd, stream)
    if st.phase != "prebattle":
        rules.need_not_over(st)
        if st.turn <= 1:
            raise Illegal("no new orders on turn 1: the orders written before the battle stand",
                          "IW Emanazione di nuovi ordini")
        raise Illegal(f"new orders are given in the command phase (1): now {rules.describe_place(st.phase)}",
                      "IW Emanazione di nuovi ordini")
    rules.need_phase(st, "prebattle", "Orders are written", S_ORDERS, "orders")
    b, order, objective = write_order(sc, st, side, cmd, S_ORDERS)
    b.order, b.objective, b.revealed = order, objective, False
    key = f"order:{b.id}:0"
    st.secrets.setdefault(side, {}).setdefault("orders", {})[b.id] = {
        "order": order, "objective": objective, "key": key, "in_force": True}
    if side in st.done:
        st.done.remove(side)
    return [Event("order_written", side, S_ORDERS, f"{side.title()} writes a battle's order (secret)",
                  inputs={"secret": {"key": key, "battle": b.id, "order": order, "objective": objective}})]


def do_bribe(sc, st: IWState, side: str, cmd, stream) -> list[Event]:
    """`bribe <battle> <ecu> [obey|defy]` (IW Tesoro, IW Prima della battaglia 9, IW
    Interpretazione degli ordini): Ecu paid, secretly, on one's own battle or the enemy's; each
    shifts its next interpretation roll by 1, down (obey) or up (defy), as the payer chooses.
    HERALD D53: written at step 9 or in any command phase; the Ecu leave the treasury at once and
    are shown at the roll they change; 0 takes back a bribe not yet used. Refused on a battle
    whose commander's company is Gentlemen ("la spesa in Ecu non ha effetto su Compagnie di
    Gentiluomini") and on the Commander-in-Chief's battle, which never tests."""
    section = "IW Tesoro"
    if not ((st.phase == "prebattle" and st.step == "bribery") or st.phase == "command"):
        raise Illegal(f"Ecu are spent at pre-battle step 9 or in a command phase: now "
                      f"{rules.describe_place(st.phase, st.step)}", section)
    args = list(cmd.args)
    if len(args) < 2 or len(args) > 3:
        raise CannotParse("usage: bribe <battle> <ecu> [obey|defy]")
    b = rules.any_battle(sc, st, args[0])
    try:
        ecu = int(args[1])
    except ValueError:
        raise CannotParse(f"'{args[1]}' is not a number of Ecu") from None
    if ecu < 0:
        raise Illegal("Ecu are counted from 0 up (the direction says which way they push)", section)
    direction = (args[2].lower() if len(args) == 3 else ("obey" if b.side == side else "defy"))
    if direction not in ("obey", "defy"):
        raise CannotParse("the direction is obey (-1 an Ecu) or defy (+1 an Ecu)")
    bribes = st.secrets.setdefault(side, {}).setdefault("bribes", {})
    army = st.armies[side]
    old = bribes.get(b.id)
    back = old["ecu"] if old else 0
    if ecu and b.cinc:
        raise Illegal(f"{rules.battle_name(sc, st, b.id)} is the Commander-in-Chief's: it never tests its orders, "
                      "so Ecu would change nothing", "IW Interpretazione degli ordini")
    if ecu and rules.morale_of(sc, st, b.commander) == "gentlemen":
        raise Illegal(f"{rules.battle_name(sc, st, b.id)} is led by a company of Gentlemen: Ecu have no effect on them",
                      "IW Interpretazione degli ordini")
    if ecu > army.ecu + back:
        raise Illegal(f"you have {army.ecu + back} Ecu: {ecu - army.ecu - back} too few", section)
    army.ecu += back
    n = int(st.options.get("bribes_written", 0)) + 1
    st.options["bribes_written"] = n
    if ecu == 0:
        bribes.pop(b.id, None)
        return [Event("bribe", side, section, f"{side.title()} changes its treasury's plans (secret)",
                      inputs={"secret": {"key": f"bribe-back:{b.id}:{n}", "battle": b.id, "ecu": 0}})]
    army.ecu -= ecu
    key = f"bribe:{b.id}:{st.turn}:{n}"
    bribes[b.id] = {"ecu": ecu, "direction": 1 if direction == "defy" else -1, "key": key}
    return [Event("bribe", side, section, f"{side.title()} spends Ecu in secret",
                  inputs={"secret": {"key": key, "battle": b.id, "ecu": ecu, "direction": direction}})]


def do_roll(sc, st: IWState, side: str, cmd, stream) -> list[Event]:
    """`roll`: the dice of the current pre-battle step (personalities, weather and hour, the
    attacker's tie)."""
    rules.need_not_over(st)
    if st.phase != "prebattle" or st.step not in ("personalities", "weather", "attacker"):
        raise Illegal(f"no pre-battle roll is waiting: now {rules.describe_place(st.phase, st.step)}",
                      "IW Prima della battaglia")
    if st.step == "personalities":
        return roll_personalities(sc, st, stream)
    if st.step == "weather":
        if st.weather and st.season:
            raise Illegal("the weather is the scenario's", S_WEATHER)
        return roll_weather(sc, st, stream)
    if st.attacker:
        raise Illegal(f"{st.attacker.title()} is already the attacker", S_ATTACKER)
    return roll_attacker(sc, st, stream)


def do_keep(sc, st: IWState, side: str, cmd, stream) -> list[Event]:
    """`keep`: done with the current simultaneous step: the deployment map (every battle drawn),
    the written orders (every battle ordered), the bribes, or the command phase."""
    if st.phase == "command":
        from engine.italianwars.sequence.command import keep
        return keep(sc, st, side, cmd, stream)
    rules.need_not_over(st)
    if st.phase != "prebattle" or st.step not in ("deployment", "orders", "bribery"):
        raise Illegal(f"nothing to keep now: {rules.describe_place(st.phase, st.step)}", "IW Sequenza di gioco")
    if side in st.done:
        raise Illegal(f"{side.title()} is already done with this step: waiting for {st.other(side).title()}",
                      "IW Prima della battaglia")
    if st.step == "deployment":
        missing = [b for b in waiting_battles(st, side) if b not in the_map(st, side)]
        if missing:
            raise Illegal(f"your map lacks {', '.join(missing)}: deploy every battle first", S_DEPLOY)
    if st.step == "orders":
        missing = sorted(b.id for b in st.battles.values() if b.side == side and not b.order)
        if missing:
            raise Illegal(f"every battle needs an order: {', '.join(missing)} has none", S_ORDERS)
    st.done.append(side)
    what = {"deployment": "its deployment map", "orders": "its orders", "bribery": "its bribes"}[st.step]
    return [Event("keep", side, {"deployment": S_DEPLOY, "orders": S_ORDERS, "bribery": S_BRIBE}[st.step],
                  f"{side.title()} is done with {what}")]


rules.register("roll", do_roll, "roll: the dice of the pre-battle step")
rules.register("deploy", do_deploy, "deploy <battle> <x,y> [facing <deg>]: your secret deployment map")
rules.register("ambush", do_ambush, "ambush <company...>|none: your companies in ambush (defender)")
rules.register("defences", do_defences, "defences <x1,y1> <x2,y2>|none: a field defence")
rules.register("camp", do_camp, "camp <x,y> [facing <deg>]: your camp")
rules.register("place", do_place, "place <battle>: put a battle of your map on the table")
rules.register("order", do_order, "order <battle> <order> [objective]: a written order (secret)")
rules.register("bribe", do_bribe, "bribe <battle> <ecu> [obey|defy]: Ecu on a battle (secret)")
rules.register("keep", do_keep, "keep: done with this step")
rules.register_reaction("postpone", resume_postpone)
rules.register_reaction("dawn", resume_dawn)
