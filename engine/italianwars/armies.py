"""The army lists of the Italian Wars (engine/italianwars/armies.toml): Herald completion (the text
has none, digest §7), following the text's own examples of morale classes and factors (HERALD
D27).

`army_lists()` reads the file once; `company_type(id)` finds a type; `check_battle(sc)` lists
what a battle's companies do against their lists (a company whose printed attributes differ from
its type's, a type the company's nation has no list for, too many or too few of one type in an
army). The battles shipped with Herald pass it; a club's upload is told, not refused (a "what if"
battle may stretch a list).
"""
from __future__ import annotations

import tomllib
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from engine.italianwars import tables

ARMIES_FILE = Path(__file__).parent / "armies.toml"
LIST_KEYS = {"id", "name", "period", "nations", "note", "sources", "types"}
TYPE_KEYS = {"id", "name", "arm", "morale", "role", "armour", "armour_mixed", "melee_weapon",
             "missile_weapon", "melee_factor", "shooting_factor", "bases", "composition", "screen",
             "doppelsoldner", "min", "max", "note"}
# the company's attributes a type fixes (single values) and those it allows among several
FIXED = ("arm", "morale", "role", "armour", "armour_mixed", "melee_factor", "shooting_factor",
         "composition")


@dataclass(frozen=True)
class CompanyType:
    id: str
    list_id: str
    name: str
    arm: str
    morale: str
    role: str
    armour: str
    armour_mixed: str
    melee_weapons: tuple[str, ...]
    missile_weapons: tuple[str, ...]     # () = none
    melee_factor: str
    shooting_factor: str
    bases: tuple[int, ...]
    composition: str
    screen: bool
    doppelsoldner: bool
    min: int
    max: int
    note: str = ""


@dataclass(frozen=True)
class ArmyList:
    id: str
    name: str
    period: str
    nations: tuple[str, ...]
    note: str
    sources: tuple[str, ...]
    types: tuple[CompanyType, ...]


def _tuple(v) -> tuple:
    return tuple(v) if isinstance(v, list) else (v,) if v not in ("", None) else ()


def _parse(data: dict) -> dict[str, ArmyList]:
    out: dict[str, ArmyList] = {}
    seen: set[str] = set()
    for entry in data.get("lists", []):
        lid = entry.get("id")
        unknown = set(entry) - LIST_KEYS
        if unknown:
            raise ValueError(f"armies.toml {lid}: unknown key(s) {sorted(unknown)}")
        for n in entry["nations"]:
            if n not in tables.NATIONS:
                raise ValueError(f"armies.toml {lid}: unknown nation {n!r}")
        types = []
        for t in entry["types"]:
            tid = t.get("id")
            if set(t) - TYPE_KEYS:
                raise ValueError(f"armies.toml {lid} {tid}: unknown key(s) {sorted(set(t) - TYPE_KEYS)}")
            if tid in seen:
                raise ValueError(f"armies.toml: the type id {tid!r} is used twice")
            seen.add(tid)
            ct = CompanyType(
                id=tid, list_id=lid, name=t["name"], arm=t["arm"], morale=t["morale"],
                role=t["role"], armour=t.get("armour", ""), armour_mixed=t.get("armour_mixed", ""),
                melee_weapons=_tuple(t["melee_weapon"]),
                missile_weapons=_tuple(t.get("missile_weapon", "")),
                melee_factor=t["melee_factor"], shooting_factor=t.get("shooting_factor", ""),
                bases=_tuple(t["bases"]), composition=t.get("composition", ""),
                screen=bool(t.get("screen", False)), doppelsoldner=bool(t.get("doppelsoldner", False)),
                min=t["min"], max=t["max"], note=" ".join(t.get("note", "").split()))
            _check_type(ct)
            types.append(ct)
        out[lid] = ArmyList(lid, entry["name"], entry["period"], tuple(entry["nations"]),
                            " ".join(entry["note"].split()), tuple(entry["sources"]), tuple(types))
    return out


