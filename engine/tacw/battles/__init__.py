"""The battles' own rules (the book's "Regole speciali" of each battle).

special_data.py    the [special] block of a scenario file, its validation, small helpers
battles/specials.py        special rules the engine plays by [[special_rules]] kind (First Newbury's Halt...)
orders.py          the special rules players order (halt, enter, leader...)
second_newbury.py  Second Newbury's special and optional rules
"""
