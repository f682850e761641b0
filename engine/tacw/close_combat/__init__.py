"""Close combat (TACW §10).

close_combat/melee.py    designation, reaction attacks, the Close Combat table, results (§10.1-§10.3)
close_combat/retreat.py  retreats, advances after combat, pursuit (§10.4, §11.4.3, §12.4 paths)
"""
