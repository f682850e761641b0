"""Jours de Gloire "Classique" tables as data: the Terrain Effects Table (TET, [0.2] L22, [4.3]
L231; missing from the text, digest §5.2): each hex, route and hexside's MP per arm, fire and
assault DRMs and flags, with the lists the text gives in full (six fronts [6.1] L349, no charge
into [9.1] L603, rout may stop [10.4] L764, retreats [10.3] L746, line of fire [7.4] L415-423,
ZoC [6.2] L365-369) and the Marengo terrain (Marengo 4.3 L941-945); the uphill and attacker-hex
assault DRMs; movement costs ([4.3], roads) and whether a charge may enter ([9.1]). The fire and
assault tables read their terrain DRMs from here (tables_fire.py, tables_assault.py).

Part of engine/jdg/tables.py (which re-exports every name here); its conventions apply: each
value cites its rule paragraph and the lines of `rules/jours-de-gloire.it.txt`; `TEXT` marks
what the text fixes, `HERALD` Herald's completion with its reasoning (engine/jdg/TABLES.md).

Pure data and functions: standard library and engine.core only; no I/O, discord, sqlite, Pillow.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Mapping

from engine.jdg.tables_checks import HERALD, RULE_NUMBERS, Drm, cite

# == Terrain Effects Table (TET) [0.2] [4.3] =====================================================

IMPASSABLE = None     # an MP cost of None: cannot enter / cross (except by road, path or bridge [4.3])


@dataclass(frozen=True)
class Terrain:
    """One line of the TET. `mp`: cost per unit type for a hex (or the extra cost of crossing a
    hexside), IMPASSABLE = None. `fire_drm`: to fire at a target in the hex / behind the hexside.
    `assault_drm`: added when the defender is in the hex / attacked across the hexside (the open
    terrain +1 is separate, `open_terrain`). `text` maps each field the text fixes to its
    citation; every other field is Herald completion, reasoned in `why`."""
    key: str
    name_it: str
    kind: str                                    # "hex", "hexside" or "route" (road, path)
    mp: Mapping[str, int | Fraction | None]
    open_terrain: bool = False
    fire_drm: int = 0
    assault_drm: int = 0
    disorders: tuple[str, ...] = ()              # unit types disordered on entering / crossing
    retreat_disorders: bool = False              # [10.3]
    retreat_blocked: bool = False                # [10.3]
    blocks_los: bool = False                     # [7.4]
    six_front: bool = False                      # [6.1]
    no_charge_into: bool = False                 # [9.1]
    rout_may_stop: bool = False                  # [10.4]
    blocks_zoc: bool = False                     # [6.2]
    text: Mapping[str, str] = field(default_factory=dict)
    why: str = ""

    FIELDS = ("mp", "open_terrain", "fire_drm", "assault_drm", "disorders", "retreat_disorders",
              "retreat_blocked", "blocks_los", "six_front", "no_charge_into", "rout_may_stop",
              "blocks_zoc")

    def applies(self, name: str) -> bool:
        """Whether the field means anything for this kind of terrain (a hexside has no front, a
        road has only a cost: the hex it runs through gives the rest)."""
        return name not in NOT_APPLICABLE[self.kind]

    def source(self, name: str) -> str:
        """"text JdG x (Ln)" for a value the text fixes, else "Herald completion"."""
        if name not in self.FIELDS:
            raise KeyError(name)
        if not self.applies(name):
            return f"not applicable ({self.kind})"
        return f"text {self.text[name]}" if name in self.text else HERALD

    def herald_fields(self) -> list[str]:
        return [f for f in self.FIELDS if f not in self.text and self.applies(f)]


NOT_APPLICABLE = {
    "hex": (),
    "hexside": ("open_terrain", "six_front", "no_charge_into", "rout_may_stop"),
    "route": ("open_terrain", "fire_drm", "assault_drm", "disorders", "retreat_disorders",
              "retreat_blocked", "blocks_los", "six_front", "no_charge_into", "rout_may_stop",
              "blocks_zoc"),
}

FIELD_WHY = {
    "open_terrain": "Open terrain is clear ground and, by Marengo 4.3, the cascina; nothing else is "
                    "open (squares [4.2] and the open-ground +1 belong to the open field).",
    "fire_drm": "0 unless the line's reasoning gives a value: no cover beyond the open field. Never "
                "positive (optional [8.3]'s note, L878).",
    "assault_drm": "0 unless the line's reasoning gives a value: the defender gets nothing beyond "
                   "losing the open-ground +1 when the hex is not open.",
    "disorders": "Only the steep slope disorders a unit that crosses it: the text's one example "
                 "([8.7] L555, infantry). Herald adds no other movement disorder: the text's own "
                 "disorder sources are combat, retreat into frontal ZoC, steep slope / ford / "
                 "bridge on retreat [10.3] and units passed through [10.5].",
}


def _mp(inf, cav, art) -> dict[str, int | Fraction | None]:
    return {"infantry": inf, "cavalry": cav, "artillery": art}


_HALF = Fraction(1, 2)
_C = cite
TERRAIN: dict[str, Terrain] = {t.key: t for t in (
    # ---- hexes --------------------------------------------------------------------------------
    Terrain("clear", "terreno aperto", "hex", _mp(1, 1, 1), open_terrain=True,
            text={"open_terrain": _C("4.2", "L221"), "assault_drm": _C("Marengo 8.6", "L953"),
                  "blocks_los": _C("7.4", "L415-421")},
            why="1 MP for every arm: the unit of the movement scale (a 4-MP infantry covers 4 hexes "
                "in the open). Fire 0: the bands are written for a target in the open. The open "
                "+1 on assaults is the text's (Marengo 8.6)."),
    Terrain("cascina", "cascina (fattoria fortificata)", "hex", _mp(1, 1, 1), open_terrain=True,
            text={"mp": _C("Marengo 4.3", "L941"), "open_terrain": _C("Marengo 4.3", "L941"),
                  "fire_drm": _C("Marengo 4.3", "L941"), "assault_drm": _C("Marengo 8.6", "L953"),
                  "six_front": _C("Marengo 4.3", "L941"), "no_charge_into": _C("9.1", "L603"),
                  "blocks_los": _C("Marengo 4.3", "L941"), "rout_may_stop": _C("10.4", "L764"),
                  "disorders": _C("Marengo 4.3", "L941"), "retreat_disorders": _C("Marengo 4.3", "L941"),
                  "retreat_blocked": _C("Marengo 4.3", "L941"), "blocks_zoc": _C("Marengo 4.3", "L941")},
            why="Open terrain in everything but the assault modifier (Marengo 4.3): the open +1 is "
                "cancelled when the defenders are infantry or infantry and artillery, kept against "
                "cavalry (Marengo 8.6): see `terrain_assault_modifiers`."),
    Terrain("crops", "coltivazioni", "hex", _mp(1, 2, 2), fire_drm=-1, blocks_los=True,
            text={"blocks_los": _C("7.4", "L419")},
            why="Tall crops and vines hide but do not stop: infantry 1, cavalry and guns 2 (a charge "
                "may still enter, <= 2 MP [9.1]). They block the line of fire [7.4], so a target in "
                "them is half seen: fire -1. Not open: no square, no open +1 (an even assault: "
                "defender falls back 50%, attacker disordered 50%)."),
    Terrain("palm_grove", "palmeti", "hex", _mp(2, 3, 3), fire_drm=-1, assault_drm=-1, blocks_los=True,
            text={"blocks_los": _C("7.4", "L419")},
            why="Pyramids' palm groves are treated as woods (same line-of-fire rule [7.4])."),
    Terrain("woods", "bosco", "hex", _mp(2, 3, 3), fire_drm=-1, assault_drm=-1, blocks_los=True,
            text={"blocks_los": _C("7.4", "L419")},
            why="Infantry 2, cavalry and guns 3: cavalry cannot charge into woods because the hex "
                "costs more than 2 MP [9.1] -- which is why the text's list of forbidden charge "
                "terrain can leave woods out. Fire -1 (trees stop roundshot). Assault -1 and no "
                "open +1: an even assault into woods (DRM -1) gives repulse 10%, attacker "
                "disordered 50%, fall back 40%, breakthrough 0%."),
    Terrain("marsh", "palude", "hex", _mp(3, 3, IMPASSABLE), no_charge_into=True,
            text={"no_charge_into": _C("9.1", "L603")},
            why="Slow for men (3), guns cannot enter (except by road [4.3]). No fire or assault DRM "
                "beyond losing the open +1; the attacker standing in marsh gets -1 instead "
                "(ATTACKER_TERRAIN_DRM)."),
    Terrain("village", "villaggio", "hex", _mp(1, 2, 1), fire_drm=-1, assault_drm=-2, blocks_los=True,
            six_front=True, no_charge_into=True, rout_may_stop=True,
            text={"blocks_los": _C("7.4", "L419"), "six_front": _C("6.1", "L349"),
                  "no_charge_into": _C("9.1", "L603"), "rout_may_stop": _C("10.4", "L764")},
            why="Streets: 1 MP for foot and guns, 2 for horse. Fire -1 (walls, roofs). Assault -2 and "
                "no open +1: an even assault on a village (DRM -2) gives repulse 20%, attacker "
                "disordered 50%, fall back 30% -- villages were the anchors of Napoleonic lines; "
                "three points of cohesion or a 3:1 still carry them."),
    Terrain("town", "città", "hex", _mp(1, 2, 1), fire_drm=-2, assault_drm=-3,
            six_front=True, no_charge_into=True, rout_may_stop=True,
            text={"six_front": _C("6.1", "L349"), "no_charge_into": _C("9.1", "L603"),
                  "rout_may_stop": _C("10.4", "L764")},
            why="As village, one step stronger (stone buildings): fire -2, assault -3 (even assault: "
                "repulse 30%, attacker disordered 50%, fall back 20%). It does not block the line of "
                "fire: [7.4] names the village, not the town (DECISIONS D36)."),
    Terrain("fortification", "fortificazione", "hex", _mp(2, 3, 2), fire_drm=-2, assault_drm=-3,
            six_front=True, no_charge_into=True, rout_may_stop=True, blocks_zoc=True,
            text={"six_front": _C("6.1", "L349"), "no_charge_into": _C("9.1", "L603"),
                  "rout_may_stop": _C("10.4", "L764"), "blocks_zoc": _C("6.2", "L369")},
            why="Works: 2 MP for foot and guns (gates, ramps), 3 for horse. Fire and assault as a "
                "town (-2, -3). Earthworks are low: the hex does not block the line of fire ([7.4] "
                "names the fortification hexside, not the hex)."),
    Terrain("castle", "castello", "hex", _mp(2, IMPASSABLE, 2), fire_drm=-2, assault_drm=-3,
            no_charge_into=True, blocks_zoc=True,
            text={"no_charge_into": _C("9.1", "L603"), "blocks_zoc": _C("6.2", "L369"),
                  "six_front": _C("6.1", "L349") + " (not in the list of six-front terrain)"},
            why="Walls: as a fortification for fire and assault; cavalry cannot get in; no line-of-"
                "fire block, [7.4] not listing it. [6.1] does not list the castle among "
                "six-front terrain, so it keeps two fronts."),
    Terrain("river_hex", "fiume / esagoni inondati (Bormida)", "hex",
            _mp(IMPASSABLE, IMPASSABLE, IMPASSABLE), retreat_blocked=True, blocks_zoc=True,
            text={"mp": _C("Marengo 4.3", "L945"), "retreat_blocked": _C("10.3", "L746")},
            why="Impassable to all (Marengo 4.3: the Bormida and the hexes it floods)."),
    # ---- hexsides (extra MP to cross, DRMs for fire / assault across) ------------------------
    Terrain("road", "strada", "route", _mp(_HALF, _HALF, _HALF),
            why="Movement along the same road: 1/2 MP per hex for every arm, whatever the hex (a "
                "4-MP unit doubles its pace, as the forced march does); the last hex next to an "
                "enemy is paid at its normal cost [4.3]. A road crossing a hexside cancels the "
                "hexside's cost and makes an impassable hex or hexside passable [4.3]."),
    Terrain("path", "sentiero", "route", _mp(1, 1, 1),
            why="A track: 1 MP per hex along it whatever the hex, and it crosses impassable hexes "
                "and hexsides [4.3]; no road bonus."),
    Terrain("crest", "cresta", "hexside", _mp(1, 1, 2), blocks_los=True,
            text={"blocks_los": _C("7.4", "L421")},
            why="Climbing a level: +1 MP (+2 guns), so a charge uphill across a crest from clear "
                "costs 2 and is still allowed [9.1]. Assault uphill across it: -1 "
                "(UPHILL_ASSAULT). No point-blank fire across [7.4]."),
    Terrain("steep_slope", "pendio ripido", "hexside", _mp(2, 2, IMPASSABLE), blocks_los=True,
            disorders=("infantry", "cavalry"), retreat_disorders=True,
            text={"blocks_los": _C("7.4", "L421"), "retreat_disorders": _C("10.3", "L746")},
            why="+2 MP (3 from clear: no charge across [9.1]); guns cannot climb it. Crossing "
                "disorders infantry (the text's own example [8.7] L555) and, by the same reasoning, "
                "cavalry. Assault uphill across it: -2 (UPHILL_ASSAULT)."),
    Terrain("river", "corso d'acqua (non attraversabile)", "hexside",
            _mp(IMPASSABLE, IMPASSABLE, IMPASSABLE), retreat_blocked=True, blocks_zoc=True,
            text={"mp": _C("6.2", "L367"), "retreat_blocked": _C("10.3", "L746"),
                  "blocks_zoc": _C("6.2", "L365-367")},
            why="Crossed only at a ford or bridge (or by road/path [4.3])."),
    Terrain("stream", "corso d'acqua (attraversabile)", "hexside", _mp(1, 1, 2), assault_drm=-1,
            retreat_blocked=True,
            text={"retreat_blocked": _C("10.3", "L746")},
            why="[6.2] speaks of fords and bridges on watercourses 'otherwise impassable', so some "
                "watercourses are passable: +1 MP (+2 guns); attacking across it -1. Retreats may "
                "not cross any watercourse except at a ford or bridge [10.3]."),
    Terrain("ford", "guado", "hexside", _mp(1, 2, 2), assault_drm=-1, retreat_disorders=True,
            blocks_zoc=True, disorders=(),
            text={"retreat_disorders": _C("10.3", "L746"), "blocks_zoc": _C("6.2", "L367")},
            why="Crossing a river at a ford: +1 MP foot, +2 horse and guns, so from clear a ford "
                "costs cavalry 3 and no charge crosses it [9.1]. Attacking across -1 (as a stream); "
                "falling back across it disorders [10.3]; no movement disorder."),
    Terrain("bridge", "ponte", "hexside", _mp(0, 0, 0), assault_drm=-2, retreat_disorders=True,
            blocks_zoc=True,
            text={"retreat_disorders": _C("10.3", "L746"), "blocks_zoc": _C("6.2", "L367")},
            why="No extra MP (the road pays); attacking across a bridge -2: a defile the defender "
                "sweeps (an even assault over a bridge onto clear: -2+1 = -1, repulse 10%, fall "
                "back 40%)."),
    Terrain("trench", "trincea", "hexside", _mp(1, 2, 2), fire_drm=-1, assault_drm=-2, blocks_los=True,
            blocks_zoc=True,
            text={"blocks_los": _C("7.4", "L421-423"), "blocks_zoc": _C("6.2", "L369")},
            why="Field works: +1 MP foot, +2 horse and guns; a target behind the trench (fired at "
                "across it) -1, an assault across it -2."),
    Terrain("fortification_side", "lato di fortificazione", "hexside", _mp(2, IMPASSABLE, IMPASSABLE),
            fire_drm=-2, assault_drm=-3, blocks_los=True, blocks_zoc=True,
            text={"blocks_los": _C("7.4", "L421-423"), "blocks_zoc": _C("6.2", "L369")},
            why="A rampart: only infantry climbs it (+2); fire -2, assault -3, as a fortification hex."),
)}

# Lists the text gives in full: for every terrain the value follows from the list, so it is the text's.
_TEXT_LISTS = {
    # field: (citation, hexes or hexsides for which it is True, applies to)
    "six_front": (_C("6.1", "L349"), {"village", "town", "fortification"}, "hex"),
    "no_charge_into": (_C("9.1", "L603"), {"marsh", "village", "town", "fortification", "castle"}, "hex"),
    "rout_may_stop": (_C("10.4", "L764"), {"village", "town", "fortification"}, "hex"),
    "retreat_disorders": (_C("10.3", "L746"), {"steep_slope", "ford", "bridge"}, "any"),
    "retreat_blocked": (_C("10.3", "L746") + ", " + _C("4.3", "L237-239"),
                        {"river", "stream", "river_hex"}, "any"),
    "blocks_los": (_C("7.4", "L415-421"), {"village", "woods", "crops", "palm_grove", "crest",
                                           "steep_slope", "trench", "fortification_side"}, "any"),
    "blocks_zoc": (_C("6.2", "L365-369"), {"fortification", "castle", "river_hex", "river", "ford",
                                           "bridge", "trench", "fortification_side"}, "any"),
}
HEX_ONLY_FIELDS = ("six_front", "no_charge_into", "rout_may_stop")


def _cite_lists(t: Terrain) -> Terrain:
    text = dict(t.text)
    for name, (citation, true_for, scope) in _TEXT_LISTS.items():
        if (scope == "hex" and t.kind != "hex") or not t.applies(name):
            continue
        if getattr(t, name) != (t.key in true_for):
            raise ValueError(f"terrain {t.key}.{name} contradicts the text's list {citation}")
        text.setdefault(name, citation)
    return replace(t, text=text)


TERRAIN = {k: _cite_lists(t) for k, t in TERRAIN.items()}

HERALD_TERRAIN_NOT_IN_TEXT = {
    "stream": "implied by [6.2] 'corsi d'acqua altrimenti non attraversabili' (L367)",
}
NOT_IN_TEXT_NOTE = ("Vineyards, hedges, sunken roads and columns are not named by the text and are not "
                    "in the table; a scenario map that draws them maps them to the nearest line above.")

UPHILL_ASSAULT = {
    "crest": Drm("uphill_crest", -1, "attacking uphill across a crest", cite("7.4", "L421"), HERALD,
                 why="The defender on the brow: -1, as the fire table's uphill -1."),
    "steep_slope": Drm("uphill_steep", -2, "attacking uphill across a steep slope", cite("10.3", "L746"),
                       HERALD, why="A slope steep enough to disorder those who cross it [8.7] [10.3]: "
                                   "-2, as a bridge or trench."),
}

ATTACKER_TERRAIN_DRM = {
    "marsh": Drm("attacker_in_marsh", -1, "attacker in a marsh hex", cite("8.4", "L502-508"), HERALD,
                 why="[8.4] knows attackers' hexes that give different modifiers: men wading out of "
                     "a marsh attack badly. The only attacker-hex DRM Herald adds."),
}


def move_cost(unit_type: str, hex_terrain: str, hexside: str | None = None,
              along_road: bool = False) -> int | Fraction | None:
    """MP to enter a hex (plus a hexside crossed); None if impassable. `along_road`: entered from a
    hex of the same road, not next to an enemy [4.3]: the road cost, hexside costs cancelled."""
    if along_road:
        return TERRAIN["road"].mp[unit_type]
    cost = TERRAIN[hex_terrain].mp[unit_type]
    if hexside is not None:
        side = TERRAIN[hexside].mp[unit_type]
        if cost is None or side is None:
            return None
        cost = cost + side
    return cost


def can_charge_into(hex_terrain: str, hexside: str | None = None) -> bool:
    """[9.1]: not into marsh, village, town, fortification, castle; and hex + hexside <= 2 MP."""
    if TERRAIN[hex_terrain].no_charge_into:
        return False
    cost = move_cost("cavalry", hex_terrain, hexside)
    return cost is not None and cost <= RULE_NUMBERS["charge_max_hex_cost"][0]
