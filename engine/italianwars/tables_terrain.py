"""The Italian Wars rules (the Italian text, `rules/italian-wars.it.txt`): terrain as data
(digest §4.13, §4.15): the four categories of ground ("Terreno" L172-205: "Terreno aperto",
"Terreno Rotto", "Terreno chiuso", "Terreno impassabile"), the kinds of feature the text lists in
them with roads, hills and field defences (L206-211), what they do to sight ("Visibilità"
L215-221) and the cover they give ("Copertura" L222-227).

Part of engine/italianwars/tables.py (which re-exports every name here); its principles apply:
each value cites the text's lines, Herald's readings are marked "HERALD D<n>"
(engine/italianwars/DECISIONS.md). Distances are UDM (HERALD D1).

Pure data and functions: standard library only; no I/O, discord, sqlite, Pillow.
"""
from __future__ import annotations

from dataclasses import dataclass


# == terrain ("Terreno" L172-211) ==============================================================

@dataclass(frozen=True)
class Category:
    key: str
    italian: str
    slows: bool                 # reduces movement (the amount is Herald's completion)
    slows_skirmishers: bool
    disorders: bool             # "ne disordina la formazione" (closed); HERALD D22 for broken
    passable: bool
    text: str
    line: str


CATEGORIES = {c.key: c for c in (
    Category("open", "Terreno aperto", False, False, False, True,
             "Non influenzano né il movimento, né l'ordine delle truppe", "L174-180"),
    Category("broken", "Terreno Rotto", True, False, False, True,
             "Riduce il movimento per tutte le unità tranne che per gli schermagliatori. Non ha "
             "effetto sull'ordine.", "L181-191"),
    Category("closed", "Terreno chiuso", True, True, True, True,
             "Riduce il movimento delle truppe e ne disordina la formazione.", "L192-198"),
    Category("impassable", "Terreno impassabile", False, False, False, False,
             "Terreni all'interno dei quali le truppe non possono transitare né essere schierate.",
             "L199-205"),
)}
CATEGORY_KEYS = tuple(CATEGORIES)


@dataclass(frozen=True)
class TerrainKind:
    """A kind of terrain feature: its shape (an "area" polygon, a "line" buffered by its width,
    a "crossing" of a watercourse), the categories the text puts it in (the first is the default;
    the battle file picks among them: a small wood is broken, a large dense wood closed, a great
    forest impassable), and what it does to sight and cover."""
    key: str
    shape: str
    categories: tuple[str, ...]
    italian: str
    line: str
    blocks_sight: bool = False      # L215-216 "bloccano completamente la visuale"
    limits_sight: bool = False      # L217-218 ½ UDM inside and into it
    conceals: bool = False          # L221 skirmishers may hide in or behind it
    cover: str = ""                 # L222-227: "in" inside it, "behind" on the far side, "all"
    width: float = 0.0              # default width of a line (UDM)
    water: bool = False             # a watercourse (no cover, L224)
    road: bool = False              # ignores the ground it runs on (L206-207)


