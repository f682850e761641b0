"""The army lists of the Thirty Years' War (engine/lion/armies.toml): Herald completion (HERALD D17,
L27; the text has none, digest §7).

`army_lists()` reads the file once; `check_battle(sc)` lists what a battle's units of each nation
do against their list (a troop type or quality the list has not, too many or too few of one,
the generals). The battles shipped with Herald pass it; a club's upload is told, not refused
(a "what if" battle may stretch a list).
"""
from __future__ import annotations

import tomllib
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from engine.lion import tables

ARMIES_FILE = Path(__file__).parent / "armies.toml"
LIST_KEYS = {"id", "name", "period", "discipline", "generals", "mixed_groups", "note", "sources",
             "troops"}
TROOP_KEYS = {"type", "quality", "min", "max", "note"}


@dataclass(frozen=True)
class TroopAllowance:
    type: str
    quality: str
    min: int
    max: int
    note: str = ""


@dataclass(frozen=True)
class ArmyList:
    id: str
    name: str
    period: str
    discipline: str
    subs: tuple[int, int]              # sub-commanders allowed (min, max) [11 B]
    mixed_groups: bool                 # cavalry with musketeers [4 B] L50
    note: str
    sources: tuple[str, ...]
    troops: tuple[TroopAllowance, ...]

    def allowance(self, type_key: str, quality: str = "") -> TroopAllowance | None:
        return next((t for t in self.troops if t.type == type_key and t.quality == quality), None)


def _parse(data: dict) -> dict[str, ArmyList]:
    out: dict[str, ArmyList] = {}
    for entry in data.get("lists", []):
        unknown = set(entry) - LIST_KEYS
        if unknown:
            raise ValueError(f"armies.toml {entry.get('id')}: unknown key(s) {sorted(unknown)}")
        if entry["discipline"] not in tables.DISCIPLINES:
            raise ValueError(f"armies.toml {entry['id']}: discipline {entry['discipline']!r}")
        troops = []
        for t in entry["troops"]:
            if set(t) - TROOP_KEYS:
                raise ValueError(f"armies.toml {entry['id']}: unknown key(s) {sorted(set(t) - TROOP_KEYS)}")
            tables.troop(t["type"])
            if t.get("quality", "") not in tables.QUALITIES:
                raise ValueError(f"armies.toml {entry['id']}: quality {t['quality']!r}")
            if not 0 <= t["min"] <= t["max"]:
                raise ValueError(f"armies.toml {entry['id']} {t['type']}: min {t['min']} max {t['max']}")
            troops.append(TroopAllowance(t["type"], t.get("quality", ""), t["min"], t["max"],
                                         t.get("note", "")))
        subs = tuple(entry["generals"]["sub"])
        out[entry["id"]] = ArmyList(entry["id"], entry["name"], entry["period"], entry["discipline"],
                                    (subs[0], subs[1]), bool(entry["mixed_groups"]),
                                    " ".join(entry["note"].split()), tuple(entry["sources"]),
                                    tuple(troops))
    return out


@lru_cache(maxsize=1)
def army_lists() -> dict[str, ArmyList]:
    """The lists by nation (swedish, imperial, spanish, saxon)."""
    return _parse(tomllib.loads(ARMIES_FILE.read_text(encoding="utf-8")))


def check_battle(sc) -> list[str]:
    """What each nation's units and generals of the battle `sc` do against their army list:
    [] when all is within the lists. Each unit counts under its own nation (a Saxon unit in the
    Swedish army under the Saxon list, HERALD D27)."""
    lists = army_lists()
    problems: list[str] = []
    by_nation: dict[str, Counter] = {}
    for u in sc.units:
        nation = sc.nation_of(u)
        by_nation.setdefault(nation, Counter())[(u.type, u.quality)] += 1
    for nation in sorted(by_nation):
        lst = lists.get(nation)
        if lst is None:
            problems.append(f"{nation}: no army list")
            continue
        counts = by_nation[nation]
        for (ttype, quality), n in sorted(counts.items()):
            allow = lst.allowance(ttype, quality)
            what = f"{quality + ' ' if quality else ''}{ttype}"
            if allow is None:
                problems.append(f"{nation}: the list has no {what}")
            elif n > allow.max:
                problems.append(f"{nation}: {n} {what}, at most {allow.max}")
        for allow in lst.troops:
            n = counts.get((allow.type, allow.quality), 0)
            if n < allow.min:
                what = f"{allow.quality + ' ' if allow.quality else ''}{allow.type}"
                problems.append(f"{nation}: {n} {what}, at least {allow.min}")
    return problems
