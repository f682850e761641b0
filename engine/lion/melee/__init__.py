"""Melee in Lion of the North [8], [9 A-C], [12 C], [12 E-G]: the `fight` verb (fight.py: who may
attack whom, the contact limits, the roll-off, flank attacks, ties) and what follows (results.py:
hits, guns spiked or captured, generals at risk, the 5 cm retreat and the follow-up).

Decisions: engine/lion/DECISIONS.md (HERALD D80-D99).
"""
