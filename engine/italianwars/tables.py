"""The Italian Wars rules (the Italian text, `rules/italian-wars.it.txt`): every table and list of
the text as data.

DESIGN principle 4: the tables live here as plain data with small pure functions. Each names the
section of the rules index it belongs to (engine/italianwars/rules_index.toml: the text's own
headings, cited "IW <heading>", e.g. "IW Tabella 6", "IW Ordini") and the lines of the text it was
read from ("L333-344"), with the Italian words beside it. The Italian text is the authority; where
it is silent or reads two ways, the value is Herald's, marked "HERALD D<n>"
(engine/italianwars/DECISIONS.md). What the text leaves out altogether (movement rates, the
melee and shooting tables, morale, rout...) is not here: it is Herald's completion,
engine/italianwars/completion.py and SUPPLEMENT.md (HERALD D6).

Distances are UDM (unità di misura: one base frontage, L25; HERALD D1). Dice are d6 (HERALD D5).

The tables are kept by the text's chapters, each in its module, and every name is re-exported
here (`tables.<name>`, as every importer reads them): tables_army.py (the scale, bases,
companies, morale, troop types, armour, weapons, factors, formations, captains: digest §2),
tables_weather.py (season, weather, the day, sight: Tabelle 3-4, §4.14, §4.16),
tables_terrain.py (terrain and cover: §4.13, §4.15) and tables_command.py (cohesion, army break,
camp, treasury, orders, interpretation, activation, the sequence: Tabelle 5-6, §3, §4). This
module keeps the citation helper and where each table lives in the rules index (SECTIONS).

Pure data and functions: standard library and engine.core only; no I/O, discord, sqlite, Pillow.
"""
from __future__ import annotations

from engine.italianwars.tables_army import (  # noqa: F401
    ARMOURS, ARMOUR_KEYS, ARMOUR_RANK, ARMS, ARM_ITALIAN, ARTILLERY_WEAPONS, BASE_DEPTH, BASE_MEN,
    BASE_POINTS, BASE_WIDTH, COMMAND_POINTS, COMPANY_BASES, COMPOSITION_BASES, ENTRY_LEVELS,
    FIREARMS, FORMATIONS, MELEE_FACTORS, MELEE_WEAPONS, MISSILE_WEAPONS, MIXED_COMPOSITIONS,
    MIXED_FIGHTS_AS, MIXED_SHOOTS_AS, MORALE, MORALE_ALIASES, MORALE_CLASSES, PERSONALITIES,
    PERSONALITY_KEYS, PERSONALITY_TABLE, PHALANX_EXCLUDED, RALLIED_WEAPON, ROLES, ROLE_KEYS,
    SCREEN, SCREEN_SHOOTING_FACTOR, SCREEN_SHOOTS_AS, SCREEN_WEAPONS, SHOOTING_FACTORS,
    SIZE_BY_BASES, SIZE_ITALIAN, SIZE_RANK, SWISS_NATIONS, SWISS_PERSONALITY, TABLE_HEIGHT,
    TABLE_WIDTH, TURN_HOURS, Factor, Footprint, MoraleClass, Weapon, armour_in_use, bases_left,
    command_points, company_points, fights_as, footprint, melee_level, personality,
    personality_row, rolls_personality, shooting_level, shoots_as, size_of, weapon_for_melee)
from engine.italianwars.tables_command import (  # noqa: F401
    ACTIVATION_MINIMUM, ACTIVATION_MODIFIERS, ACTIVATION_SEQUENCE, AMBUSH_BY, AMBUSH_CATEGORIES,
    ATTACKER_COUNTS, BREAK_FRACTION, CAMP_CATEGORY, CAMP_POINTS, CAMP_SIZE, CHARGE_HALT,
    COMMAND_RADIUS, COMPULSORY_RESPONSES, DELAY_STANDOFF, DEPLOYMENT_DEPTH, DISORDER_CAUSES,
    ECU_DEFAULT, ECU_IMMUNE, ECU_STEP, EMERGENCY_FACE_EXAMPLE, INTERPRETATION_FAILS_AT,
    INTERPRETATION_MODIFIERS, MARCH_HALT, NATIONS, NOT_ACTIVATED_MAY, OCCUPY_CLEAR,
    OPTIONAL_RESPONSES, ORDERS, ORDER_KEYS, POINTS_LOST_WHEN, PREBATTLE, REORGANISE_BARRED,
    SKIRMISHER_CHARGE_TARGETS, SKIRMISHER_PUSH_BACK, SWORN_ENEMIES, SWORN_ENEMY_MODIFIER,
    TABLE6_AS_PRINTED, TURN, VOLUNTARY_ORDERS, WITHDRAW_SPEED, Order, activates, activation_total,
    army_broken, army_strength, attacker_by_captains, command_radius, ecu_effect, failed_order,
    interpretation_fails, interpretation_total, may_declare_charge, must_charge, sworn_enemies)
