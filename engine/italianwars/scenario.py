"""Italian Wars battles as data files (TOML), and the validator that also checks a club's upload
(issue 16).

The text (rules/italian-wars.it.txt) has no scenarios and no army lists (digest §7): a battle file
carries the armies, battles, companies, terrain and camps, and its `[provenance]` block says what
is history and what is Herald's. Measures are UDM (one base frontage, HERALD D1) on the 45 x 30
table; a side deploys within 6 UDM of its home edge ("Prima della battaglia" 5, L270) unless its
army gives a `deployment` polygon (a battle whose history says otherwise, HERALD D25).

Geometry (engine/italianwars/state.py): origin at the south-west corner, x east, y north; a
company's place (`x`, `y`) is the centre of the front edge of its leading base, `facing` a compass
bearing (0 = north, 90 = east), its rectangle 1 UDM wide and its bases one behind the other
(tables.footprint); a skirmisher screen is a strip in front of it (tables.SCREEN, HERALD D16).

Schema (one file per battle; see `scenarios/*.toml`):

    id, title, date, description
    turn_limit     0 = none (the battle ends by the rules and Herald's completion), else 1..99
    season         "" (rolled, Tabella 3) or winter | spring | summer | autumn
    weather        "" (rolled, Tabella 4) or good | cloudy | bad
    clock          0 (rolled, 2d6: "Ora del giorno") or the day clock's first turn, 1..24
    [table]        width = 45, height = 30
    [[armies]]     side ("french" | "league"), name, nations = [...] (tables.NATIONS),
                   ecu (an integer, or "1d6": "Tesoro" L95), home_edge ("south" | "north"),
                   attacker? (true: the battle names this army the attacker instead of
                   "Prima della battaglia" 4), deployment? = [[x, y], ...], note?
    [[features]]   id, kind (tables.TERRAIN_KINDS), category? (one the text allows the kind;
                   default the first), name?, points = [[x, y], ...], width? (lines, UDM),
                   level? (hills 1..3), crest? = [[x, y], [x, y]] (hills), note?
    [[battles]]    id, side, name, commander (the id of the company whose captain commands it),
                   cinc? (true for the Commander-in-Chief's battle: one per side), note?
    [[companies]]  id, battle, side? (the battle's), name, nation, arm (infantry | cavalry |
                   artillery), morale, role (shooting | shock | skirmishers), armour (armoured |
                   protected | unprotected; "" for artillery), armour_mixed? (the lightest armour
                   of its other bases, "Tipo di armatura" L48), melee_weapon, missile_weapon? (""),
                   melee_factor, shooting_factor? ("" without a missile weapon), bases (1, 2, 4),
                   x, y, facing, screen? (a skirmisher screen, L84), screen_weapon? (its
                   crossbow or arquebus; an arquebus when left out, D91), composition? ("" | colunella
                   | legion), formation? ("" | igel | "phalanx:<label>"), doppelsoldner?,
                   captain? ("" rolled on Tabella 2, or a fixed personality), ambush? (hidden in
                   ambush, "Prima della battaglia" 5), type? (its army list's company type), note?
    [[camps]]      side, x, y, facing, name?
    [[special_rules]]  id, text (known ids: SPECIAL_RULES)
    [history]      text, result, sources?
    [provenance]   from_text = [...], herald_completion = [...], sources = [...], note

Every table refuses keys it does not know, naming the key, the closest allowed key and the line.
Companies must lie on the table, inside their army's deployment zone (an ambush: in its own half,
in broken or closed ground, the defender's), on ground troops may stand on (not impassable),
overlapping no other company or camp; each battle's companies all in contact ("Le Battaglie
vengono schierate inizialmente in maniera tale che tutte le compagnie siano a contatto tra di
loro", L114); each camp in open terrain (L271) in its own half.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from shapely.geometry import Polygon, box

from engine.core.scenario_files import bundled_ids, read_bundled
from engine.core.table.geometry import CONTACT_TOL, Pose, base_polygon
from engine.core.table.scenario_fields import (EDGE_TOL, EDGES, CampSpec, SpecialRule, TableReader,
                                               TableScenario, army_side, deployment_points,
                                               need_each_side, need_two_home_edges,
                                               open_battle_file, overlapping_pairs, parse_camps,
                                               parse_extras, table_size)
from engine.italianwars import tables
from engine.italianwars.scenario_companies import (COMPANY_KEYS, COMPOSITIONS,  # noqa: F401
                                                   CompanySpec, company_problem, company_rect,
                                                   company_shape, parse_companies, screen_rect)
from engine.italianwars.scenario_terrain import (FEATURE_KEYS, OVERLAP_TOL, Feature,  # noqa: F401
                                                 categories_at, ground_problem, in_open_ground,
                                                 parse_features)
from engine.italianwars.state import SIDES

SCENARIO_DIR = Path(__file__).parent / "scenarios"
MAX_SCENARIO_BYTES = 192 * 1024

SPECIAL_RULES = {
    "note": "A remark for the players, with no effect on the rules.",
    "moonless": "A moonless night: 2 UDM of sight at night in good weather (Visibilità L214).",
    "no-postponement": "The armies fight whatever the weather: bad weather's postponement "
                       "(Tempo cattivo L267) is not offered.",
}

TOP_KEYS = {"id", "title", "date", "description", "turn_limit", "season", "weather", "clock",
            "table", "armies", "features", "battles", "companies", "camps", "special_rules",
            "history", "provenance"}
ARMY_KEYS = {"side", "name", "nations", "ecu", "home_edge", "attacker", "deployment", "note"}
BATTLE_KEYS = {"id", "side", "name", "commander", "cinc", "note"}


class ScenarioError(ValueError):
    """A scenario file is not valid; the message names the field (and the line where known)."""


# -- the parsed scenario ---------------------------------------------------------------------

@dataclass(frozen=True)
class ArmySpec:
    side: str
    name: str
    nations: tuple[str, ...]
    ecu: int | str                  # an integer, or "1d6" ([Tesoro] L95)
    home_edge: str                  # "south" / "north"
    attacker: bool = False          # the battle names this army the attacker
    deployment: tuple[tuple[float, float], ...] = ()
    note: str = ""


@dataclass(frozen=True)
class BattleSpec:
    id: str
    side: str
    name: str
    commander: str                  # the company whose captain commands the battle
    cinc: bool = False              # the Commander-in-Chief's battle
    note: str = ""


@dataclass(frozen=True)
class Scenario(TableScenario):
    id: str
    title: str
    date: str
    width: float
    height: float
    features: tuple[Feature, ...]
    armies: dict[str, ArmySpec]
    battles: tuple[BattleSpec, ...]
    companies: tuple[CompanySpec, ...]
    camps: tuple[CampSpec, ...]
    turn_limit: int = 0
    season: str = ""                # "" rolled
    weather: str = ""               # "" rolled
    clock_start: int = 0            # 0 rolled (2d6)
    special_rules: tuple[SpecialRule, ...] = ()
    provenance: dict[str, Any] = field(default_factory=dict)
    history: dict[str, Any] = field(default_factory=dict)
    description: str = ""
    source: str = ""

    @cached_property
    def _company_index(self) -> dict[str, CompanySpec]:
        return {c.id: c for c in self.companies}

    @cached_property
    def _battle_index(self) -> dict[str, BattleSpec]:
        return {b.id: b for b in self.battles}

    def company(self, company_id: str) -> CompanySpec:
        return self._company_index[company_id]

    def battle(self, battle_id: str) -> BattleSpec:
        return self._battle_index[battle_id]

    def companies_of(self, side: str | None = None, battle: str | None = None
                     ) -> tuple[CompanySpec, ...]:
        return tuple(c for c in self.companies if (side is None or c.side == side)
                     and (battle is None or c.battle == battle))

    def battles_of(self, side: str) -> tuple[BattleSpec, ...]:
        return tuple(b for b in self.battles if b.side == side)

    def cinc_battle(self, side: str) -> BattleSpec:
        return next(b for b in self.battles if b.side == side and b.cinc)

    def commander_of(self, battle_id: str) -> CompanySpec:
        """The battle commander's company [Organizzazione dell'esercito] L113."""
        return self.company(self.battle(battle_id).commander)

    def attacker(self) -> str:
        """The side the battle names the attacker, or "" (rolled: Prima della battaglia 4)."""
        return next((a.side for a in self.armies.values() if a.attacker), "")

    def ecu_fixed(self, side: str) -> int | None:
        """The army's fixed treasury, or None when it is rolled (1d6, [Tesoro] L95)."""
        e = self.armies[side].ecu
        return e if isinstance(e, int) else None

    def deployment_zone(self, side: str) -> Polygon:
        """Where a side deploys: its `deployment` polygon, else within 6 UDM of its home edge
        [Prima della battaglia 5] L270."""
        return self.home_strip(side, tables.DEPLOYMENT_DEPTH)

    def own_half(self, side: str) -> Polygon:
        """The side's half of the table (ambushes, camps) [Prima della battaglia 5] L270."""
        h = self.height / 2
        return box(0, 0, self.width, h) if self.armies[side].home_edge == "south" else \
            box(0, h, self.width, self.height)


