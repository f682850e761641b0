"""Movement (IW Azioni 2a, 2c, 2d; phases 3 rout and 4 pursuit): Herald's completion (IW-H 2-4,
9, 11-14). `api.py` is what the combat package calls."""
