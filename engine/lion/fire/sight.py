"""Who may shoot at whom [7 A], [12 D], [12 F], [9 C], and whether the target is in cover [7 C].

[7 A] "Il Tiro è possibile solo se il bersaglio è nel raggio di tiro ed è visibile liberamente
dal tiratore ... Solo le basette che si trovano sul bordo di un bosco possono tirare al di fuori
di esso, e, allo stesso tempo, possono essere colpite. Non è possibile tirare attraverso boschi,
colline od altre truppe, tranne che per i mortai. L'angolo di tiro è di 30° per lato".

- Range (HERALD D3): from the firing face's edge to the nearest point of the target, against the
  type's maximum range (tables.TROOPS, "Gittata Massima"); the band by tables.shooting_band
  (mortars always long [12 D], HERALD D10, D12).
- Arc (HERALD D5): engine.core.table.geometry.in_arc, 30 degrees outward of each end of the face.
- Sight (HERALD D81): woods, hills and towns (the terrain's sight blockers) and every other live
  unit's base, of either side, block; a hill the shooter or the target stands on does not; a wood
  or town the shooter or the target stands in blocks only beyond EDGE_DEPTH of its base, and a
  base deeper in a wood than EDGE_DEPTH neither shoots out nor is shot at. Generals and camps do
  not block ("altre truppe"). Mortars shoot over everything [12 D].
- Cover [7 C] (HERALD D18, D85): a target in woods or a town, or behind a wall or defences (one
  within EDGE_DEPTH of its base, crossed by the line from the shooter's face to it).
"""
from __future__ import annotations

import math

from shapely.geometry import LineString, Point
from shapely.ops import unary_union

from engine.core.errors import Illegal
from engine.core.table.geometry import (CONTACT_TOL, Pose, base_polygon, boxes_apart, centre, clear_line, edges,
                                        front_distance, in_arc, reach_radius)
from engine.core.table.terrain import Terrain

from engine.lion import checks, rules, tables

EDGE_DEPTH = 1.0          # cm: a base this close to a wood's boundary is at its edge (HERALD D81)
FACE_ORDER = ("front", "left", "right", "rear")

_TERRAIN: dict[int, tuple[object, Terrain]] = {}


def terrain(sc) -> Terrain:
    """The scenario's terrain (engine.core.table.terrain), built once per scenario object."""
    got = _TERRAIN.get(id(sc))
    if got is not None and got[0] is sc:
        return got[1]
    feats = sorted(getattr(sc, "features", ()) or (), key=lambda f: f.id)
    t = Terrain(feats)
    if len(_TERRAIN) > 16:
        _TERRAIN.clear()
    _TERRAIN[id(sc)] = (sc, t)
    return t


def is_general(obj) -> bool:
    return hasattr(obj, "role")


def troop(obj) -> tables.TroopType:
    """The troop chart's row a unit uses now (dragoons on foot are dismounted dragoons [12 C]);
    a general's row for a general."""
    if is_general(obj):
        return tables.TROOPS["general"]
    return tables.troop(tables.effective_type(obj.type, obj.mounted))


def pose(obj) -> Pose:
    return checks.pose(obj)


def poly(obj):
    return base_polygon(checks.pose(obj), checks.footprint(obj))


def owner(obj) -> str:
    """The side a unit works for (a captured gun for its captor [9 B]); a general's side."""
    return obj.side if is_general(obj) else checks.controller(obj)


def fmt(v: float) -> str:
    s = f"{v:.2f}".rstrip("0").rstrip(".")
    return s if s not in ("", "-0") else "0"


def is_tercio(u) -> bool:
    return not is_general(u) and u.type == "tercio"


# -- the shooter ----------------------------------------------------------------------------------

def shooter_problem(sc, st, u) -> tuple[str, str] | None:
    """Why `u` cannot shoot at all now (reason, section), or None [7], [6 A], [15] 6."""
    t = troop(u)
    name = rules.named(sc, u.id)
    if not t.shoot_die:
        return f"{name} ({t.name}) has no firearms: no shooting die on the troop chart", "LdN [Tabella riassuntiva]"
    if st.weather.get("rain") == "heavy":
        return "heavy rain: firearms do not fire for two moves", "LdN [15] 6"
    if t.gun in ("light", "medium") and not u.deployed:
        return (f"{name} is limbered: light and medium guns shoot only when deployed (piazzati)",
                "LdN [6 A]")
    return None


def faces_of(u) -> tuple[str, ...]:
    """The faces a unit fires from: the front; all four for a Tercio [12 F] (HERALD D5)."""
    return FACE_ORDER if is_tercio(u) else ("front",)


