"""Jours de Gloire board, the information strip under the map (Pillow only).

The turn and its time of day (night turns said), the phase [1], the strategic initiative [3],
the activation under way (its marker, formations with their colours, the step [1.D] and whether
it acts With Orders), the decision a player owes, VP, the cup (how many markers of each side are
in it and set aside [1.C]), every formation with its colour and, once public, its orders [2.3],
the commanders-in-chief [2.5], and a key of what the view shows.

What the state keeps secret is never drawn: a formation's orders show only once revealed
(`Formation.revealed`, [2.4]) or to their own side (`viewer`); a secret combined marker
(`Marker.secret`) is neither named nor counted in the cup, but for its own side.
Imports renders/jdg_art.py and renders/jdg_geometry.py; never renders/jdg.py.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

from engine.jdg.scenario import Scenario
from engine.jdg.state import JdgState

from .common import STRIP_DIM, STRIP_FG, FlowText, downsample, font
from .jdg_art import (BRIDGE, CREST, GOLD, RIVER, ROAD, ROAD_EDGE, SIDE_COLOURS, SIDE_NAMES, SS, STREAM, TAG_NAMES,
                      TERRAIN_COLOURS, TERRAIN_NAMES, TRENCH, hex_colour, hex_points, tag_sprite, terrain_tile)
from .jdg_geometry import DISPLAY_W

PHASE_NAMES = {"orders": "A. Orders (secret)", "initiative": "B. Strategic initiative",
               "cup": "C. Markers in the cup", "activation": "D. Activations", "rout": "E. Rout movement",
               "end": "F. End of turn", "over": "Game over"}
STEP_NAMES = {"orders_check": "orders check", "fire": "fire", "movement": "movement", "combat": "combat",
              "rally": "rally", "done": "done"}
ORDER_NAMES = {"with": "WITH ORDERS", "without": "WITHOUT ORDERS"}
ORDER_COLOURS = {"with": (150, 230, 150), "without": (255, 170, 120)}
HEXSIDE_NAMES = {"river": "river", "stream": "stream", "ford": "ford", "bridge": "bridge",
                 "crest": "crest (ticks downhill)", "steep_slope": "steep slope", "trench": "trench",
                 "fortification_side": "rampart", "impassable": "impassable side"}
STRIP_TEXT_PX = 10.5     # the strip's body text at DISPLAY_W, whatever the image's width


def strip_scale(width: int) -> float:
    """How much the strip's 16 px text is enlarged so it reads at STRIP_TEXT_PX once shown DISPLAY_W wide."""
    return max(1.0, width * STRIP_TEXT_PX / (DISPLAY_W * 16))


def orders_shown(state: JdgState, formation_id: str, viewer: str | None) -> str:
    """A formation's orders as this viewer may see them: "" while secret [2.3, 2.4]."""
    f = state.formations.get(formation_id)
    if f is None or not f.orders:
        return ""
    if f.revealed or (viewer is not None and viewer == f.side):
        return f.orders
    return ""


def cup_counts(state: JdgState, viewer: str | None) -> dict[str, tuple[int, int]]:
    """Per side: (markers in the cup this viewer may count, of them secret and the viewer's own)."""
    out: dict[str, list[int]] = {}
    for mid in state.cup:
        mk = state.markers.get(mid)
        if mk is None:
            continue
        if mk.secret and viewer != mk.side:
            continue
        c = out.setdefault(mk.side, [0, 0])
        c[0] += 1
        if mk.secret:
            c[1] += 1
    return {s: (v[0], v[1]) for s, v in out.items()}


def marker_label(scenario: Scenario, state: JdgState, marker_id: str, viewer: str | None) -> str:
    mk = state.markers.get(marker_id)
    if mk is None:
        return str(marker_id)
    if mk.secret and viewer != mk.side:
        return "a marker"
    if mk.kind == "ia" and mk.formation:
        try:
            return f"IA {scenario.formation(mk.formation).name}"
        except StopIteration:
            return f"IA {mk.formation}"
    try:
        sm = scenario.marker(marker_id)
        return ("IAC " if sm.kind == "iac" else "IA ") + f"\u201c{sm.name}\u201d"
    except StopIteration:
        return str(marker_id)


# --- the map key ----------------------------------------------------------------------------------
@lru_cache(maxsize=64)
def _terrain_swatch(name: str, level: int, h: int) -> Image.Image:
    r = h / 1.732 * SS
    return downsample(terrain_tile(name, level, round(r, 3), 0.0), SS)


