"""The battles' own rules: each battle's "Regole speciali" (and its optional rules) in a module
named after the battle, the rulebook's scenario chapter in hand.

    module              battle                       the book's rules it plays
    first_newbury.py    First Newbury, 1643          special rule 1 (the Halt, `halt`); 2 (Round
                                                     Hill) and 3 (farms) need no code (D100)
    marston_moor.py     Marston Moor, 1644           special rules 1 (command rivalry, `leader ac`)
                                                     and 2 (surprise); the reserve under Rupert;
                                                     the York contingent options 1-4 (`enter`)
    second_newbury.py   Second Newbury, 1644         special rules 1-5 (castle, last occupant,
                                                     Shaw House, bridges, boat bridge) and the
                                                     optional rules 1-2 (detached forces, battle
                                                     length, attack axes)
    naseby.py           Naseby, 1645                 the special rule (the Bard brigade: where it
                                                     is read); the red wagon; Okey's dragoons
    special_data.py     (every battle)               the scenario file's `[special]` block: its
                                                     schema, reading and validation, the setup
                                                     choice and the units waiting off the map

Edgehill has no special rules; its two optional rules (Royalist foot -1 to fire, horse with one
pistol) are the file's optional-rule effects, applied by `setup.py`. Each module's docstring
cites the rules and the decisions (DECISIONS.md) it implements.
"""