# -- the target ------------------------------------------------------------------------------------

ROUNDING = 0.02     # cm: a cheap lower bound beyond a limit by more than this is beyond it once rounded


def general_exposed(st, g) -> tuple[bool, float]:
    """[9 C] "Un generale può essere soggetto al tiro nemico se dista più di 10 cm da un'unità
    amica": (exposed, the distance to his nearest live friendly unit). The units are measured
    nearest first by a cheap lower bound (as geometry.distance_floor, from `discs`); once it passes the
    nearest exact distance found, no unit further on can be nearer."""
    gx, gy, gr = disc_of(st, g)
    near = discs(st)[0]
    friends = sorted((math.hypot(gx - near[u.id][0], gy - near[u.id][1]) - gr - near[u.id][2], u.id, u)
                     for u in st.units.values() if u.alive and checks.controller(u) == g.side)
    near = float("inf")
    for floor, _, u in friends:
        if floor > near + ROUNDING:
            break
        near = min(near, checks.base_distance(g, u))
    return near > tables.GENERAL_EXPOSED, near


def sight_box(shooter, target, face: str = "front") -> tuple[float, float, float, float]:
    """The bounding box (minx, miny, maxx, maxy) of every line of sight from `shooter`'s face
    to `target` (geometry.clear_line draws them from points of the face edge to points of the
    target's outline), widened by ROUNDING: a blocker wholly outside it cannot cut any of them."""
    ex = edges(checks.pose(shooter), checks.footprint(shooter))[face].bounds
    tb = poly(target).bounds
    return (min(ex[0], tb[0]) - ROUNDING, min(ex[1], tb[1]) - ROUNDING,
            max(ex[2], tb[2]) + ROUNDING, max(ex[3], tb[3]) + ROUNDING)


def discs(st) -> tuple[dict, dict]:
    """(units, generals): id -> (x, y, r), the centre of each base and its half diagonal (a
    circle holding the whole base), for the cheap lower bounds of distances. Kept on the state
    (`_memo_lion_discs`, never copied) while no base changed: every call compares the places,
    facings and types of all bases with those it was built for."""
    sig = (tuple((u.id, u.x, u.y, u.facing, u.type, u.mounted) for u in st.units.values()),
           tuple((g.id, g.x, g.y, g.facing) for g in st.generals.values()))
    memo = st.__dict__.get("_memo_lion_discs")
    if memo is not None and memo[0] == sig:
        return memo[1]
    got: tuple[dict, dict] = ({}, {})
    for table, objs in ((got[0], st.units.values()), (got[1], st.generals.values())):
        for obj in objs:
            pp, fp = checks.pose(obj), checks.footprint(obj)
            x, y = centre(pp, fp)
            table[obj.id] = (x, y, reach_radius(fp))
    st.__dict__["_memo_lion_discs"] = (sig, got)
    return got


def disc_of(st, obj) -> tuple[float, float, float]:
    """discs' entry for one unit or general."""
    return discs(st)[1 if is_general(obj) else 0][obj.id]


def blockers(sc, st, shooter, target, box: tuple[float, float, float, float] | None = None
             ) -> list[tuple[str, object]]:
    """What stands in the way of a shot (label, polygon), HERALD D81: woods, hills and towns
    (a hill under the shooter or the target left out; a wood or town they stand in cut back by
    EDGE_DEPTH round their bases) and every other live unit. `box` (sight_box): only those
    reaching into it, in the same order (the others cannot cut a line of sight: the same
    verdict of clear_line, found without building them)."""
    ter = terrain(sc)
    ends = [poly(shooter), poly(target)]
    out: list[tuple[str, object]] = []
    for f in ter.features:
        if f.kind not in ter.blocking_kinds or f.geometry.area <= 0:
            continue
        if box is not None and boxes_apart(f.geometry.bounds, box):
            continue
        g = f.geometry
        inside = [p for p in ends if g.intersects(p) and g.intersection(p).area > 1e-9]
        if inside:
            if f.kind in ter.hill_kinds:
                continue
            g = g.difference(unary_union([p.buffer(EDGE_DEPTH) for p in inside]))
            if g.is_empty:
                continue
        label = f"the {f.kind} {getattr(f, 'name', '') or f.id}".rstrip()
        out.append((label, g))
    near = discs(st)[0] if box is not None else {}
    for u in sorted(st.units.values(), key=lambda u: u.id):
        if u.alive and u.id not in (shooter.id, target.id):
            if box is not None:
                cx, cy, r = near[u.id]
                if boxes_apart((cx - r, cy - r, cx + r, cy + r), box):
                    continue
            out.append((rules.named(sc, u.id), poly(u)))
    return out


