"""Movement in Lion of the North [4]-[6], [12 C]: units and groups (move.py, with the terrain
[5 B], interpenetration [5 C], about-faces [5 D], evasion [5 D], contact [5], [8 A] and
disengagement [8 E]), the guns (artillery.py [6]), dragoons mounting and dismounting (dragoons.py
[12 C]) and the generals (generals.py [4 A], [5], [9 C]).

Each module registers its verbs with engine.lion.rules.register when imported (rules.py's
`load_action_modules` imports every module of this package). Decisions: engine/lion/DECISIONS.md
(HERALD D60-D79).
"""
