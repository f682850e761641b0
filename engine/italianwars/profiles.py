"""A company as the completion's tables see it: `profile_of(sc, st, company)` builds a
`completion.Profile` from the scenario's printed attributes (IW Compagnie, IW Tipi di truppe, IW
Tipo di armatura, IW Tipi di armi, IW Fattori di mischia, IW Fattori di tiro, IW Formazioni
speciali, IW Doppelsöldner) and the state's changing ones (bases left, points lost, disorder,
formation, screen, rallied from rout).

Shared by movement/ and combat/ (and the odds), so a company is read one way everywhere.
"""
from __future__ import annotations

from engine.italianwars import checks, completion, rules, tables
from engine.italianwars.state import IWState

# built-up areas and works count as field defences (IW-H 5.3, IW-H 12: "in a built-up area")
DEFENCES_KINDS = ("village", "town", "fortification", "palisade")
NATION_ALIASES = {"landsknechts": "landsknecht", "imperial landsknecht": "imperial_landsknecht"}


def _level(kind: str, factor) -> int:
    """A factor's entry level (5/4/2/1), a number given as such, or 0."""
    if factor in (None, ""):
        return 0
    if isinstance(factor, int):
        return factor
    word = str(factor).lower()
    if word.isdigit():
        return int(word)
    try:
        return tables.melee_level(word) if kind == "melee" else tables.shooting_level(word)
    except KeyError:
        return 0


def cover_of(sc, st: IWState, c) -> str:
    """"defences" (behind field defences or in a built-up area), "cover" (woods, orchards,
    hedges...: closed or broken ground with cover) or "" (IW Copertura; IW-H 5.3, IW-H 12)."""
    if c.id in set((st.options or {}).get("behind_defences") or ()):
        return "defences"
    try:
        feats = [f for f in checks.features(sc) if f.geometry.intersects(checks.polygon(sc, st, c))]
    except Exception:
        return ""
    best = ""
    for f in feats:
        kind = tables.TERRAIN_KINDS.get(getattr(f, "kind", ""))
        if kind is None or not kind.cover:
            continue
        if f.kind in DEFENCES_KINDS:
            return "defences"
        best = "cover"
    return best


def profile_of(sc, st: IWState, c, *, cover: bool = True) -> completion.Profile:
    """The completion's Profile of company `c` (a state Company) now."""
    a = lambda key, default="": rules.attr(sc, st, c.id, key, default)   # noqa: E731
    arm = rules.arm_of(sc, st, c.id)
    role = rules.role_of(sc, st, c.id)
    armour = str(a("armour", "") or ("unprotected" if arm == "artillery" else "protected")).lower()
    weapon = str(a("melee_weapon", "") or "side_arms").lower()
    if weapon not in completion.MELEE_WEAPONS:
        weapon = "side_arms"
    missile = str(a("missile_weapon", "") or "").lower()
    nation = str(a("nation", "") or "").lower()
    nation = NATION_ALIASES.get(nation, nation)
    composition = str(a("composition", "") or "").lower()
    # the company's strength at the start: the state's record (set at its first loss), else the
    # scenario's printed bases, else what it has now
    bases_printed = c.start_bases or int(a("bases", c.bases) or c.bases)
    per_base = 3 if arm == "cavalry" else 2
    return completion.Profile(
        name=rules.display_name(sc, c.id), morale=rules.morale_of(sc, st, c.id), kind=arm, role=role,
        bases=c.bases, armour=armour, armour_light=str(a("armour_mixed", "") or "").lower(),
        melee=_level("melee", a("melee_factor", "")) or 1, weapon=weapon,
        shooting=_level("shooting", a("shooting_factor", "")), missile=missile, nation=nation,
        mixed=composition in tables.MIXED_COMPOSITIONS, disordered=c.disordered,
        doppelsoldner=bool(a("doppelsoldner", False)), screen=c.screen and not c.screen_removed,
        phalanx=c.formation.startswith("phalanx"), igel=c.formation == "igel",
        side_arms_only=c.side_arms_only, cover=cover_of(sc, st, c) if cover else "",
        points_lost=c.points_lost, start_points=bases_printed * per_base)
