"""The text's sequence of play: before the battle (prebattle.py), the command phase (command.py),
the actions and battle activation (activation.py), charge declarations (charges.py), battle
cohesion (cohesion.py), the end of the turn and army break (endturn.py), the walk (walk.py) and
the private questions (queries.py)."""
