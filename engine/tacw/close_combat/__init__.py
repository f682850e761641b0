"""Close combat (TACW §10).

close_combat/melee.py       who may attack, designation, reaction attacks, the step (§10.1-§10.2 C)
close_combat/resolution.py  the modifiers, the Close Combat table, results (§10.2 D-E, §10.3-§10.6)
close_combat/aftermath.py   pursuit, advance after combat, leader loss (§10.4.6, §10.7, §10.8)
close_combat/retreat.py     retreats, advances after combat, pursuit (§10.4, §11.4.3, §12.4 paths)
"""