_DEEP: dict[tuple, tuple[Terrain, bool]] = {}


def deep_in_woods(sc, obj) -> bool:
    """In a wood and not at its edge (HERALD D81): more than EDGE_DEPTH inside. Remembered for
    the base's place and size on the scenario's terrain."""
    ter = terrain(sc)
    pp, fp = checks.pose(obj), checks.footprint(obj)
    key = (id(ter), pp.x, pp.y, pp.facing, fp.width, fp.depth)
    got = _DEEP.get(key)
    if got is not None and got[0] is ter:
        return got[1]
    p = poly(obj)
    deep = ter.in_woods(p) and not ter.at_wood_edge(p, depth=EDGE_DEPTH)
    if len(_DEEP) > 20_000:
        _DEEP.clear()
    _DEEP[key] = (ter, deep)
    return deep


def check_target(sc, st, shooter, target, face: str = "front", *, contact: bool = False,
                 explain: bool = True, exposed_memo: dict | None = None) -> dict:
    """The shot's geometry, or Illegal naming the rule and by how much [7 A], [12 D], [12 F],
    [15] 1, [9 C]: {"distance", "band", "threshold", "face"}. `contact`: contact fire [7 D], at an
    enemy touching the face (no arc, sight or range to check). `explain=False` (the searches of
    `legal_targets`) skips naming which blocker hides the target, the costly part of a refusal.
    `exposed_memo` (a dict kept by a search over one unchanged state): general_exposed
    remembered per general."""
    t = troop(shooter)
    sname, tname = rules.named(sc, shooter.id), rules.named(sc, target.id)
    if owner(target) == owner(shooter):
        raise Illegal(f"{tname} is on your own side", "LdN [7]")
    if is_general(target):
        got = exposed_memo.get(target.id) if exposed_memo is not None else None
        if got is None:
            got = general_exposed(st, target)
            if exposed_memo is not None:
                exposed_memo[target.id] = got
        exposed, near = got
        if not exposed:
            raise Illegal(f"{tname} is {fmt(near)} cm from a unit of his own: a general may be shot at "
                          f"only more than {fmt(tables.GENERAL_EXPOSED)} cm from any friendly unit", "LdN [9 C]")
    ps, fs = checks.pose(shooter), checks.footprint(shooter)
    pt, ft = checks.pose(target), checks.footprint(target)
    dist = front_distance(ps, fs, pt, ft, face)
    mortar = t.gun == "mortar"
    if not contact:
        if dist > t.max_range:
            raise Illegal(f"{tname} is {fmt(dist)} cm from {sname}'s {face} edge: beyond its "
                          f"{fmt(t.max_range)} cm maximum range ({t.name})", "LdN [7 A]")
        if not in_arc(ps, fs, pt, ft, reach=None, half_angle=tables.ARC_HALF_ANGLE, face=face):
            raise Illegal(f"{tname} is not in the arc of {sname}'s {face}: 30 degrees each side "
                          f"(HERALD D5)", "LdN [7 A]")
        if not mortar:
            for who, obj in ((sname, shooter), (tname, target)):
                if deep_in_woods(sc, obj):
                    raise Illegal(f"{who} is inside the woods, not at their edge: only bases on a "
                                  f"wood's edge shoot out of it or are shot at", "LdN [7 A]")
            blocks = blockers(sc, st, shooter, target, sight_box(shooter, target, face))
            if not clear_line(ps, fs, pt, ft, [g for _, g in blocks], face):
                alone = [label for label, g in blocks if not clear_line(ps, fs, pt, ft, [g], face)] \
                    if explain else []
                what = alone[0] if alone else "the terrain and troops between them"
                raise Illegal(f"{sname} cannot see {tname}: {what} blocks the line of sight "
                              f"(no shooting through woods, hills or other troops)", "LdN [7 A]")
    band = "short" if contact and not mortar else tables.shooting_band(tables.effective_type(shooter.type, shooter.mounted), dist)
    if st.weather.get("visibility") and band not in tables.VISIBILITY_BANDS:
        raise Illegal(f"limited visibility: only short-range fire, and {tname} is at {band} range "
                      f"({fmt(dist)} cm)" + (" (mortars always fire at long range)" if mortar else ""),
                      "LdN [15] 1")
    return {"distance": dist, "band": band, "threshold": tables.threshold(t.arm, band), "face": face}


