"""Movement (TACW §6 facing and formations, §7 movement, §8 stacking, §5.1.2/§5.2.2 leaders).

move.py       the move action (§7), with the inactive side's interrupts between steps
movement/paths.py      paths, steps, movement allowance, facing changes (§6.2, §6.3, §7.1-§7.3)
movement/reactions.py  Reaction Movement (§7.4) and Cavalry Interception (§7.5)
movement/stacking.py   stacking (§8)
movement/leaders.py    leader movement (§5.1.2, §5.2.2) and leaders overrun (§5.3.1)
"""
