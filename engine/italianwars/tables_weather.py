"""The Italian Wars rules (the Italian text, `rules/italian-wars.it.txt`): season, weather, the
day and sight as data (digest §4.14, §4.16): "Tabella 3" (the season, L252-256), "Tabella 4" (the
weather, L257-261), "Ora del giorno" and "Assalto all'alba" (L262-265), "Tempo cattivo" (waiting
for better weather, L266-267), "Tempo atmosferico" (L230-233), "Notte e giorno" (L234-235) and
"Visibilità" (L212-221).

Part of engine/italianwars/tables.py (which re-exports every name here); its principles apply:
each value cites the text's lines, Herald's readings are marked "HERALD D<n>"
(engine/italianwars/DECISIONS.md). Distances are UDM (HERALD D1), dice d6 (HERALD D5).

Pure data and functions: standard library and engine.core only; no I/O, discord, sqlite, Pillow.
"""
from __future__ import annotations

from engine.italianwars.tables_army import _check_d6


# == season, weather and the day ("Tabella 3", "Tabella 4", "Ora del giorno", "Notte e giorno") ==

SEASONS = ("winter", "spring", "summer", "autumn")
SEASON_ITALIAN = {"winter": "Inverno", "spring": "Primavera", "summer": "Estate",
                  "autumn": "Autunno"}
# Tabella 3 (L252-256): "1 Inverno; 2,3 Primavera; 4,5 Estate; 6 Autunno"
SEASON_TABLE = {1: "winter", 2: "spring", 3: "spring", 4: "summer", 5: "summer", 6: "autumn"}
SEASON_FACES = {s: tuple(r for r, v in SEASON_TABLE.items() if v == s) for s in SEASONS}

WEATHERS = ("good", "cloudy", "bad")
WEATHER_ITALIAN = {"good": "Tempo buono", "cloudy": "Nuvoloso", "bad": "Tempo cattivo"}
# Tabella 4 (L258-261), 1d6 + the season die (HERALD D17): "2,12 Tempo cattivo; 3-4, 10-11
# Nuvoloso; 5-9 Tempo buono"
WEATHER_TABLE = {2: "bad", 3: "cloudy", 4: "cloudy", 5: "good", 6: "good", 7: "good", 8: "good",
                 9: "good", 10: "cloudy", 11: "cloudy", 12: "bad"}


def season(roll: int) -> str:
    """The season for a d6 [Tabella 3] L252-256."""
    _check_d6(roll)
    return SEASON_TABLE[roll]


def season_die(season_key: str, roll: int) -> int:
    """The season die to add to the weather roll when the battle fixes the season (HERALD D17): a
    d6 read among the season's own faces: winter 1, autumn 6; spring 2 on 1-3, 3 on 4-6; summer 4
    on 1-3, 5 on 4-6."""
    _check_d6(roll)
    faces = SEASON_FACES[season_key]
    return faces[0] if len(faces) == 1 or roll <= 3 else faces[1]


def weather(season_roll: int, weather_roll: int) -> str:
    """The weather [Tabella 4] L257-261: 1d6 plus the season die (the die, 1-6, not the season;
    HERALD D17), 2-12."""
    _check_d6(season_roll)
    _check_d6(weather_roll)
    return WEATHER_TABLE[season_roll + weather_roll]


# "Ora del giorno" L262-263: 2d6 is the day clock's turn at the start: "Il turno 2 è l'alba, il 7 è
# circa mezzogiorno mentre 12 è pomeriggio inoltrato". "Notte e giorno" L234-235: "il tramonto
# inizia al turno 16 e sarà buio al turno 18. L'alba si alza al turno 2 e continua fino al turno 3".
CLOCK_DICE = 2
DAWN = (2, 3)
MIDDAY = 7
LATE_AFTERNOON = 12
DUSK = 16
DARK = 18
DAY_HOURS = 24
DAWN_ASSAULT_CLOCK = 2              # "Assalto all'alba" L264-265: a time-of-day roll of 2
# "Tempo cattivo" L266-267: waiting for better weather, 1d6 moves before rolling it again; "Se il
# numero di mosse oltrepassa 16, sottrarre 12 e la battaglia è considerata iniziare il mattino
# successivo" (the day clock, HERALD D19).
POSTPONE_LIMIT = 16
POSTPONE_SUBTRACT = 12


