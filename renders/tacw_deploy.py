"""This Accursed Civil War board: the scenario's drawn-only map features (roads and place names,
`Scenario.roads` / `Scenario.labels`) and, in the deployment phase of a battle set up by areas,
the deployment areas of each side still deploying (engine/tacw/sequence/deployment.py), shaded in the
side's colour with their outlines and ids. Called by renders/tacw.py; decides no rule: the legal
hexes are the scenario's, the sides still deploying the state's."""
from __future__ import annotations

from PIL import Image, ImageDraw

from engine.tacw.scenario.schema import Scenario
from engine.tacw.state import TacwState

from .tacw_art import ROAD, SIDE_COLOURS, SIDE_DARK

SHADE_ALPHA = 64          # 0..255: the area tint over the terrain
TRACK = (150, 120, 70)    # a road's edge line under its fill


def deploying_sides(state: TacwState) -> list[str]:
    """The sides whose areas are shaded: those still deploying ([] outside the phase)."""
    if state.phase != "deployment":
        return []
    done = (state.deployment or {}).get("done", []) if isinstance(state.deployment, dict) else []
    return [s for s in ("royalist", "parliament") if s not in done]


def draw_map_features(img: Image.Image, g, scenario: Scenario) -> None:
    """Roads (a track from hex centre to hex centre); the place names are laid out by the board
    with its other labels, clear of the counters (place_labels)."""
    d = ImageDraw.Draw(img)
    grid = scenario.grid
    for road in scenario.roads:
        pts = [g.hex_center(h) for h in road.hexes if h in grid]
        if len(pts) >= 2:
            d.line(pts, fill=TRACK, width=max(3, int(round(0.2 * g.r))), joint="curve")
            d.line(pts, fill=ROAD, width=max(2, int(round(0.12 * g.r))), joint="curve")


def place_labels(g, scenario: Scenario) -> list[tuple[str, str, str]]:
    """(text, hex, style) of each place name: the board lays them out clear of the counters."""
    return [(lb.text, lb.hex, "place") for lb in scenario.labels if lb.hex in scenario.grid]


def area_labels(g, scenario: Scenario, state: TacwState) -> list[tuple[str, str, str]]:
    """(area id, middle hex, side) of each area shaded by `draw_deployment_areas`."""
    sides = deploying_sides(state)
    out = []
    for a in scenario.deployment_areas.values():
        if a.side not in sides or not a.hexes:
            continue
        xs = [g.hex_center(h) for h in sorted(a.hexes)]      # a fixed order: the same sums every run
        mx, my = sum(p[0] for p in xs) / len(xs), sum(p[1] for p in xs) / len(xs)
        mid = min(sorted(a.hexes), key=lambda h: (g.hex_center(h)[0] - mx) ** 2 + (g.hex_center(h)[1] - my) ** 2)
        out.append((a.id, mid, a.side))
    return out


def draw_deployment_areas(img: Image.Image, g, scenario: Scenario, state: TacwState) -> None:
    """The areas of the sides still deploying: a tint over their hexes, the area's outline (the
    sides between an area hex and a hex outside it); the ids: area_labels."""
    sides = deploying_sides(state)
    if not sides:
        return
    grid = scenario.grid
    overlay = Image.new("RGBA", img.size, (0, 0, 0, 0))
    od = ImageDraw.Draw(overlay)
    areas = [a for a in scenario.deployment_areas.values() if a.side in sides]
    shaded: dict[str, set[str]] = {s: set() for s in sides}
    for a in areas:
        shaded[a.side] |= set(a.hexes)
    for side, hexes in shaded.items():
        r, gg, b = SIDE_COLOURS.get(side, (128, 128, 128))
        for h in sorted(hexes):
            od.polygon(g.hex_corners(h, 0.97), fill=(r, gg, b, SHADE_ALPHA))
    img.paste(overlay, (0, 0), overlay)
    d = ImageDraw.Draw(img)
    w = max(2, int(round(2.5 * g.zoom)))
    for a in areas:
        dark = SIDE_DARK.get(a.side, (40, 40, 40))
        for h in sorted(a.hexes):
            for direction in range(6):
                n = grid.neighbor(h, direction)
                if n is None or n not in a.hexes:
                    d.line(g.side_segment(h, direction, 0.97), fill=dark, width=w)
    # the area ids are laid out by the board with its other labels (area_labels)