def choose_face(sc, st, shooter, target, word: str = "") -> str:
    """The face a shot is fired from: the one named (`from <face>`, a Tercio only [12 F]), else
    the front, else (a Tercio) the first face, in order left, right, rear, whose arc holds the
    target and which has not fired yet this turn (HERALD D80)."""
    faces = faces_of(shooter)
    if word:
        if word not in FACE_ORDER:
            raise Illegal(f"'{word}' is not a face: front, left, right or rear", "LdN [12 F]")
        if word not in faces:
            raise Illegal(f"only a Tercio fires from its {word}; {rules.named(sc, shooter.id)} fires from "
                          f"its front", "LdN [7 A], [12 F]")
        return word
    if len(faces) == 1:
        return "front"
    ps, fs = checks.pose(shooter), checks.footprint(shooter)
    pt, ft = checks.pose(target), checks.footprint(target)
    for f in faces:
        if f in shooter.shot_faces:
            continue
        if in_arc(ps, fs, pt, ft, reach=None, half_angle=tables.ARC_HALF_ANGLE, face=f):
            return f
    return "front"


def cover(sc, st, shooter, target, face: str = "front") -> str:
    """Why the target is in cover [7 C] (HERALD D18, D85), or "": in woods or a town, or behind a
    wall or defences between it and the shooter."""
    ter = terrain(sc)
    p = poly(target)
    kinds = ter.kinds_at(p)
    for kind in ("woods", "town"):
        if kind in kinds and kind in tables.COVER_KINDS:
            return f"in a {kind}" if kind == "town" else "in the woods"
    ps, fs = checks.pose(shooter), checks.footprint(shooter)
    edge = edges(ps, fs)[face]
    mid = edge.interpolate(0.5, normalized=True)
    cx, cy = centre(checks.pose(target), checks.footprint(target))
    line = LineString([(mid.x, mid.y), (cx, cy)])
    for f in ter.features:
        if f.kind in ("wall", "defences") and f.kind in tables.COVER_KINDS:
            if f.geometry.distance(p) <= EDGE_DEPTH and f.geometry.intersects(line):
                return f"behind {'a wall' if f.kind == 'wall' else 'defences'}"
    return ""


def touching(a, b) -> bool:
    return checks.base_distance(a, b) <= CONTACT_TOL


def legal_targets(sc, st, shooter) -> list[tuple[str, str]]:
    """(id, face) of every enemy unit or exposed general `shooter` may shoot at now, for the
    completions and the card check (each face of a Tercio not fired yet)."""
    return list(iter_targets(sc, st, shooter))


def iter_targets(sc, st, shooter):
    """legal_targets one at a time, in the same order (the shoot card's check stops at the
    first). A foe whose cheap lower bound of the range (geometry.front_distance_floor) is
    beyond the maximum range is passed over unmeasured: check_target would refuse it [7 A]."""
    if shooter_problem(sc, st, shooter):
        return
    side = owner(shooter)
    foes = [u for u in sorted(st.units.values(), key=lambda u: u.id) if u.alive and owner(u) != side]
    foes += [g for g in sorted(st.generals.values(), key=lambda g: g.id) if g.alive and g.side != side]
    most = troop(shooter).max_range + ROUNDING
    ps, fs = checks.pose(shooter), checks.footprint(shooter)
    memo: dict = {}
    unit_discs, general_discs = discs(st)
    for face in faces_of(shooter):
        if face in shooter.shot_faces or (not is_tercio(shooter) and shooter.shot):
            continue
        (ax, ay), (bx, by) = edges(ps, fs)[face].coords
        mx, my, half = (ax + bx) / 2.0, (ay + by) / 2.0, math.hypot(bx - ax, by - ay) / 2.0
        for foe in foes:
            if is_tercio(shooter) and len(shooter.shot_at) == len(shooter.shot_faces) \
                    and foe.id in shooter.shot_at:
                continue            # each face at a different enemy [12 F] (shoot.do_shoot refuses it)
            fx, fy, fr = (general_discs if is_general(foe) else unit_discs)[foe.id]
            if math.hypot(mx - fx, my - fy) - half - fr > most:
                continue            # geometry.front_distance_floor: beyond range for sure
            try:
                check_target(sc, st, shooter, foe, face, explain=False, exposed_memo=memo)
            except Illegal:
                continue
            yield foe.id, face


def centre_point(obj) -> Point:
    cx, cy = centre(checks.pose(obj), checks.footprint(obj))
    return Point(cx, cy)
