"""Shooting in Lion of the North [7]: the `shoot` verb on a side's shoot card, the contact fire
after the enemy's move card [7 D], guns exploding [7 E], canister [7 F], the deep target [7 G],
mortars [12 D], Tercios firing from every face [12 F] and generals under fire [9 C].

- sight.py   who may shoot at whom: range, arc (HERALD D5), line of sight [7 A], cover [7 C].
- shoot.py   the verb, the roll and its effects; `contact_fire_step` for the card sequence.

Decisions: engine/lion/DECISIONS.md (HERALD D80-D99).
"""