@lru_cache(maxsize=32)
def _hexside_swatch(kind: str, h: int) -> Image.Image:
    w = int(2.2 * h)
    img = Image.new("RGBA", (w * SS, h * SS), TERRAIN_COLOURS["clear"] + (255,))
    d = ImageDraw.Draw(img)
    r = h * SS
    y = 0.5 * r
    a, b = (0.08 * w * SS, y), (0.92 * w * SS, y)
    if kind == "river":
        d.line([a, b], fill=RIVER, width=int(0.3 * r))
    elif kind in ("stream", "ford"):
        d.line([a, b], fill=STREAM, width=int(0.16 * r))
        if kind == "ford":
            mx = (a[0] + b[0]) / 2
            rr = 0.3 * r
            d.ellipse((mx - rr, y - rr, mx + rr, y + rr), fill=(236, 214, 150), outline=STREAM, width=SS * 2)
    elif kind == "bridge":
        d.line([a, b], fill=STREAM, width=int(0.16 * r))
        mx = (a[0] + b[0]) / 2
        d.rectangle((mx - 0.25 * r, y - 0.4 * r, mx + 0.25 * r, y + 0.4 * r), fill=BRIDGE, outline=(50, 30, 14), width=SS)
    elif kind in ("crest", "steep_slope"):
        d.line([a, b], fill=CREST, width=int(0.1 * r))
        n = 5 if kind == "crest" else 9
        for i in range(n):
            x = a[0] + (b[0] - a[0]) * (i + 0.5) / n
            d.line([(x, y), (x, y + (0.4 if i % 2 == 0 else 0.25) * r)], fill=CREST, width=SS * 2)
    elif kind in ("trench", "fortification_side"):
        pts = [(a[0] + (b[0] - a[0]) * i / 10, y + (0.15 * r if i % 2 else -0.15 * r)) for i in range(11)]
        d.line(pts, fill=TRENCH, width=SS * 3)
    elif kind == "road":
        d.line([a, b], fill=ROAD_EDGE, width=int(0.3 * r))
        d.line([a, b], fill=ROAD, width=int(0.2 * r))
    elif kind == "path":
        x = a[0]
        while x < b[0]:
            d.line([(x, y), (min(b[0], x + 0.35 * r), y)], fill=(140, 104, 56), width=int(0.12 * r))
            x += 0.6 * r
    else:
        d.line([a, b], fill=(20, 20, 20), width=int(0.2 * r))
    return downsample(img, SS)


