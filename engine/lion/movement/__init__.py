"""Movement in Lion of the North [4]-[6], [12 C]: units and groups (move.py: the verbs `move`,
`charge` and `about` and the order [4], [5]; plan.py: the allowance, the rotation [5 A], the
motion, its path, first touch and conforming [5], [8 A]; terrain.py: the ground [5 B]; contact.py:
contact, who may not close, the about-face and evasion [5 D], [8 E], [9 A], [12 E-F]; groups.py:
groups and columns [4 B]; common.py: the small readers), the guns (artillery.py [6]), dragoons
mounting and dismounting (dragoons.py [12 C]) and the generals (generals.py [4 A], [5], [9 C]).

Each module registers its verbs with engine.lion.rules.register when imported (rules.py's
`load_action_modules` imports every module of this package); move.py is imported here first, so
its verbs come first in the help, before the guns'. Decisions: engine/lion/DECISIONS.md
(HERALD D60-D79).
"""
from engine.lion.movement import move  # noqa: F401  (registers move, charge, about first)
