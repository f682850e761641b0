"""Combat (IW Azioni 2e-2i; phase 5): Herald's completion (SUPPLEMENT.md IW-H 4-10).

- `shooting.py`  2e Tiro and the response shot (IW Fattori di tiro, IW Schermi di Schermagliatori,
                 IW Copertura, IW Tempo atmosferico, IW Visibilità; IW-H 5)
- `charges.py`   2f the responses to a charge (compulsory and optional) and 2g the closing
                 (IW Azioni 2f, 2g, IW Schermagliatori, IW Accampamento; IW-H 4)
- `melee.py`     2h the melees, once a turn, with the winner's follow-up and pursuit
                 (IW Azioni 2h, 2i, IW Fattori di mischia, IW Disordine; IW-H 6, 8, 9.2)
- `morale.py`    morale tests, captain risk and the passing of command (IW-H 7, 8), and phase 5
                 (IW Riorganizzazione dal disordine; IW-H 9.4, 10)
- `common.py`    the dice recorder, casualties and bases, rout and the end of a melee

Every roll goes through completion.py's `resolve_shot` / `resolve_melee` (the same functions the
odds enumerate), with a company read by profiles.profile_of; each event says its column, its
modifiers, the die, the points and what a test needed.
"""
