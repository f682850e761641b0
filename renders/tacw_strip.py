"""This Accursed Civil War board, the information strip under the map (Pillow only).

The strip's text (`_strip`: battle, turn, phase, activation, pending decision, victory, VP, every
wing with its colour and order, friendly map edges, stacks the map does not caption) scaled with
the image's width (`strip_scale`), and its map key: the legend of what the view shows
(`_legend`: terrain, hexsides, markers, victory hexes) with its swatches. Imports
renders/tacw_geometry.py and renders/tacw_layout.py; never renders/tacw.py.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

from engine.tacw.scenario.schema import Scenario
from engine.tacw.state import TacwState

from .common import STRIP_DIM, STRIP_FG, FlowText, downsample, font
from .tacw_deploy import deploying_sides
from .tacw_art import (GOLD, SIDE_COLOURS, SIDE_NAMES, SS, TAGS, TERRAIN_COLOURS, flat_hex, mix, tag_sprite,
                       terrain_tile)
from .tacw_geometry import DISPLAY_W, HEDGE_DARK, HEDGE_GREEN, SLOPE, SQRT3, STREAM, BoardGeometry, _hexes_in_view
from .tacw_layout import BoardLayout, _seq, _unit_tags, wing_colours

ORDER_NAMES = {"charge": "Charge", "make_ready": "Make Ready", "receive_charge": "Receive Charge",
               "rally": "Rally"}
ORDER_COLOURS = {"charge": (255, 120, 100), "make_ready": (255, 214, 110),
                 "receive_charge": (140, 200, 255), "rally": (150, 230, 150)}
PHASE_NAMES = {"deployment": "Deployment phase", "initiative": "Initiative phase", "activation": "Activation phase",
               "rout": "Rout Movement phase", "markers": "Marker Removal phase", "over": "Game over"}
STEP_NAMES = {"order_change": "order change", "actions": "actions", "close_combat": "close combat",
              "continuation": "continuation", "bypass": "bypass window"}


# --- legend (in the strip): what the map's drawings mean -----------------------------------------
TERRAIN_NAMES = {"wood": "wood", "marsh": "marsh", "thicket": "thicket", "hedge_road": "hedged lane",
                 "hedge": "enclosures", "ploughed": "ploughed field", "river": "river",
                 "village": "village", "bridge": "bridge", "castle": "castle",
                 "entrenchment": "entrenchment"}
HEXSIDE_NAMES = {"hedge": "hedge", "slope": "slope (ticks point downhill)", "stream": "stream"}
TAG_NAMES = {"disordered": "disordered", "formation_broken": "formation broken",
             "shaken": "shaken", "routed": "routed", "open": "open order", "column": "column",
             "hedgehog": "hedgehog", "salvo": "salvo used", "fired": "gun fired",
             "disabled": "gun disabled", "captured": "gun captured"}


@lru_cache(maxsize=64)
def _terrain_swatch(name: str, h: int) -> Image.Image:
    r = h / SQRT3 * SS
    tile = terrain_tile(name, r)
    return downsample(tile, SS)


@lru_cache(maxsize=16)
def _hexside_swatch(kind: str, h: int, faded: bool) -> Image.Image:
    w = int(2.2 * h)
    img = Image.new("RGBA", (w * SS, h * SS), TERRAIN_COLOURS["clear"] + (255,))
    d = ImageDraw.Draw(img)
    r = h * SS / 0.9 / 1.0
    a, b = (0.1 * w * SS, 0.35 * h * SS), (0.9 * w * SS, 0.35 * h * SS)
    bg = TERRAIN_COLOURS["clear"]
    fade = 0.55 if faded else 0.0
    if kind == "hedge":
        d.line([a, b], fill=mix(HEDGE_DARK, bg, fade), width=int(0.2 * r))
        d.line([a, b], fill=mix(HEDGE_GREEN, bg, fade), width=int(0.09 * r))
    elif kind == "slope":
        col = mix(SLOPE, bg, fade)
        d.line([a, b], fill=col, width=int(0.07 * r))
        for i in range(5):
            x = a[0] + (b[0] - a[0]) * (i + 0.5) / 5
            d.line([(x, a[1]), (x, a[1] + (0.3 if i % 2 == 0 else 0.2) * r)], fill=col, width=int(0.05 * r))
    elif kind == "stream":
        d.line([a, b], fill=mix(STREAM, bg, fade), width=int(0.07 * r))
    return downsample(img, SS)


def _legend(scenario: Scenario, state: TacwState, g: BoardGeometry, layout: "BoardLayout") -> list[tuple]:
    """Legend entries for what this view shows: [(swatch image, text)], terrain first, then
    hexsides, then the markers on its counters."""
    hexes = set(_hexes_in_view(scenario, g))
    out: list[tuple[str, Any, str]] = []
    terrains = sorted({scenario.terrain_at(h) for h in hexes} - {"clear"},
                      key=lambda t: list(TERRAIN_NAMES).index(t) if t in TERRAIN_NAMES else 99)
    for t in terrains:
        out.append(("terrain", t, TERRAIN_NAMES.get(t, t.replace("_", " "))))
    sides = sorted({(hs.type, bool(hs.no_effect)) for hs in scenario.hexsides.values()
                    if hs.hex in hexes or hs.other in hexes})
    for kind, faded in sides:
        name = HEXSIDE_NAMES.get(kind, kind)
        out.append(("hexside", (kind, faded), name + (" (no effect)" if faded else "")))
    tags = set()
    for u, *_ in layout.units:
        tags |= set(_unit_tags(u)[0])
    for t in TAGS:
        if t in tags:
            out.append(("tag", t, TAG_NAMES.get(t, t)))
    if scenario.victory_hexes and any(v.hex in hexes for v in scenario.victory_hexes):
        out.append(("vp", None, "victory hex"))
    return out


def _legend_groups(entries, k: float, reg, dim) -> list[list[tuple]]:
    h = round(18 * k)
    groups = []
    for kind, what, text in entries:
        if kind == "terrain":
            sw = _terrain_swatch(what, h)
        elif kind == "hexside":
            sw = _hexside_swatch(what[0], h, what[1])
        elif kind == "tag":
            sw = _tag_swatch(what, k)
        else:
            sw = _vp_swatch(h)
        groups.append([("image", sw), ("gap", round(5 * k)), ("text", text, reg, dim)])
    return groups


@lru_cache(maxsize=32)
def _tag_swatch(tag: str, k: float) -> Image.Image:
    sprite, _ = tag_sprite(round(30 * k * 2.0, 3), (tag,))   # its text at the strip's size
    return sprite


@lru_cache(maxsize=8)
def _vp_swatch(h: int) -> Image.Image:
    img = Image.new("RGBA", (h * SS, h * SS), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    pts = flat_hex(h * SS / 2, h * SS / 2, h * SS / 2 - SS)
    d.polygon(pts, fill=TERRAIN_COLOURS["clear"])
    d.line(pts + pts[:2], fill=GOLD, width=int(0.16 * h * SS), joint="curve")
    return downsample(img, SS)


# --- information strip --------------------------------------------------------------------------
def _wing_short(name: str, side: str) -> str:
    n = str(name)
    for prefix in ("Royalist ", "Parliament ", "Parliamentarian ", SIDE_NAMES.get(side, "") + " "):
        if prefix.strip() and n.lower().startswith(prefix.lower()):
            n = n[len(prefix):]
            break
    return n.replace(" (cavalry)", " (horse)").strip() or str(name)


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


STRIP_TEXT_PX = 10.5     # the strip's body text at DISPLAY_W, whatever the image's width


def strip_scale(width: int) -> float:
    """How much the strip's 16 px text is enlarged so that it reads at STRIP_TEXT_PX px once the
    image is shown DISPLAY_W px wide."""
    return max(1.0, width * STRIP_TEXT_PX / (DISPLAY_W * 16))


def _strip(scenario: Scenario, state: TacwState, width: int, legend: list | None = None,
           stacks: tuple = (), k: float | None = None) -> FlowText:
    k = strip_scale(width) if k is None else k
    big, bold, reg = font(round(20 * k), True), font(round(16 * k), True), font(round(16 * k))
    flow = FlowText(width, round(28 * k), pad_x=round(14 * k), gap=round(18 * k))
    colours = wing_colours(scenario, state)

    def chip(side: str) -> list[tuple]:
        return [("box", round(16 * k), round(14 * k), SIDE_COLOURS.get(side, (128, 128, 128)),
                 (230, 230, 230)), ("gap", round(4 * k)),
                ("text", SIDE_NAMES.get(side, str(side).title() or "?"), bold, STRIP_FG)]

    def wing_label(wid: str) -> str:
        w = state.wings.get(wid)
        return _wing_short(w.name, w.side) if w else str(wid)

    flow.add([("text", scenario.title, big, STRIP_FG), ("gap", round(14 * k)),
              ("text", f"Turn {state.turn} of {scenario.turns}", bold, STRIP_DIM)])
    flow.add([("text", PHASE_NAMES.get(state.phase, str(state.phase).title()), bold, STRIP_FG)])
    if state.phasing and state.phase != "over":
        flow.add([("text", "Phasing ", reg, STRIP_DIM)] + chip(state.phasing))
    if deploying_sides(state):
        flow.add([("text", "Deploying (areas shaded) ", reg, STRIP_DIM)]
                 + [x for s in deploying_sides(state) for x in chip(s) + [("gap", round(6 * k))]])
    pend = state.pending if isinstance(state.pending, dict) else None
    act = state.activation
    if state.winner or state.phase == "over":
        if state.winner:
            flow.add([("text", "Victory: ", bold, GOLD)] + chip(state.winner)
                     + ([("text", f"  {state.result}", reg, STRIP_DIM)] if state.result else []))
        else:
            flow.add([("text", "Game over" + (f": {state.result}" if state.result else ""), bold, GOLD)])
    if act is not None and state.phase != "over":
        w = state.wings.get(act.wing)
        items = [("text", "Active ", reg, STRIP_DIM),
                 ("box", round(18 * k), round(12 * k), colours.get(act.wing, (255, 255, 255)), (20, 20, 20)), ("gap", round(3 * k)),
                 ("text", f"{SIDE_NAMES.get(act.side, act.side)} {wing_label(act.wing)}", bold, STRIP_FG)]
        if w is not None:
            items += [("text", f"  {ORDER_NAMES.get(w.order, w.order)}", bold,
                       ORDER_COLOURS.get(w.order, STRIP_FG))]
        items += [("text", f"  step: {STEP_NAMES.get(act.step, act.step)}, "
                           f"{_ordinal(int(act.number))} activation"
                   + (", bypass" if act.bypassing else ""), reg, STRIP_FG)]
        flow.add(items, new_line=True)
    if pend and state.phase != "over":
        who = pend.get("side") or pend.get("player") or state.phasing
        what = str(pend.get("kind", "decision")).replace("_", " ")
        opts = [wing_label(o) if isinstance(o, str) and o in state.wings else str(o)
                for o in _seq(pend.get("options"))]
        tail = f" ({', '.join(opts)})" if opts else ""
        flow.add([("text", "Waiting for ", reg, GOLD)] + chip(who)
                 + [("text", f": {what}{tail}", reg, STRIP_FG)], new_line=act is None)
    vp = state.vp or {}
    first = True
    for side in ("royalist", "parliament"):
        head = [("text", "VP ", reg, STRIP_DIM)] if first else []
        flow.add(head + chip(side) + [("text", f" {int(vp.get(side, 0))}", bold, STRIP_FG)],
                 new_line=first)
        first = False
    for side in ("royalist", "parliament"):
        wings = [w for w in state.wings.values() if w.side == side]
        order = {w.id: i for i, w in enumerate(scenario.wings)}
        wings.sort(key=lambda w: (order.get(w.id, 99), w.id))
        lead = True
        for w in wings:
            status = ""
            if act is not None and act.wing == w.id and state.phase != "over":
                status = " \u25c0 active"
            elif w.done:
                status = " (done)"
            items = ([("text", f"{SIDE_NAMES.get(side, side)} wings: ", reg, STRIP_DIM)] if lead else [])
            items += [("box", round(18 * k), round(12 * k), colours.get(w.id, (255, 255, 255)), (20, 20, 20)), ("gap", round(3 * k)),
                      ("text", _wing_short(w.name, side), reg, STRIP_FG if not w.done else STRIP_DIM),
                      ("text", f" {ORDER_NAMES.get(w.order, w.order).upper()}", bold,
                       ORDER_COLOURS.get(w.order, STRIP_FG)),
                      ("text", status, reg, STRIP_DIM)]
            flow.add(items, new_line=lead)
            lead = False
    small = font(round(14 * k))
    edges = [f"{SIDE_NAMES.get(side, side)} {edge}" for side, edge in sorted(scenario.edges.items())]
    wing_names = {w.id: w.name for w in scenario.wings}
    edges += [f"{wing_names.get(w, w)} {edge}" for w, edge in sorted(scenario.wing_edges.items())]
    if edges:
        flow.add([("text", "Friendly map edges: ", reg, STRIP_DIM), ("text", ", ".join(edges), reg, STRIP_FG)],
                 new_line=True)
    if stacks:
        flow.add([("text", "Stacks (the hex names the first unit):", bold, STRIP_DIM)], new_line=True)
        for h, ids, first in stacks:
            rest = [i for i in ids if i != first]
            flow.add([("text", f"{h}: ", bold, STRIP_FG), ("text", ", ".join([first] + rest), reg, STRIP_FG)])
    flow.add([("text", "Map key:", bold, STRIP_DIM)], new_line=True)
    for group in _legend_groups(legend or [], k, small, STRIP_FG):
        flow.add(group)
    flow.add([("text", "Counters: strength-morale (guns: class-morale); the white point faces the "
                       "facing vertex; the rear stripe is the wing's colour (above); the chip is "
                       "the hex, which names the unit in commands; red disc: casualties; dots: "
                       "pistols; yellow halo: the active wing. Leaders: discs with their command "
                       "value (gold: army commander).", small, STRIP_DIM)], new_line=True)
    return flow