def start_clock(die_a: int, die_b: int) -> int:
    """The day clock's first turn [Ora del giorno] L262-263: 2d6."""
    _check_d6(die_a)
    _check_d6(die_b)
    return die_a + die_b


def day_phase(clock: int) -> str:
    """dawn / day / dusk / night for a turn of the day clock [Notte e giorno] L234-235: dawn on
    2-3, day 4-15, dusk 16-17, dark from 18; the clock runs on into the night and the next day
    (25 is 1 again: night, HERALD D19)."""
    h = (clock - 1) % DAY_HOURS + 1
    if h in DAWN:
        return "dawn"
    if DAWN[1] < h < DUSK:
        return "day"
    if DUSK <= h < DARK:
        return "dusk"
    return "night"


def postponed_clock(clock: int, moves: int) -> tuple[int, bool]:
    """The clock after waiting `moves` moves for the weather [Tempo cattivo] L267 (HERALD D19):
    past 16, subtract 12 and the battle begins the next morning (True)."""
    c = clock + moves
    if c > POSTPONE_LIMIT:
        return c - POSTPONE_SUBTRACT, True
    return c, False


# "Tempo atmosferico" L230-233.
WEATHER_EFFECTS = {
    "good": {"text": "Tempo buono: nessun effetto sulla battaglia. Di notte, luna piena.",
             "move_factor": 1.0, "firearms": True, "line": "L231"},
    "cloudy": {"text": "Nuvoloso: la visibilità è ridotta a 15 udm ed a metà all'alba, al tramonto "
               "o di notte.", "move_factor": 1.0, "firearms": True, "line": "L232"},
    "bad": {"text": "Cattivo tempo: Movimenti ridotti a metà, visibilità ridotta ad 8 udm di giorno "
            "ed ad 1 udm all'alba, tramonto o notte. Nessun arma da fuoco (incluse artiglierie può "
            "sparare), le altre armi da tiro hanno effetti ridotti.", "move_factor": 0.5,
            "firearms": False, "line": "L233"},
}


def firearms_fire(weather_key: str) -> bool:
    """No firearm, artillery included, fires in bad weather [Tempo atmosferico] L233."""
    return WEATHER_EFFECTS[weather_key]["firearms"]


def move_factor(weather_key: str) -> float:
    """Bad weather halves movement [Tempo atmosferico] L233."""
    return WEATHER_EFFECTS[weather_key]["move_factor"]


# == visibility ("Visibilità" L212-221) ========================================================

# L213-214 and L231-233, UDM; None = the whole field (by day "si estende a tutto il campo").
# Night: "2 udm nelle notti senza luna ed a 3 udm nelle notti di luna piena, all'alba ed al
# tramonto"; good weather "Di notte, luna piena"; cloudy "ed a metà all'alba, al tramonto o di
# notte" = half of the clear 3 UDM (HERALD D20).
VISIBILITY = {
    ("good", "day"): None, ("good", "dawn"): 3.0, ("good", "dusk"): 3.0, ("good", "night"): 3.0,
    ("cloudy", "day"): 15.0, ("cloudy", "dawn"): 1.5, ("cloudy", "dusk"): 1.5,
    ("cloudy", "night"): 1.5,
    ("bad", "day"): 8.0, ("bad", "dawn"): 1.0, ("bad", "dusk"): 1.0, ("bad", "night"): 1.0,
}
MOONLESS_NIGHT = 2.0                # L214 "2 udm nelle notti senza luna" (a battle's special rule)
FULL_MOON_NIGHT = 3.0
INTO_TERRAIN_SIGHT = 0.5            # L217-218 woods, built-up areas, vineyards: ½ udm
EDGE_SEEN_WITHIN = 1.0              # L219 lining the edge: seen by enemies within 1 udm (HERALD D21)
HIDDEN_SEEN_WITHIN = 1.0            # L221 hidden skirmishers: seen within 1 udm, or moving/shooting


def visibility(weather_key: str, phase: str, moonless: bool = False) -> float | None:
    """How far troops see [Visibilità] L213-214, [Tempo atmosferico] L231-233 (HERALD D20): None
    for the whole field (a clear day), else UDM. `moonless` (a battle's special rule) makes a
    good-weather night 2 UDM."""
    v = VISIBILITY[(weather_key, phase)]
    if moonless and phase == "night" and weather_key == "good":
        return MOONLESS_NIGHT
    return v
