"""Italian Wars battle files: the companies (`[[companies]]`): what a company is printed with
(arm, morale, role, armour, weapons, factors, bases, special formations), its checks against the
text, and its rectangle (and skirmisher screen) on the table (engine/italianwars/scenario.py
reads the rest of the file)."""
from __future__ import annotations

from dataclasses import dataclass

from shapely.geometry import Polygon
from shapely.ops import unary_union

from engine.core.table.geometry import Pose, base_polygon, forward
from engine.core.table.scenario_fields import TableReader
from engine.italianwars import tables

COMPANY_KEYS = {"id", "battle", "side", "name", "nation", "arm", "morale", "role", "armour",
                "armour_mixed", "melee_weapon", "missile_weapon", "melee_factor",
                "shooting_factor", "bases", "x", "y", "facing", "screen", "screen_weapon", "composition",
                "formation", "doppelsoldner", "captain", "ambush", "type", "note"}
COMPOSITIONS = ("", "colunella", "legion")


@dataclass(frozen=True)
class CompanySpec:
    id: str
    side: str
    battle: str
    name: str
    nation: str
    arm: str                        # infantry / cavalry / artillery
    morale: str                     # tables.MORALE
    role: str                       # shooting / shock / skirmishers
    armour: str                     # armoured / protected / unprotected / "" (guns)
    melee_weapon: str
    missile_weapon: str
    melee_factor: str
    shooting_factor: str
    bases: int
    x: float
    y: float
    facing: float
    screen: bool = False
    screen_weapon: str = ""         # its screen's crossbow or arquebus (L84; "" = arquebus, D91)
    formation: str = ""             # "" / "igel" / "phalanx:<label>"
    composition: str = ""           # "" / "colunella" / "legion"
    armour_mixed: str = ""          # the lightest armour of its bases when mixed ("" = none)
    doppelsoldner: bool = False
    captain: str = ""               # "" = rolled on Tabella 2
    ambush: bool = False
    type: str = ""                  # the army list's company type
    note: str = ""

    @property
    def size(self) -> str:
        return tables.size_of(self.bases)

    @property
    def points(self) -> int:
        return tables.company_points(self.arm, self.bases)

    @property
    def command_points(self) -> int:
        return tables.command_points(self.morale)

    @property
    def mounted(self) -> bool:
        return self.arm == "cavalry"

    @property
    def pose(self) -> Pose:
        return Pose(self.x, self.y, self.facing)


def company_rect(c: CompanySpec) -> Polygon:
    """The company's rectangle: 1 UDM wide, its bases one behind the other (HERALD D1)."""
    return base_polygon(Pose(c.x, c.y, c.facing), tables.footprint(c.arm, c.bases))


def screen_rect(c: CompanySpec) -> Polygon | None:
    """The skirmisher screen's strip in front of the company's front edge (HERALD D16)."""
    if not c.screen:
        return None
    fx, fy = forward(c.facing)
    d = tables.SCREEN.depth
    return base_polygon(Pose(c.x + fx * d, c.y + fy * d, c.facing), tables.SCREEN)


def company_shape(c: CompanySpec) -> Polygon:
    """The company with its screen, if any."""
    s = screen_rect(c)
    return company_rect(c) if s is None else unary_union([company_rect(c), s])


def _str_of(r: TableReader, d: dict, key: str, allowed, w: str, path: str, what: str,
            default: str | None = None) -> str:
    v = r.need(d, key, str, w, path) if default is None else r.opt(d, key, str, w, path, default)
    return r.one_of(v, allowed, f"{w}.{key}", f"{path}.{key}", what)