def _check_type(t: CompanyType) -> None:
    """A type's values are the text's (tables) and fit together."""
    where = f"armies.toml {t.list_id} {t.id}"
    checks = [(t.arm, tables.ARMS, "arm"), (t.morale, tables.MORALE, "morale"),
              (t.role, tables.ROLES, "role"), (t.melee_factor, tables.MELEE_FACTORS, "melee factor"),
              (t.armour, ("",) + tables.ARMOUR_KEYS, "armour"),
              (t.armour_mixed, ("",) + tables.ARMOUR_KEYS, "armour_mixed"),
              (t.shooting_factor, ("",) + tuple(tables.SHOOTING_FACTORS), "shooting factor"),
              (t.composition, ("", "colunella", "legion"), "composition")]
    checks += [(w, tables.MELEE_WEAPONS, "melee weapon") for w in t.melee_weapons]
    checks += [(w, tables.MISSILE_WEAPONS, "missile weapon") for w in t.missile_weapons]
    checks += [(b, tables.COMPANY_BASES, "bases") for b in t.bases]
    for value, allowed, what in checks:
        if value not in allowed:
            raise ValueError(f"{where}: {what} {value!r} is not the text's")
    if not 0 <= t.min <= t.max:
        raise ValueError(f"{where}: min {t.min} max {t.max}")
    if bool(t.missile_weapons) != bool(t.shooting_factor):
        raise ValueError(f"{where}: a missile weapon and a shooting factor go together")


@lru_cache(maxsize=1)
def army_lists() -> dict[str, ArmyList]:
    """The lists by id: swiss, landsknecht, french, spanish, italian, venetian."""
    return _parse(tomllib.loads(ARMIES_FILE.read_text(encoding="utf-8")))


@lru_cache(maxsize=1)
def _types() -> dict[str, CompanyType]:
    return {t.id: t for lst in army_lists().values() for t in lst.types}


def company_type(type_id: str) -> CompanyType:
    """A company type by id (KeyError names the known ones)."""
    try:
        return _types()[type_id]
    except KeyError:
        raise KeyError(f"no company type {type_id!r}; known: {', '.join(sorted(_types()))}") from None


def list_of_nation(nation: str) -> ArmyList | None:
    return next((lst for lst in army_lists().values() if nation in lst.nations), None)


def type_problems(c, t: CompanyType) -> list[str]:
    """How the company `c` (a scenario CompanySpec) differs from its type `t`."""
    out = []
    label = f"{c.id} ({t.id})"
    for f in FIXED:
        if getattr(c, f) != getattr(t, f):
            out.append(f"{label}: {f} {getattr(c, f)!r}, the list has {getattr(t, f)!r}")
    if c.melee_weapon not in t.melee_weapons:
        out.append(f"{label}: melee weapon {c.melee_weapon!r}, the list has "
                   f"{' or '.join(t.melee_weapons)}")
    if (c.missile_weapon or "") not in (t.missile_weapons or ("",)):
        out.append(f"{label}: missile weapon {c.missile_weapon!r}, the list has "
                   f"{' or '.join(t.missile_weapons) or 'none'}")
    if c.bases not in t.bases:
        out.append(f"{label}: {c.bases} bases, the list has {' or '.join(map(str, t.bases))}")
    if c.screen and not t.screen:
        out.append(f"{label}: a skirmisher screen, which the list does not give it")
    if c.doppelsoldner and not t.doppelsoldner:
        out.append(f"{label}: Doppelsöldner, which the list does not give it")
    return out


def check_battle(sc) -> list[str]:
    """What the companies of the battle `sc` do against the army lists: [] when all is within
    them. A company names its type (`type`); its nation must be one its type's list covers; its
    printed attributes must be the type's; each army holds between min and max companies of each
    type of the lists its companies use."""
    problems: list[str] = []
    types = _types()
    for side in sorted(sc.armies):
        counts: Counter = Counter()
        used_lists: set[str] = set()
        for c in sc.companies_of(side):
            if not c.type:
                problems.append(f"{side}: {c.id} names no army list type")
                continue
            t = types.get(c.type)
            if t is None:
                problems.append(f"{side}: {c.id}: no company type {c.type!r}")
                continue
            lst = army_lists()[t.list_id]
            if c.nation not in lst.nations:
                problems.append(f"{side}: {c.id}: a {c.nation} company, but {t.id} is of the "
                                f"{lst.id} list ({', '.join(lst.nations)})")
            problems += [f"{side}: {p}" for p in type_problems(c, t)]
            counts[t.id] += 1
            used_lists.add(t.list_id)
        for lid in sorted(used_lists):
            for t in army_lists()[lid].types:
                n = counts.get(t.id, 0)
                if n > t.max:
                    problems.append(f"{side}: {n} {t.id}, at most {t.max}")
                if n < t.min:
                    problems.append(f"{side}: {n} {t.id}, at least {t.min}")
    return problems