def camp_rect(c: CampSpec) -> Polygon:
    """The camp, 2 x 1 UDM (HERALD D23), its long side the front."""
    return base_polygon(Pose(c.x, c.y, c.facing), tables.CAMP_SIZE)


# -- reading ---------------------------------------------------------------------------------

class _Reader(TableReader):
    """Field readers that name the place (and line) of what is wrong, as a ScenarioError; measures
    in UDM."""
    unit = "UDM"


def _parse_table(r: _Reader, data: dict, where: str) -> tuple[float, float]:
    w, h = table_size(r, data, where, (tables.TABLE_WIDTH, tables.TABLE_HEIGHT), 12, 150,
                      "; the text's 1.8 x 1.2 m is 45 x 30 UDM, HERALD D1")
    return float(w), float(h)


def _parse_armies(r: _Reader, data: dict, where: str, width: float, height: float
                  ) -> dict[str, ArmySpec]:
    out: dict[str, ArmySpec] = {}
    for i, a, w, path in r.entries(data, "armies", where, ARMY_KEYS, by_id=False):
        side = army_side(r, a, SIDES, out, w, path)
        nations = r.need(a, "nations", list, w, path)
        if not nations:
            raise r.fail(f"{w}.nations", "name at least one nation", f"{path}.nations")
        for n in nations:
            r.one_of(n, tables.NATIONS, f"{w}.nations", f"{path}.nations", "nation")
        ecu: int | str = tables.ECU_DEFAULT
        if "ecu" in a:
            v = a["ecu"]
            if isinstance(v, bool) or not (isinstance(v, int) and 0 <= v <= 99 or v == "1d6"):
                raise r.fail(f"{w}.ecu", f"{v!r}: the treasury is a number of Ecu 0..99 or "
                             "\"1d6\" (the text's default, Tesoro L95)", f"{path}.ecu")
            ecu = v
        dep = deployment_points(r, a, w, path, width, height)
        out[side] = ArmySpec(
            side=side, name=r.need(a, "name", str, w, path), nations=tuple(nations), ecu=ecu,
            home_edge=r.one_of(r.need(a, "home_edge", str, w, path), EDGES, f"{w}.home_edge",
                               f"{path}.home_edge", "home edge"),
            attacker=r.opt(a, "attacker", bool, w, path, False), deployment=dep,
            note=r.opt(a, "note", str, w, path, ""))
    need_each_side(r, out, where, SIDES)
    need_two_home_edges(r, out, where)
    if sum(a.attacker for a in out.values()) > 1:
        raise r.fail(f"{where} armies", "only one army can be named the attacker", "armies")
    return out