@lru_cache(maxsize=8)
def _vp_swatch(h: int) -> Image.Image:
    img = Image.new("RGBA", (h * SS, h * SS), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    pts = hex_points(h * SS / 2, h * SS / 2, h * SS / 2 - SS)
    d.polygon(pts, fill=TERRAIN_COLOURS["clear"])
    d.line(pts + pts[:2], fill=GOLD, width=int(0.16 * h * SS), joint="curve")
    return downsample(img, SS)


def legend_entries(scenario: Scenario, hexes: set[str], tags: set[str]) -> list[tuple[str, Any, str]]:
    """(kind, what, text) for what the view shows: terrain, elevation, hexsides, roads, markers."""
    m = scenario.map
    out: list[tuple[str, Any, str]] = []
    terrains = sorted({m.terrain_at(h) for h in hexes} - {"clear"},
                      key=lambda t: list(TERRAIN_NAMES).index(t) if t in TERRAIN_NAMES else 99)
    for t in terrains:
        out.append(("terrain", (t, 0), TERRAIN_NAMES.get(t, t.replace("_", " "))))
    levels = sorted({m.level(h) for h in hexes} - {0})
    for lv in levels:
        out.append(("terrain", ("clear", lv), f"level {lv} (contour ticks downhill)"))
    kinds = sorted({f.type for fs in m.hexsides.values() for f in fs if f.hex in hexes or f.other in hexes},
                   key=lambda k: list(HEXSIDE_NAMES).index(k) if k in HEXSIDE_NAMES else 99)
    for k in kinds:
        out.append(("hexside", k, HEXSIDE_NAMES.get(k, k.replace("_", " "))))
    for kind in ("road", "path"):
        if any(r.kind == kind and any(h in hexes for h in r.hexes) for r in m.roads):
            out.append(("hexside", kind, kind))
    for t in TAG_NAMES:
        if t in tags:
            out.append(("tag", t, TAG_NAMES[t]))
    if any(v.hex in hexes for v in scenario.victory.hexes):
        out.append(("vp", None, "victory hex (VP; the flag: who holds it)"))
    return out


def _legend_groups(entries, k: float, reg, fg) -> list[list[tuple]]:
    h = round(18 * k)
    groups = []
    for kind, what, text in entries:
        if kind == "terrain":
            sw = _terrain_swatch(what[0], what[1], h)
        elif kind == "hexside":
            sw = _hexside_swatch(what, h)
        elif kind == "tag":
            sw = tag_sprite(round(14 * k, 3), (what,))
        else:
            sw = _vp_swatch(h)
        groups.append([("image", sw), ("gap", round(5 * k)), ("text", text, reg, fg)])
    return groups


# --- the strip ------------------------------------------------------------------------------------
def strip(scenario: Scenario, state: JdgState, width: int, viewer: str | None, legend: list,
          stacks: list[tuple[str, list[str]]] = (), k: float | None = None) -> FlowText:
    k = strip_scale(width) if k is None else k
    big, bold, reg, small = font(round(20 * k), True), font(round(16 * k), True), font(round(16 * k)), font(round(14 * k))
    flow = FlowText(width, round(28 * k), pad_x=round(14 * k), gap=round(18 * k))

    def chip(side: str) -> list[tuple]:
        return [("box", round(16 * k), round(14 * k), SIDE_COLOURS.get(side, (128, 128, 128)), (230, 230, 230)),
                ("gap", round(4 * k)), ("text", SIDE_NAMES.get(side, str(side).title() or "?"), bold, STRIP_FG)]

    def fbox(fid: str) -> tuple:
        try:
            col = hex_colour(scenario.formation(fid).colour)
        except StopIteration:
            col = (200, 200, 200)
        return ("box", round(18 * k), round(12 * k), col, (20, 20, 20))

    def fname(fid: str) -> str:
        try:
            return scenario.formation(fid).name
        except StopIteration:
            return fid

    turns = scenario.turns
    night = turns.is_night(state.turn)
    flow.add([("text", f"{scenario.title}, {scenario.date}", big, STRIP_FG), ("gap", round(14 * k)),
              ("text", f"Turn {state.turn} of {turns.count}, {turns.time_of(state.turn)}"
                       + (" (night)" if night else ""), bold, (150, 170, 255) if night else STRIP_DIM)])
    flow.add([("text", PHASE_NAMES.get(state.phase, str(state.phase).title()), bold, STRIP_FG)])
    if state.phase != "orders" and state.phase != "over":
        if state.initiative:
            flow.add([("text", "Initiative ", reg, STRIP_DIM)] + chip(state.initiative))
        elif state.phase != "initiative":
            flow.add([("text", "Initiative: tied", reg, STRIP_DIM)])
    drawer = getattr(state, "drawer", "")
    if drawer and state.phase == "activation" and state.activation is None:
        flow.add([("text", "Draws next ", reg, STRIP_DIM)] + chip(drawer))
    if state.phase == "orders":
        done = [s for s in ("french", "austrian") if s in state.orders_done]
        flow.add([("text", "Orders given: " + (", ".join(SIDE_NAMES.get(s, s) for s in done) or "none yet"), reg,
                   STRIP_DIM)])
    if state.winner or state.phase == "over":
        if state.winner:
            flow.add([("text", "Victory: ", bold, GOLD)] + chip(state.winner)
                     + ([("text", f"  {state.result}", reg, STRIP_DIM)] if state.result else []), new_line=True)
        else:
            flow.add([("text", "Game over" + (f": {state.result}" if state.result else ""), bold, GOLD)], new_line=True)
    act = state.activation
    if act is not None and state.phase != "over":
        items = [("text", "Active ", reg, STRIP_DIM)] + chip(act.side)
        items += [("text", f"  {marker_label(scenario, state, act.marker, viewer)}", bold, STRIP_FG)]
        for fid in act.formations:
            items += [("gap", round(8 * k)), fbox(fid), ("gap", round(3 * k)), ("text", fname(fid), reg, STRIP_FG)]
        if act.step != "orders_check":
            items += [("text", "  With Orders" if act.with_orders else "  Without Orders", bold,
                       ORDER_COLOURS["with" if act.with_orders else "without"])]
        items += [("text", f"  step: {STEP_NAMES.get(act.step, act.step)}", reg, STRIP_FG)]
        flow.add(items, new_line=True)
    pend = state.pending if isinstance(state.pending, dict) else None
    if pend and state.phase != "over":
        who = pend.get("side") or ""
        what = str(pend.get("prompt") or pend.get("kind", "decision")).replace("_", " ")
        flow.add([("text", "Waiting for ", reg, GOLD)] + chip(who) + [("text", f": {what}", reg, STRIP_FG)],
                 new_line=act is None)
    vp = state.vp or {}
    counts = cup_counts(state, viewer)
    first = True
    for side in ("french", "austrian"):
        flow.add(([("text", "VP ", reg, STRIP_DIM)] if first else []) + chip(side)
                 + [("text", f" {int(vp.get(side, 0))}", bold, STRIP_FG)], new_line=first)
        first = False
    cup = [f"{SIDE_NAMES.get(s, s)} {counts.get(s, (0, 0))[0]}"
           + (f" ({counts[s][1]} secret, yours)" if counts.get(s, (0, 0))[1] else "") for s in ("french", "austrian")]
    flow.add([("text", "Cup: ", reg, STRIP_DIM), ("text", ", ".join(cup), reg, STRIP_FG),
              ("text", f"; set aside {len(state.set_aside)}", reg, STRIP_DIM)])
    for side in ("french", "austrian"):
        lead = True
        for f in scenario.formations_of(side):
            fs = state.formations.get(f.id)
            orders = orders_shown(state, f.id, viewer)
            status = ""
            if act is not None and f.id in act.formations and state.phase != "over":
                status = " \u25c0 active"
            elif fs is not None and fs.activations:
                status = f" ({fs.activations} IA)"
            items = [("text", f"{SIDE_NAMES.get(side, side)}: ", bold, STRIP_DIM)] if lead else []
            items += [fbox(f.id), ("gap", round(3 * k)), ("text", f.name, reg, STRIP_FG)]
            if orders:
                items += [("text", f" {ORDER_NAMES.get(orders, orders.upper())}", bold,
                           ORDER_COLOURS.get(orders, STRIP_FG))]
                if not (fs and fs.revealed):
                    items += [("text", " (secret)", reg, STRIP_DIM)]
            items += [("text", status, reg, STRIP_DIM)]
            flow.add(items, new_line=lead)
            lead = False
    chiefs = []
    for c in scenario.commanders:
        cs = state.commanders.get(c.id)
        name = c.name
        if c.leaves_turn and c.successor and state.turn > c.leaves_turn:
            name = c.successor.name
        where = "eliminated" if cs is not None and cs.status != "active" else (cs.hex if cs and cs.hex else "off map")
        chiefs.append(f"{name} ({SIDE_NAMES.get(c.side, c.side)}) {where}")
    if chiefs:
        flow.add([("text", "Commanders-in-chief: ", reg, STRIP_DIM), ("text", "; ".join(chiefs), reg, STRIP_FG)],
                 new_line=True)
    exits = [f"{SIDE_NAMES.get(s, s)} {e.edge}" + (f" ({', '.join(e.hexes)})" if e.hexes else "")
             for s, e in sorted(scenario.rout_exits.items())]
    if exits:
        flow.add([("text", "Rout exits (chevrons): ", reg, STRIP_DIM), ("text", "; ".join(exits), reg, STRIP_FG)],
                 new_line=True)
    if stacks:
        flow.add([("text", "Stacks, top first:", bold, STRIP_DIM)], new_line=True)
        for h, ids in stacks:
            flow.add([("text", f"{h}: ", bold, STRIP_FG), ("text", ", ".join(ids), reg, STRIP_FG)])
    flow.add([("text", "Map key:", bold, STRIP_DIM)], new_line=True)
    for group in _legend_groups(legend, k, small, STRIP_FG):
        flow.add(group)
    flow.add([("text", "Counters: blue French, white Austrian; the stripe is the formation's colour (above); "
                       "X infantry, / cavalry (L heavy), dot artillery; strength-cohesion-MP; the white point "
                       "faces the vertex the unit faces; a pale counter is disordered (its back); yellow halo: "
                       "the active formation. Gold discs: commanders-in-chief.", small, STRIP_DIM)], new_line=True)
    return flow
