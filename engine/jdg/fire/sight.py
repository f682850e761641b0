"""Range and line of fire of Jours de Gloire artillery [7.3], [7.4] (and optional [7]).

Range [7.3]: counted in hexes from the firing unit (excluded) to the target (included), i.e. the
grid distance; each counter prints an effective and a maximum range. The band of a shot is
"point_blank" (an adjacent hex, tiro ad alzo zero [7.4]), "effective" (within the effective
range) or "maximum" (beyond it, within the maximum range); no fire beyond the maximum range
(HERALD D34). The DRM of each band is the Fire Table's (tables.fire_modifiers, Herald completion).

Line of fire [7.4], traced from hex centre to hex centre (engine.core.hexgrid line_steps: one hex
per step, or the two hexes whose common side the line runs along). HERALD D36 and D82:
- only hexes and hexsides between the firer and the target block; the two end hexes never do;
- a hex blocks when it is higher than both ends, or holds blocking terrain (village, woods, crops,
  palm grove: tables.TERRAIN[...].blocks_los) or a combat unit of either side; a hexside blocks
  when it carries a crest, steep slope, trench or fortification (tables.TERRAIN[...].blocks_los);
- along a hexside: blocked only if the hexes on both sides block, or if that hexside itself is a
  blocking edge (crest, steep slope...) [7.4] "Lati di esagono";
- a trench or fortification hexside never blocks when it is a side of the firer's or the
  target's hex ("il tiro ad alzo zero è sempre possibile") [7.4];
- elevation [7.4] "Ostacoli e altitudine": an obstacle (terrain, unit or hexside, not a higher
  hex) is ignored when both ends are higher than it; when the firer is higher than target and
  obstacle and the obstacle is at half way or nearer the firer; when the target is higher than
  firer and obstacle and the obstacle is at half way or nearer the target (D4's reading of the
  third bullet). The level of an obstacle in a hex is that hex's level; of a hexside, the higher
  of its two hexes (the brow) (HERALD D82);
- point-blank fire at an adjacent hex is always possible, except across a crest or steep-slope
  hexside [7.4] "Tiro ad alzo zero".
Optional [7] (misdirected fire, game option "misdirected-fire"): a unit in an intermediate hex
does not block a target standing higher than it; the units passed over stay on record
(`Sight.passed_over`) for the fire to strike by mistake (fire/artillery.py, HERALD D67).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from engine.jdg import geometry, tables
from engine.jdg.setup import has_option
from engine.jdg.state import JdgState

POINT_BLANK_BLOCKERS = ("crest", "steep_slope")        # [7.4] "Tiro ad alzo zero"
WORKS = ("trench", "fortification_side")               # [7.4] Eccezione: never block next to them
BANDS = ("point_blank", "effective", "maximum")


@dataclass
class Sight:
    """The answer of `trace`: clear or not, why, the distance, and (optional [7]) the hexes
    whose units the line passed over."""
    clear: bool
    reason: str
    distance: int
    passed_over: list[str] = field(default_factory=list)


def fire_range(sc, from_hex: str, to_hex: str) -> int:
    """[7.3]: hexes from the firer (excluded) to the target (included): the grid distance."""
    return geometry.distance(sc, from_hex, to_hex)


def range_band(sc, unit_id: str, from_hex: str, to_hex: str) -> str | None:
    """[7.3], [7.4]: "point_blank" (adjacent), "effective", "maximum", or None beyond the
    maximum range printed on the counter (HERALD D34)."""
    us = sc.unit(unit_id)
    d = fire_range(sc, from_hex, to_hex)
    if d < 1 or d > us.max_range:
        return None
    if d == 1:
        return "point_blank"
    return "effective" if d <= us.effective_range else "maximum"


def _blocking_features(sc, a: str, b: str) -> list[str]:
    """The line-blocking features of the hexside between a and b [7.4]."""
    out = []
    for kind in sc.map.features(a, b):
        t = tables.TERRAIN.get(kind)
        if t is not None and t.blocks_los:
            out.append(kind)
    return out


def _units_in(st: JdgState, hex_id: str) -> list:
    return st.units_at(hex_id)


def trace(sc, st: JdgState, from_hex: str, to_hex: str) -> Sight:
    """[7.4]: the line of fire from `from_hex` to `to_hex`, with why it is clear or blocked."""
    g = geometry.grid(sc)
    level = sc.map.level
    n = g.distance(from_hex, to_hex)
    if n == 0:
        return Sight(False, "a unit does not fire at its own hex", 0)
    la, lb = level(from_hex), level(to_hex)
    if n == 1:
        bad = [f for f in sc.map.features(from_hex, to_hex) if f in POINT_BLANK_BLOCKERS]
        if bad:
            return Sight(False, f"point-blank fire is impossible across the {bad[0].replace('_', ' ')} "
                                f"between {from_hex} and {to_hex} (JdG [7.4], point-blank fire)", 1)
        return Sight(True, "point-blank: an adjacent hex (JdG [7.4])", 1)
    misdirected = has_option(st, "misdirected-fire")
    passed: list[str] = []

    def seen_over(obstacle_level: int, pos2: int) -> bool:
        """[7.4] Ostacoli e altitudine; `pos2` is the obstacle's distance from the firer in
        half hexes (a hex at i hexes: 2i; the side between i and i+1: 2i+1); half way is n."""
        if la > obstacle_level and lb > obstacle_level:
            return True
        if la > lb and la > obstacle_level and pos2 <= n:
            return True
        if lb > la and lb > obstacle_level and pos2 >= n:
            return True
        return False

    def hex_obstacle(h: str | None, pos2: int) -> str:
        """Why the intermediate hex `h` blocks, or "" [7.4]."""
        if h is None:
            return ""
        lh = level(h)
        if lh > la and lh > lb:
            return (f"{h} (level {lh}) is higher than both the artillery (level {la}) and the target "
                    f"(level {lb})")
        t = geometry.terrain(sc, h)
        if t.blocks_los and not seen_over(lh, pos2):
            return f"{h} ({sc.map.terrain_at(h).replace('_', ' ')}) blocks the line"
        if _units_in(st, h):
            if seen_over(lh, pos2):
                passed.append(h)
                return ""
            if misdirected and lb > lh:
                passed.append(h)          # optional [7]: a higher target is seen over the unit
                return ""
            names = ", ".join(u.id for u in _units_in(st, h))
            return f"{h} holds a unit ({names}), which blocks the line"
        return ""

    def side_obstacle(x: str, y: str, pos2: int, own_side: bool) -> str:
        """Why the hexside x|y blocks, or "" [7.4]; `own_side`: it is a side of the firer's or
        the target's hex (a trench or fortification there never blocks)."""
        for kind in _blocking_features(sc, x, y):
            if kind in WORKS and own_side:
                continue
            if seen_over(max(level(x), level(y)), pos2):
                continue
            return f"the {kind.replace('_', ' ')} between {x} and {y} blocks the line"
        return ""

    steps = g.line_steps(from_hex, to_hex)
    for i, step in enumerate(steps, start=1):
        if len(step) == 1:
            why = hex_obstacle(step[0], 2 * i)
            if why:
                return Sight(False, f"{why} (JdG [7.4])", n)
            continue
        h1, h2 = step
        whys = [hex_obstacle(h1, 2 * i), hex_obstacle(h2, 2 * i)]
        if all(whys):
            return Sight(False, f"the line runs along the side between {h1} and {h2}, both blocking: "
                                f"{whys[0]}; {whys[1]} (JdG [7.4] lati di esagono)", n)
        passed += [h for h in step if h is not None and _units_in(st, h) and h not in passed]
        if h1 is not None and h2 is not None:
            why = side_obstacle(h1, h2, 2 * i, own_side=False)
            if why:
                return Sight(False, f"the line runs exactly along a blocking edge: {why} "
                                    f"(JdG [7.4] lati di esagono)", n)
    seq = [from_hex] + [s[0] if len(s) == 1 else None for s in steps] + [to_hex]
    for i, (x, y) in enumerate(zip(seq, seq[1:])):
        if x is None or y is None or not g.adjacent(x, y):
            continue
        why = side_obstacle(x, y, 2 * i + 1, own_side=(x == from_hex or y == to_hex))
        if why:
            return Sight(False, f"{why} (JdG [7.4])", n)
    return Sight(True, f"clear over {n} hexes (JdG [7.4])", n, sorted(set(passed)))