def _parse_battles(r: _Reader, data: dict, where: str, armies: dict[str, ArmySpec]
                   ) -> tuple[BattleSpec, ...]:
    out: list[BattleSpec] = []
    for i, b, w, path in r.entries(data, "battles", where, BATTLE_KEYS):
        bid = r.ident(b.get("id"), f"{w}.id", f"{path}.id")
        if any(o.id == bid for o in out):
            raise r.fail(f"{w}.id", f"the battle id '{bid}' is used twice", f"{path}.id")
        side = r.one_of(r.need(b, "side", str, w, path), list(armies), f"{w}.side",
                        f"{path}.side", "side")
        out.append(BattleSpec(bid, side, r.need(b, "name", str, w, path),
                              r.ident(b.get("commander"), f"{w}.commander", f"{path}.commander"),
                              r.opt(b, "cinc", bool, w, path, False),
                              r.opt(b, "note", str, w, path, "")))
    for side in armies:
        chiefs = [b.id for b in out if b.side == side and b.cinc]
        if len(chiefs) != 1:
            raise r.fail(f"{where} battles", f"the {side} army needs exactly one battle of the "
                         "Commander-in-Chief (cinc = true) (Organizzazione dell'esercito L113); it "
                         f"has {len(chiefs)}" + (f": {', '.join(chiefs)}" if chiefs else ""),
                         "battles")
    return tuple(out)


