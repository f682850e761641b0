"""The dice of the Italian Wars, with the text's "sacrificare un 6" (IW Emanazione di nuovi ordini).

Dice are d6 only (HERALD D5), drawn from the seeded stream or supplied by the players.

"Per ogni nuovo ordine il giocatore dovrà 'sacrificare un 6' (ciò significa che quando un 6 verrà
ottenuto dal giocatore nella successiva sequenza di mossa, sarà necessario lanciare nuovamente il
dado: più nuovi ordini verranno emessi, più volte dovrà essere rilanciato il dado)."

HERALD D50 (the scope, digest §9.4): each new order adds one six owed to the army
(`Army.sixes_owed`). From the actions phase of that turn on (the "following move sequence": the
command phase's own interpretation tests are before it), the next natural 6 the owing player rolls
on a die of his own (`d6(st, stream, side, purpose)`: activation tests, and every die the
completion rolls for his companies) is rolled again, and one six is paid; a reroll that is a 6
again pays another six if any is still owed. Debts stand until paid (they do not lapse at the end
of a turn: the more new orders, the more sixes lost, as the text says). A die where a 6 is bad for
its roller (the interpretation test: 6 or more fails) passes `owed=False`: rerolling it would
reward the new order, not cost it. Each roll, and each reroll, is a DieRoll of the returned
Event-ready list, so the log shows the sacrificed 6.
"""
from __future__ import annotations

from contextvars import ContextVar

from engine.core.dice import DiceStream
from engine.core.events import DieRoll

# What the die about to be rolled decides, face by face (completion.py's `key`), while the
# completion rolls it: /odds enumerates one face of each group of faces that decide alike, with
# the group's weight (engine/italianwars/odds.py `faces`), so a melee's tree stays small.
FACE_KEY: ContextVar = ContextVar("iw_face_key", default=None)

OWED_PHASES = ("actions", "rout", "pursuit", "reorganisation", "end")
SACRIFICE = "IW Emanazione di nuovi ordini"


def roll(stream: DiceStream, purpose: str, roller: str | None = None) -> tuple[int, DieRoll]:
    """One plain d6 (HERALD D5); `roller` is the side whose die it is (physical dice)."""
    value = stream.roll(6, purpose, roller)
    return value, DieRoll(purpose, "d6", value)


def d6(st, stream: DiceStream, side: str | None, purpose: str, owed: bool = True,
       roller: str | None = None) -> tuple[int, list[DieRoll]]:
    """A d6 rolled by `side`'s player, with the sixes he owes paid first (HERALD D50): returns
    the value that stands and every die drawn (a sacrificed 6 marked "sacrificed: rolled again").
    `owed=False`: a die where a 6 is not the roller's good result (the interpretation test)."""
    who = roller or side
    value, dr = roll(stream, purpose, who)
    dice = [dr]
    army = st.armies.get(side) if (side and st is not None) else None
    if not owed or army is None or st.phase not in OWED_PHASES:
        return value, dice
    while value == 6 and army.sixes_owed > 0:
        army.sixes_owed -= 1
        dr.effect = f"sacrificed: a new order's 6 ({army.sixes_owed} still owed), rolled again"
        value, dr = roll(stream, f"{purpose} (rolled again: a sacrificed 6)", who)
        dice.append(dr)
    return value, dice


def roll_2d6(stream: DiceStream, purpose: str, roller: str | None = None) -> tuple[int, list[DieRoll]]:
    """Two d6 added (IW Ora del giorno: the day's clock)."""
    a, ra = roll(stream, f"{purpose}, first d6", roller)
    b, rb = roll(stream, f"{purpose}, second d6", roller)
    return a + b, [ra, rb]


def sacrificed(dice: list[DieRoll]) -> int:
    """How many sixes a roll paid (its dice marked sacrificed)."""
    return sum(1 for d in dice if d.effect.startswith("sacrificed"))


# -- a company on the table (HERALD D1, D2) ---------------------------------------------------------

BASE_DEPTH = {"cavalry": 0.75, "infantry": 0.5, "artillery": 0.5}   # HERALD D1


def pose(c):
    """The company's place: the centre of its leading base's front edge and its facing."""
    from engine.core.table.geometry import Pose
    return Pose(c.x, c.y, c.facing)


def footprint(sc, st, c):
    """One rectangle 1 UDM wide, its bases one behind the other (HERALD D1)."""
    from engine.italianwars import tables
    from engine.italianwars.rules import arm_of
    return tables.footprint(arm_of(sc, st, c.id), max(1, c.bases))


def polygon(sc, st, c):
    from engine.core.table.geometry import base_polygon
    return base_polygon(pose(c), footprint(sc, st, c))


def distance_between(sc, st, a, b) -> float:
    """HERALD D2: the shortest distance between the two companies' rectangles, UDM."""
    from engine.core.table.geometry import distance
    return distance(pose(a), footprint(sc, st, a), pose(b), footprint(sc, st, b))


def features(sc) -> list:
    """The scenario's terrain features (objects with .kind, .geometry and perhaps .category)."""
    if sc is None:
        return []
    for name in ("features", "terrain"):
        found = getattr(sc, name, None)
        if found:
            return list(getattr(found, "features", found))
    return []


def category_of(feature) -> str:
    """open / broken / closed / impassable (IW Terreno): the feature's own category, else the
    DATA helper's table of kinds (tables.TERRAIN_CATEGORY), else "open"."""
    cat = getattr(feature, "category", "") or ""
    if cat:
        return cat
    from engine.italianwars.rules import table
    kinds = table(("TERRAIN_CATEGORY", "TERRAIN_CATEGORIES", "TERRAIN"), {}) or {}
    v = kinds.get(getattr(feature, "kind", ""), "") if isinstance(kinds, dict) else ""
    return getattr(v, "category", v) or "open"


def categories_at(sc, geom) -> set[str]:
    """The terrain categories the geometry lies in (at least partly)."""
    out = set()
    for f in features(sc):
        g = getattr(f, "geometry", None)
        if g is not None and g.intersects(geom) and not g.touches(geom):
            out.add(category_of(f))
    return out


SIGHT_BLOCKING = ("hill", "slope", "ridge", "crest", "woods", "wood", "vineyard", "embankment",
                  "high_wall", "town", "village", "built_up", "buildings")   # IW Visibilità