from engine.italianwars.tables_terrain import (  # noqa: F401
    AREA_KINDS, CATEGORIES, CATEGORY_KEYS, CONCEALING, CROSSING_KINDS, LINE_KINDS, SIGHT_BLOCKERS,
    SIGHT_LIMITERS, TERRAIN_KINDS, WATER_KINDS, Category, TerrainKind, gives_cover, terrain_kind)
from engine.italianwars.tables_weather import (  # noqa: F401
    CLOCK_DICE, DARK, DAWN, DAWN_ASSAULT_CLOCK, DAY_HOURS, DUSK, EDGE_SEEN_WITHIN, FULL_MOON_NIGHT,
    HIDDEN_SEEN_WITHIN, INTO_TERRAIN_SIGHT, LATE_AFTERNOON, MIDDAY, MOONLESS_NIGHT, POSTPONE_LIMIT,
    POSTPONE_SUBTRACT, SEASONS, SEASON_FACES, SEASON_ITALIAN, SEASON_TABLE, VISIBILITY, WEATHERS,
    WEATHER_EFFECTS, WEATHER_ITALIAN, WEATHER_TABLE, day_phase, firearms_fire, move_factor,
    postponed_clock, season, season_die, start_clock, visibility, weather)

CITE = "IW"


def cite(section: str, lines: str = "") -> str:
    """A citation of the text for an event: "IW Tabella 6" (with " (L333-344)" when lines are
    given). `section` is an id of rules_index.toml (the text's heading)."""
    return f"{CITE} {section}" + (f" ({lines})" if lines else "")


# == where each table lives in the rules index (rules_index.toml ids, cited "IW <id>") ==========

SECTIONS = {
    "TABLE_WIDTH": "Il tavolo", "BASE_DEPTH": "Basette", "BASE_POINTS": "Compagnie",
    "COMPANY_BASES": "Compagnie", "SIZE_BY_BASES": "Compagnie", "SCREEN": "Schermi di schermagliatori",
    "MORALE": "Morale", "COMMAND_POINTS": "Tabella 1", "MORALE_ALIASES": "Falange",
    "ROLES": "Tipi di truppe", "ARMOURS": "Tipo di armatura", "MELEE_WEAPONS": "Armi da mischia",
    "MISSILE_WEAPONS": "Armi da tiro", "ARTILLERY_WEAPONS": "Artiglieria",
    "MELEE_FACTORS": "Fattori di mischia", "SHOOTING_FACTORS": "Fattori di tiro",
    "FORMATIONS": "Formazioni speciali", "PHALANX_EXCLUDED": "Falange",
    "MIXED_COMPOSITIONS": "Colunella", "SCREEN_SHOOTING_FACTOR": "Schermi di schermagliatori",
    "PERSONALITIES": "Personalità del capitano", "PERSONALITY_TABLE": "Tabella 2",
    "SEASON_TABLE": "Tabella 3", "WEATHER_TABLE": "Tabella 4", "CLOCK_DICE": "Ora del giorno",
    "DAWN_ASSAULT_CLOCK": "Assalto all'alba", "POSTPONE_LIMIT": "Tempo cattivo",
    "DAWN": "Notte e giorno", "DUSK": "Notte e giorno", "DARK": "Notte e giorno",
    "WEATHER_EFFECTS": "Tempo atmosferico", "VISIBILITY": "Visibilità",
    "CATEGORIES": "Terreno", "TERRAIN_KINDS": "Terreno", "COMMAND_RADIUS": "Coesione delle battaglie",
    "CAMP_SIZE": "Accampamento", "CAMP_POINTS": "Accampamento",
    "BREAK_FRACTION": "Punto di rottura dell'esercito", "ECU_DEFAULT": "Tesoro",
    "ECU_IMMUNE": "Interpretazione degli ordini", "SWORN_ENEMIES": "Nemici giurati",
    "ORDERS": "Definizione degli ordini di gioco", "INTERPRETATION_MODIFIERS": "Tabella 5",
    "INTERPRETATION_FAILS_AT": "Test per l'interpretazione degli ordini",
    "ACTIVATION_MINIMUM": "Tabella 6", "ACTIVATION_MODIFIERS": "Tabella 6",
    "NOT_ACTIVATED_MAY": "Attivazione delle battaglie", "PREBATTLE": "Prima della battaglia",
    "TURN": "Sequenza di mossa", "ACTIVATION_SEQUENCE": "Azioni",
    "ATTACKER_COUNTS": "Prima della battaglia 4", "DEPLOYMENT_DEPTH": "Prima della battaglia 5",
    "DISORDER_CAUSES": "Disordine", "REORGANISE_BARRED": "Riorganizzazione dal disordine",
    "SKIRMISHER_PUSH_BACK": "Schermagliatori", "COMPULSORY_RESPONSES": "Azioni 2f",
    "CHARGE_HALT": "Azioni 2d",
}