def _parse_camps(r: _Reader, data: dict, where: str, armies: dict[str, ArmySpec]
                 ) -> tuple[CampSpec, ...]:
    return parse_camps(r, data, where, armies, "(one each, Accampamento L237)",
                       "\"Ogni esercito dev'essere dotato di un accampamento\" (Accampamento L237)")


# -- where things stand -----------------------------------------------------------------------

def _in_zone(zone, poly) -> float:
    """Area of `poly` outside `zone` (0 when inside)."""
    if zone.buffer(EDGE_TOL).contains(poly):
        return 0.0
    return max(poly.difference(zone).area, OVERLAP_TOL * 2)


def _check_places(r: _Reader, where: str, sc: "Scenario") -> None:
    """Every company and camp on the table, on ground it may stand on, inside its deployment
    zone (an ambush: its own half, broken or closed ground, the defender's), overlapping nothing;
    the camps in open ground in their own halves."""
    shapes: list[tuple[str, Any, str]] = []          # (label, shape, path)
    attacker = sc.attacker()
    for i, c in enumerate(sc.companies):
        label = f"company {c.id} ({c.name})"
        path = f"companies[{i}]"
        w = f"{where} companies[{i}] ({c.id})"
        shape = company_shape(c)
        r.on_table(shape, sc.width, sc.height, label + (" with its screen" if c.screen else ""),
                  w, path)
        why = ground_problem(shape, sc.features)
        if why:
            raise r.fail(w, f"{label} {why}", path)
        if c.ambush:
            if not attacker or attacker == c.side:
                raise r.fail(f"{w}.ambush", f"{label}: only the defender may lay an ambush (Prima "
                             "della battaglia 5, L270); name the other army the attacker "
                             "(attacker = true) to lay one", f"{path}.ambush")
            out = _in_zone(sc.own_half(c.side), shape)
            if out:
                raise r.fail(f"{w}.ambush", f"{label}: an ambush stays in its own half of the table "
                             f"(Prima della battaglia 5, L270); {out:.2f} sq UDM lie beyond it",
                             f"{path}.ambush")
            if not categories_at(company_rect(c), sc.features) & set(tables.AMBUSH_CATEGORIES):
                raise r.fail(f"{w}.ambush", f"{label}: an ambush hides in broken or closed ground "
                             "(Prima della battaglia 5, L270; out of the enemy's sight is for the "
                             "players' own table: a battle file uses the ground, HERALD D29)",
                             f"{path}.ambush")
        else:
            out = _in_zone(sc.deployment_zone(c.side), shape)
            if out:
                a = sc.armies[c.side]
                zone_txt = ("its army's deployment polygon" if a.deployment else
                            f"{tables.DEPLOYMENT_DEPTH:g} UDM of the {a.home_edge} edge")
                raise r.fail(w, f"{label} is outside the {c.side} deployment zone (within "
                             f"{zone_txt}, Prima della battaglia 5, L270) by {out:.2f} sq UDM",
                             path)
        shapes.append((label, shape, path))
    for i, cp in enumerate(sc.camps):
        label = f"the {cp.side} camp"
        path = f"camps[{i}]"
        w = f"{where} camps[{i}]"
        poly = camp_rect(cp)
        r.on_table(poly, sc.width, sc.height, label, w, path)
        if not in_open_ground(poly, sc.features):
            cats = ", ".join(sorted(categories_at(poly, sc.features) - {"open"}))
            raise r.fail(w, f"{label} stands on {cats} ground: camps go \"esclusivamente in terreno "
                         "aperto\" (Prima della battaglia 6, L271)", path)
        out = _in_zone(sc.own_half(cp.side), poly)
        if out:
            raise r.fail(w, f"{label} lies {out:.2f} sq UDM beyond its own half of the table "
                         "(HERALD D23)", path)
        shapes.append((label, poly, path))
    hit = next(overlapping_pairs([shape for _, shape, _ in shapes], OVERLAP_TOL), None)
    if hit:
        a, b, area = hit
        raise r.fail(where, f"{shapes[a][0]} overlaps {shapes[b][0]} by {area:.2f} sq UDM: they "
                     "may touch but not overlap", shapes[a][2])


