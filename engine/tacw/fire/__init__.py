"""Fire combat (TACW §9).

small_arms.py      infantry fire (§9.3), Salvo (§9.4), pistols (§9.2, §9.8), leader loss (§9.11)
fire/reaction_fire.py   Reaction Fire (§9.7)
fire/artillery.py       artillery fire, range, line of sight, ricochet (§9.9, §9.10)
"""