def parse_companies(r: TableReader, data: dict, where: str, armies: dict, battles: tuple
                    ) -> tuple[CompanySpec, ...]:
    """`[[companies]]`, each checked by `company_problem`; every battle has companies and its
    commander is one of them [Organizzazione dell'esercito] L113."""
    out: list[CompanySpec] = []
    by_battle = {b.id: b for b in battles}
    for i, c, w, path in r.entries(data, "companies", where, COMPANY_KEYS):
        cid = r.ident(c.get("id"), f"{w}.id", f"{path}.id")
        if any(o.id == cid for o in out):
            raise r.fail(f"{w}.id", f"the company id '{cid}' is used twice", f"{path}.id")
        if cid in by_battle:
            raise r.fail(f"{w}.id", f"'{cid}' is already a battle's id: companies and battles need "
                         "ids of their own", f"{path}.id")
        bid = r.need(c, "battle", str, w, path)
        if bid not in by_battle:
            raise r.fail(f"{w}.battle", f"no battle '{bid}' (battles: "
                         f"{', '.join(sorted(by_battle))})", f"{path}.battle")
        side = by_battle[bid].side
        if "side" in c and c["side"] != side:
            raise r.fail(f"{w}.side", f"{c['side']!r}, but its battle '{bid}' is {side}",
                         f"{path}.side")
        nation = _str_of(r, c, "nation", tables.NATIONS, w, path, "nation")
        if nation not in armies[side].nations:
            raise r.fail(f"{w}.nation", f"'{nation}' is not among the {side} army's nations "
                         f"({', '.join(armies[side].nations)})", f"{path}.nation")
        arm = _str_of(r, c, "arm", tables.ARMS, w, path, "arm")
        morale_raw = r.need(c, "morale", str, w, path)
        if morale_raw in tables.MORALE_ALIASES:
            raise r.fail(f"{w}.morale", f"write '{tables.MORALE_ALIASES[morale_raw]}' for "
                         f"'{morale_raw}' (the text's Reclute are Militia, HERALD D12)",
                         f"{path}.morale")
        morale = r.one_of(morale_raw, tables.MORALE, f"{w}.morale", f"{path}.morale",
                          "morale class")
        role = _str_of(r, c, "role", tables.ROLE_KEYS, w, path, "troop role")
        armour_ok = ("",) if arm == "artillery" else tables.ARMOUR_KEYS
        armour = _str_of(r, c, "armour", armour_ok, w, path,
                         "armour for " + arm + (" (guns wear none: write \"\")"
                                                if arm == "artillery" else ""),
                         default="" if arm == "artillery" else None)
        armour_mixed = _str_of(r, c, "armour_mixed", ("",) + tables.ARMOUR_KEYS, w, path,
                               "armour", default="")
        if armour_mixed and tables.ARMOUR_RANK[armour_mixed] >= tables.ARMOUR_RANK[armour]:
            raise r.fail(f"{w}.armour_mixed", f"'{armour_mixed}' must be lighter than its best "
                         f"armour '{armour}' (Tipo di armatura L48)", f"{path}.armour_mixed")
        melee = _str_of(r, c, "melee_weapon", tables.MELEE_WEAPONS, w, path, "melee weapon",
                        default="side_arms" if arm == "artillery" else None)
        missile = _str_of(r, c, "missile_weapon", ("",) + tuple(tables.MISSILE_WEAPONS), w, path,
                          "missile weapon", default="")
        mfactor = _str_of(r, c, "melee_factor", tables.MELEE_FACTORS, w, path, "melee factor")
        sfactor = _str_of(r, c, "shooting_factor", ("",) + tuple(tables.SHOOTING_FACTORS), w, path,
                          "shooting factor", default="")
        bases = r.need(c, "bases", int, w, path)
        if bases not in tables.COMPANY_BASES:
            raise r.fail(f"{w}.bases", f"{bases}: a company has 1 (small), 2 (medium) or 4 (large) "
                         "bases (Compagnie L12)", f"{path}.bases")
        x, y, facing = r.place(c, w, path)
        composition = _str_of(r, c, "composition", COMPOSITIONS, w, path, "composition",
                              default="")
        formation = r.opt(c, "formation", str, w, path, "")
        captain = _str_of(r, c, "captain", ("",) + tables.PERSONALITY_KEYS, w, path,
                          "captain's personality", default="")
        spec = CompanySpec(
            id=cid, side=side, battle=bid, name=r.need(c, "name", str, w, path), nation=nation,
            arm=arm, morale=morale, role=role, armour=armour, melee_weapon=melee,
            missile_weapon=missile, melee_factor=mfactor, shooting_factor=sfactor, bases=bases,
            x=x, y=y, facing=facing, screen=r.opt(c, "screen", bool, w, path, False),
            screen_weapon=_str_of(r, c, "screen_weapon", ("",) + tables.SCREEN_WEAPONS, w, path,
                                  "screen's weapon", default=""),
            formation=formation, composition=composition, armour_mixed=armour_mixed,
            doppelsoldner=r.opt(c, "doppelsoldner", bool, w, path, False), captain=captain,
            ambush=r.opt(c, "ambush", bool, w, path, False),
            type=r.ident(c["type"], f"{w}.type", f"{path}.type") if "type" in c else "",
            note=r.opt(c, "note", str, w, path, ""))
        problem = company_problem(spec)
        if problem:
            field_, why = problem
            raise r.fail(f"{w}.{field_}", why, f"{path}.{field_}")
        out.append(spec)
    for b in battles:
        members = [c for c in out if c.battle == b.id]
        if not members:
            raise r.fail(f"{where} battles ({b.id})", f"the battle '{b.id}' has no company",
                         "battles")
        if b.commander not in {c.id for c in members}:
            raise r.fail(f"{where} battles ({b.id}).commander", f"'{b.commander}' is not a company "
                         f"of the battle '{b.id}': its commander is the captain of one of its own "
                         f"companies (Organizzazione dell'esercito L113); its companies: "
                         f"{', '.join(c.id for c in members)}", "battles")
    return tuple(out)