def battle_groups(sc: "Scenario", battle_id: str) -> list[list[str]]:
    """The battle's companies split into groups in contact (each touching another of its group,
    within CONTACT_TOL, screens included): one group when the battle is deployed as the text asks
    [Organizzazione dell'esercito] L114 (HERALD D25)."""
    members = sc.companies_of(battle=battle_id)
    shapes = {c.id: company_shape(c) for c in members}
    ids = [c.id for c in members]
    groups: list[list[str]] = []
    left = list(ids)
    while left:
        group = [left.pop(0)]
        grew = True
        while grew:
            grew = False
            for o in list(left):
                if any(shapes[o].distance(shapes[g]) <= CONTACT_TOL for g in group):
                    group.append(o)
                    left.remove(o)
                    grew = True
        groups.append(group)
    return groups


def _check_contact(r: _Reader, where: str, sc: "Scenario") -> None:
    for b in sc.battles:
        groups = battle_groups(sc, b.id)
        if len(groups) > 1:
            shapes = {c.id: company_shape(c) for c in sc.companies_of(battle=b.id)}
            gap = min(shapes[a].distance(shapes[o]) for a in groups[0]
                      for g in groups[1:] for o in g)
            parts = "; ".join(", ".join(g) for g in groups)
            raise r.fail(f"{where} battles ({b.id})", f"the battle '{b.id}' ({b.name}) is not "
                         f"deployed with all its companies in contact (Organizzazione "
                         f"dell'esercito L114: \"tutte le compagnie siano a contatto tra di "
                         f"loro\"): it stands in {len(groups)} groups ({parts}), {gap:.2f} UDM "
                         "apart at the nearest", "battles")