def line_of_sight(sc, st: JdgState, from_hex: str, to_hex: str) -> tuple[bool, str]:
    """[7.4]: (clear, reason) for a line of fire from `from_hex` to `to_hex` (see `trace`). The
    charge's line of sight [9.1] is the same (HERALD D36)."""
    s = trace(sc, st, from_hex, to_hex)
    return s.clear, s.reason


def in_fire_arc(sc, unit, target_hex: str) -> bool:
    """[6.1], [7.2]: artillery fires only through its two frontal hexes (six for a six-front unit:
    all round). An adjacent target must be a frontal hex; a farther one is in front when the line
    of fire leaves the firer's hex through a frontal hex, or runs along the side of one (the
    120-degree cone of the facing vertex, its edges included; HERALD D83)."""
    front = set(geometry.frontal_hexes(sc, unit))
    g = geometry.grid(sc)
    if g.distance(unit.hex, target_hex) == 1:
        return target_hex in front
    if geometry.six_fronts(sc, unit):
        return True
    first = g.line_steps(unit.hex, target_hex)[0]
    return any(h in front for h in first if h is not None)


def hexside_into_target(sc, from_hex: str, to_hex: str) -> str | None:
    """The fire-cover hexside the line crosses into the target's hex (a trench or fortification,
    tables.terrain_fire_modifiers), or None. When the line enters the target's hex at a vertex
    (along a hexside), a cover on either side of that vertex counts (HERALD D82)."""
    g = geometry.grid(sc)
    steps = g.line_steps(from_hex, to_hex)
    last = steps[-1] if steps else (from_hex,)
    best, best_drm = None, 0
    for h in last:
        if h is None or not g.adjacent(h, to_hex):
            continue
        for kind in sc.map.features(h, to_hex):
            t = tables.TERRAIN.get(kind)
            if t is not None and t.kind == "hexside" and t.fire_drm < best_drm:
                best, best_drm = kind, t.fire_drm
    return best
