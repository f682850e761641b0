"""Sequence of play (TACW §3, §4, §5.7): initiative, activation and its precedence, bypass,
order change, continuation, the end of the turn; what every unit action shares (§3.2 C);
the inactive side's standing policies and the owner's choices inside a resolution; the
deployment phase of the battles set up by areas.

activation.py  §3, §4, §5.7    sequence/endturn.py  §3.3-§3.4, §5.3.3, §12.4 rout movement
sequence/actions.py     §3.2 C, §5.6    sequence/policies.py  standing answers to interrupts
sequence/choices.py     §10.4, §12.4 owner's choices    sequence/deployment.py  free setups
"""