def _check_phalanxes(r: _Reader, where: str, sc: "Scenario") -> None:
    """Companies sharing a phalanx label: of one side and battle, side by side in contact
    [Falange] L68 ("a contatto lato a lato")."""
    labels = sorted({(c.side, c.formation) for c in sc.companies if c.formation.startswith("phalanx:")})
    for side, label in labels:
        members = [c for c in sc.companies if c.side == side and c.formation == label]
        first = sc.companies.index(members[0])
        if len(members) < 2:
            raise r.fail(f"{where} companies[{first}] ({members[0].id}).formation",
                         f"the {label} has one company: a phalanx is several companies side by "
                         "side (Falange L68)", f"companies[{first}].formation")
        facings = {c.facing for c in members}
        if len(facings) > 1:
            raise r.fail(f"{where} companies[{first}] ({members[0].id}).formation",
                         f"the companies of {label} face different ways: side by side they share "
                         "a front (Falange L68)", f"companies[{first}].formation")
        rects = {c.id: company_rect(c) for c in members}
        done = [members[0].id]
        rest = [c.id for c in members[1:]]
        while rest:
            nxt = next((o for o in rest if any(rects[o].distance(rects[d]) <= CONTACT_TOL
                                               for d in done)), None)
            if nxt is None:
                raise r.fail(f"{where} companies[{first}] ({members[0].id}).formation",
                             f"{', '.join(rest)} of {label} are not in contact with the rest "
                             "(Falange L68: \"a contatto lato a lato\")",
                             f"companies[{first}].formation")
            done.append(nxt)
            rest.remove(nxt)


def parse_scenario(text: str, source: str = "<upload>") -> Scenario:
    """Parse and validate a battle; raises ScenarioError naming what is wrong (and where)."""
    data, r, sid, where = open_battle_file(text, source, MAX_SCENARIO_BYTES, ScenarioError, _Reader,
                                           TOP_KEYS)
    width, height = _parse_table(r, data, where)
    armies = _parse_armies(r, data, where, width, height)
    features = parse_features(r, data, where, width, height)
    battles = _parse_battles(r, data, where, armies)
    companies = parse_companies(r, data, where, armies, battles)
    camps = _parse_camps(r, data, where, armies)
    turn_limit = r.opt(data, "turn_limit", int, where, "turn_limit", 0)
    if not 0 <= turn_limit <= 99:
        raise r.fail(f"{where}.turn_limit", f"{turn_limit} is not 0 (none) or 1..99", "turn_limit")
    season = r.one_of(r.opt(data, "season", str, where, "season", ""), ("",) + tables.SEASONS,
                      f"{where}.season", "season", "season")
    weather = r.one_of(r.opt(data, "weather", str, where, "weather", ""), ("",) + tables.WEATHERS,
                       f"{where}.weather", "weather", "weather")
    clock = r.opt(data, "clock", int, where, "clock", 0)
    if not 0 <= clock <= tables.DAY_HOURS:
        raise r.fail(f"{where}.clock", f"{clock} is not 0 (rolled on 2d6, Ora del giorno) or a turn "
                     f"of the day clock 1..{tables.DAY_HOURS}", "clock")
    for side in armies:
        if not any(c.side == side for c in companies):
            raise r.fail(f"{where} companies", f"the {side} army has no company", "companies")

    specials, hist, prov = parse_extras(r, data, where, SPECIAL_RULES)

    sc = Scenario(
        id=sid, title=r.need(data, "title", str, where, "title"),
        date=r.opt(data, "date", str, where, "", ""), width=width, height=height,
        features=features, armies=armies, battles=battles, companies=companies, camps=camps,
        turn_limit=turn_limit, season=season, weather=weather, clock_start=clock,
        special_rules=specials, provenance=prov, history=hist,
        description=r.opt(data, "description", str, where, "", "").strip(), source=source)
    _check_places(r, where, sc)
    _check_contact(r, where, sc)
    _check_phalanxes(r, where, sc)
    return sc


def list_scenarios() -> list[str]:
    return bundled_ids(SCENARIO_DIR)


@lru_cache(maxsize=8)
def load_scenario(scenario_id: str) -> Scenario:
    """A bundled battle by id (the file name without .toml). Cached: do not mutate it."""
    text, name = read_bundled(SCENARIO_DIR, scenario_id, "Italian Wars", ScenarioError)
    return parse_scenario(text, source=name)
