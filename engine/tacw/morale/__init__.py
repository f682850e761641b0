"""Morale and recovery (TACW §11, §12).

checks.py    hits, formation hits, morale checks, elimination (§6.3, §9.6, §11)
morale/recovery.py  Rally and Reform (§12.1-§12.3) and the formation changes Reform buys
"""