TERRAIN_KINDS = {k.key: k for k in (
    # areas
    TerrainKind("hill", "area", ("open", "broken"), "Pendii o colline con poca inclinazione, "
                "Colline basse / Colline ripide", "L177-178; L184; L208-209", blocks_sight=True),
    TerrainKind("woods", "area", ("broken", "closed", "impassable"), "Piccole creste o boschi / "
                "Boschi fitti o grandi / Grandi foreste fitte", "L189; L195; L204",
                blocks_sight=True, limits_sight=True, cover="in"),
    TerrainKind("vineyard", "area", ("broken",), "Coltivazioni (vigneti, orti, …)", "L187; L216-218",
                blocks_sight=True, limits_sight=True, cover="in"),
    TerrainKind("cultivation", "area", ("broken",), "Coltivazioni (vigneti, orti, …)", "L187",
                cover="in"),
    TerrainKind("cornfield", "area", ("open",), "campi di grano", "L221", conceals=True),
    TerrainKind("scrub", "area", ("broken",), "Steppa o macchia bassa / macchia alta",
                "L185; L221", conceals=True, cover="in"),
    TerrainKind("rough", "area", ("broken",), "Terreno rotto od aree rocciose", "L186; L221",
                conceals=True, cover="in"),
    TerrainKind("village", "area", ("broken",), "Aree agricole costruite, fattorie e villaggi",
                "L190; L216-218; L226", blocks_sight=True, limits_sight=True, cover="all"),
    TerrainKind("town", "area", ("closed",), "Grandi aree cittadine", "L198; L216-218; L226",
                blocks_sight=True, limits_sight=True, cover="all"),
    TerrainKind("marsh", "area", ("closed", "impassable"), "Paludi / Grandi Paludi",
                "L194; L205; L221", conceals=True, cover="in"),
    TerrainKind("lake", "area", ("impassable",), "Laghi o mari", "L202", water=True),
    TerrainKind("fortification", "area", ("impassable",), "Fortificazioni (Castelli o cinta "
                "murarie)", "L203; L211"),
    # lines
    TerrainKind("road", "line", ("open",), "Strade / Strade rialzate", "L180; L206-207",
                width=1.0, road=True),
    TerrainKind("river", "line", ("closed", "impassable"), "Fiumi e canali / Grandi fiumi, "
                "traversabili solo su ponti o con traghetti", "L196; L201; L224", width=2.0,
                water=True),
    TerrainKind("canal", "line", ("closed",), "Fiumi e canali", "L196; L224", width=1.0,
                water=True),
    TerrainKind("stream", "line", ("broken",), "Torrenti", "L191; L224", width=0.5, water=True),
    TerrainKind("hedge", "line", ("broken",), "Piccoli ostacoli lineari (siepi)", "L188; L225",
                cover="behind", width=0.25),
    TerrainKind("low_wall", "line", ("broken",), "Piccoli ostacoli lineari (muri bassi)",
                "L188; L221; L225", conceals=True, cover="behind", width=0.25),
    TerrainKind("palisade", "line", ("broken",), "Piccoli ostacoli lineari (palizzate)", "L188",
                cover="behind", width=0.25),
    TerrainKind("drainage_ditch", "line", ("broken",), "Piccoli ostacoli lineari (canali di "
                "drenaggio)", "L188; L224", width=0.25, water=True),
    TerrainKind("high_wall", "line", ("closed",), "Grandi ostacoli lineari (muri alti)",
                "L197; L216; L220; L225", blocks_sight=True, cover="behind", width=0.25),
    TerrainKind("ditch", "line", ("closed",), "Grandi ostacoli lineari (fossati e trincee)",
                "L197; L225", cover="behind", width=0.5),
    TerrainKind("dyke", "line", ("closed",), "Grandi ostacoli lineari (dighe); argini",
                "L197; L216", blocks_sight=True, cover="behind", width=0.5),
    TerrainKind("ridge", "line", ("broken",), "Piccole creste; creste lineari", "L189; L216; L221; "
                "L225", blocks_sight=True, conceals=True, cover="behind", width=0.5),
    TerrainKind("defences", "line", ("broken", "closed"), "Difese campali", "L210-211; L225",
                cover="behind", width=0.5),
    # crossings of a river, canal or stream
    TerrainKind("ford", "crossing", ("broken",), "Guadi", "L183", width=1.5),
    TerrainKind("bridge", "crossing", ("open",), "Ponti", "L179", width=1.0),
)}
AREA_KINDS = tuple(k for k, t in TERRAIN_KINDS.items() if t.shape == "area")
LINE_KINDS = tuple(k for k, t in TERRAIN_KINDS.items() if t.shape == "line")
CROSSING_KINDS = tuple(k for k, t in TERRAIN_KINDS.items() if t.shape == "crossing")
WATER_KINDS = tuple(k for k, t in TERRAIN_KINDS.items() if t.water)
SIGHT_BLOCKERS = tuple(k for k, t in TERRAIN_KINDS.items() if t.blocks_sight)
SIGHT_LIMITERS = tuple(k for k, t in TERRAIN_KINDS.items() if t.limits_sight)
CONCEALING = tuple(k for k, t in TERRAIN_KINDS.items() if t.conceals)


def terrain_kind(key: str) -> TerrainKind:
    try:
        return TERRAIN_KINDS[key]
    except KeyError:
        raise KeyError(f"unknown terrain kind {key!r}; known: {', '.join(sorted(TERRAIN_KINDS))}") \
            from None


def gives_cover(kind: str, category: str) -> str:
    """The cover a feature gives [Copertura] L222-227: "all" (built-up areas, against every
    enemy), "in" (companies wholly inside broken or closed ground, watercourses excepted),
    "behind" (wholly behind hedges, crests, walls, field defences, against enemies on the far
    side) or "" (none)."""
    t = terrain_kind(kind)
    if t.cover == "behind":
        return "behind"
    if t.water or t.shape != "area":
        return ""
    if t.cover == "all":
        return "all"
    return "in" if category in ("broken", "closed") else ""
