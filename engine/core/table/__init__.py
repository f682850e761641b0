"""The open-table geometry shared by the open-table rulesets (Lion of the North, the Italian Wars):
poses and base rectangles, distances, arcs, contact and line of sight (geometry.py), moves and
the area they sweep, first touch and groups (moves.py), terrain queries (terrain.py).
Shapely 2 does the polygon work; units are whatever the caller measures in; no ruleset here."""
from .geometry import (CONTACT_TOL, FACES, Footprint, Pose, angle_between, arc_polygon, base_polygon,
                       bearing_to, centre, clear_line, conform, contact_edge, corners, distance, edges,
                       face_bearing, forward, front_distance, in_arc, norm_angle, rightward, rnd,
                       rotate_point, touching)
from .moves import (STEP_KINDS, Step, Walk, first_touch, group_first_touch, group_front, group_walk,
                    parse_steps, walk)
from .terrain import Terrain

__all__ = [
    "CONTACT_TOL", "FACES", "Footprint", "Pose", "angle_between", "arc_polygon", "base_polygon",
    "bearing_to", "centre", "clear_line", "conform", "contact_edge", "corners", "distance", "edges",
    "face_bearing", "forward", "front_distance", "in_arc", "norm_angle", "rightward", "rnd",
    "rotate_point", "touching",
    "STEP_KINDS", "Step", "Walk", "first_touch", "group_first_touch", "group_front", "group_walk",
    "parse_steps", "walk",
    "Terrain",
]