def company_problem(c: CompanySpec) -> tuple[str, str] | None:
    """(field, reason) when a company's printed attributes do not fit the text, else None:
    shooting troops and skirmishers need a missile weapon (Tipi di truppe L38-40), a missile
    weapon needs a shooting factor (and only then), guns are artillery shooting troops firing
    guns or war carts (L61-65), a colunella is two bases of shooters and shock troops (L70), a
    legion two bases of shock troops (L72), an igel is pikes (L67), a phalanx shock companies
    of neither Militia nor Rabble (L68, HERALD D12), a screen is crossbows or arquebuses in front
    of shock infantry (L84), a Swiss captain always Rash (Tabella 2 L249)."""
    artillery_weapon = c.missile_weapon in tables.ARTILLERY_WEAPONS
    if c.arm == "artillery":
        if not artillery_weapon:
            return "missile_weapon", ("an artillery company fires guns or war carts (light_gun, "
                                      "heavy_gun, organ_gun, war_cart: Artiglieria L61-65), not "
                                      f"{c.missile_weapon or 'nothing'}")
        if c.role != "shooting":
            return "role", "artillery are shooting troops (Tipi di truppe L38)"
    elif artillery_weapon:
        return "missile_weapon", f"{c.missile_weapon} is fired by artillery companies only"
    if c.role in ("shooting", "skirmishers") and not c.missile_weapon:
        return "missile_weapon", f"{c.role} troops are armed with missile weapons (Tipi di truppe " \
                                 "L38-40)"
    if c.role == "skirmishers" and c.arm == "artillery":
        return "role", "guns are not skirmishers"
    if c.missile_weapon and not c.shooting_factor:
        return "shooting_factor", (f"a company with a missile weapon ({c.missile_weapon}) needs a "
                                   "shooting factor: devastating, accurate, inexperienced or poor "
                                   "(Fattori di tiro L78-82)")
    if c.shooting_factor and not c.missile_weapon:
        return "shooting_factor", ("a shooting factor without a missile weapon: give the weapon or "
                                   "leave the factor out (a screen shoots with its own, L84)")
    if c.composition:
        need = tables.COMPOSITION_BASES[c.composition]
        if c.bases != need:
            return "bases", f"a {c.composition} is medium: {need} bases (Formazioni speciali L70-72)"
        if c.arm != "infantry":
            return "composition", f"a {c.composition} is infantry (Formazioni speciali L70-72)"
    if c.composition == "colunella" and (not c.missile_weapon or c.role == "skirmishers"):
        return "composition", ("a colunella is a base of shooting troops and a base of shock "
                               "troops: give it a missile weapon and the shock base's melee weapon "
                               "(Colunella L70)")
    if c.composition == "legion" and c.role != "shock":
        return "composition", "a legion is of shock troops (Legione L72)"
    if c.formation:
        if c.formation == "igel":
            if c.melee_weapon != "pike":
                return "formation", "an igel is formed by pikemen (Igel L67)"
        elif c.formation.startswith("phalanx:") and len(c.formation) > 8:
            if c.role != "shock":
                return "formation", "a phalanx is made of shock troops (Falange L68)"
            if c.morale in tables.PHALANX_EXCLUDED:
                return "formation", (f"{c.morale} companies cannot form a phalanx (Falange L68: "
                                     "Reclute, read as Militia, HERALD D12, or Feccia)")
        else:
            return "formation", (f"{c.formation!r}: write \"igel\" or \"phalanx:<label>\" (the "
                                 "companies sharing the label form one phalanx)")
    if c.screen and not (c.arm == "infantry" and c.role == "shock"):
        return "screen", ("a skirmisher screen stands in front of shock infantry (Schermi di "
                          "Schermagliatori L84)")
    if c.screen_weapon and not c.screen:
        return "screen_weapon", ("a screen's weapon is given for a company without a screen: add "
                                 "`screen = true` or leave it out (Schermi di Schermagliatori L84)")
    if c.captain and c.nation in tables.SWISS_NATIONS and c.captain != tables.SWISS_PERSONALITY:
        return "captain", "a Swiss captain is always Rash (Tabella 2 L249: \"Svizzeri Sempre " \
                          "Irruento\")"
    return None
