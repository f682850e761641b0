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

Pure data and functions: standard library and engine.core only; no I/O, discord, sqlite, Pillow.
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.core.table.geometry import Footprint

CITE = "IW"


def cite(section: str, lines: str = "") -> str:
    """A citation of the text for an event: "IW Tabella 6" (with " (L333-344)" when lines are
    given). `section` is an id of rules_index.toml (the text's heading)."""
    return f"{CITE} {section}" + (f" ({lines})" if lines else "")


def _check_d6(roll: int) -> None:
    if not isinstance(roll, int) or not 1 <= roll <= 6:
        raise ValueError(f"a d6 roll is 1-6, not {roll!r}")


# == scale, table, bases and companies ("Basette", "Compagnie", "Il tavolo", "Scale") ============

# L18 "circa 1.8 m per 1.2 m"; L25 "1UDM = 4 cm" with 4 cm bases: 45 x 30 UDM (HERALD D1).
TABLE_WIDTH = 45.0
TABLE_HEIGHT = 30.0
TURN_HOURS = 1                      # L27 "Un turno rappresenta circa 1 ora di tempo reale"
BASE_MEN = (100, 500)               # L23 "Una basetta rappresenta tra i 100 ed i 500 uomini"

# L10 "tutta fanteria o cavalleria o artiglieria"
ARMS = ("infantry", "cavalry", "artillery")
ARM_ITALIAN = {"infantry": "Fanteria", "cavalry": "Cavalleria", "artillery": "Artiglieria"}

# A base is 1 UDM wide (L25: the UDM is the base's frontage); its depth "non è importante" (L8):
# 0.5 UDM for foot and guns, 0.75 for horse (HERALD D1).
BASE_WIDTH = 1.0
BASE_DEPTH = {"infantry": 0.5, "artillery": 0.5, "cavalry": 0.75}

# L13 "Basette di Fanterie ed artiglieria valgono 2 punti ciascuna, mentre le basette di cavalleria
# valgono 3 punti ciascuna"
BASE_POINTS = {"infantry": 2, "artillery": 2, "cavalry": 3}

# L12 "da una basetta (piccole), da due basette (medie) o da quattro basette (grandi)"
COMPANY_BASES = (1, 2, 4)
# L14-15: a large company that loses one base "viene considerata come media": 3 bases are medium
# (HERALD D13).
SIZE_BY_BASES = {1: "small", 2: "medium", 3: "medium", 4: "large"}
SIZE_ITALIAN = {"small": "piccola", "medium": "media", "large": "grande"}
SIZE_RANK = {"small": 1, "medium": 2, "large": 3}


def size_of(bases: int) -> str:
    """small / medium / large for a company of `bases` bases [Compagnie] L12-15 (3 = medium,
    HERALD D13)."""
    try:
        return SIZE_BY_BASES[bases]
    except KeyError:
        raise ValueError(f"a company has 1 to 4 bases, not {bases!r}") from None


def company_points(arm: str, bases: int) -> int:
    """The casualty points of a company [Compagnie] L13: 2 a base of foot or guns, 3 of horse."""
    return BASE_POINTS[arm] * bases


def bases_left(arm: str, bases: int, points_lost: int) -> int:
    """Bases still on the table after `points_lost` casualty points [Compagnie] L13-16: a base is
    removed when all its points are lost, so a part-lost base stays and the company keeps its
    size ("continuano a considerare le dimensioni originali finchè la basetta non viene
    effettivamente rimossa"; HERALD D14): 8-point infantry losing 6 is small (L14), losing 2 is
    medium (L15); cavalry losing 1 or 2 keeps its bases (L16)."""
    if points_lost < 0:
        raise ValueError(f"points lost cannot be negative ({points_lost})")
    return max(0, bases - points_lost // BASE_POINTS[arm])


def footprint(arm: str, bases: int) -> Footprint:
    """The company's rectangle (HERALD D1): 1 UDM wide, its bases one behind the other ("sempre
    schierate una dietro l'altra", L12)."""
    return Footprint(BASE_WIDTH, BASE_DEPTH[arm] * bases)


# A skirmisher screen (Schermi di Schermagliatori, L84) is one base in contact with the parent's
# front: a 1 x 0.25 UDM strip in front of its front edge (HERALD D16).
SCREEN = Footprint(BASE_WIDTH, 0.25)


# == morale classes ("Morale" L30-36) and command points ("Tabella 1" L125-130) ==================

@dataclass(frozen=True)
class MoraleClass:
    key: str
    italian: str
    english: str
    command_points: int        # Tabella 1 (L126-130)
    activation: int            # Tabella 6: the lowest d6 that activates (L334-338)
    description: str           # the text's description, in English
    examples: str              # the text's examples (Italian)
    line: str


MORALE = {m.key: m for m in (
    MoraleClass("gentlemen", "Gentiluomini", "Gentlemen", 4, 3,
                "Elite troops of the aristocracy", "Compagnie Francesi d'ordinanza ed altri "
                "uomini d'arme", "L32; L126; L335"),
    MoraleClass("professionals", "Professionisti", "Professionals", 3, 2,
                "Troops who have served many years, with a strong esprit de corps",
                "Alcuni Stradioti, la maggior parte dei picchieri svizzeri, gli archibugieri "
                "spagnoli", "L33; L127; L334"),
    MoraleClass("mercenaries", "Mercenari", "Mercenaries", 2, 4,
                "Experienced troops hired for specific campaigns",
                "Condottieri Italiani, Lanzichenecchi, Fanterie Spagnole", "L34; L128; L336"),
    MoraleClass("militia", "Milizie", "Militia", 1, 5,
                "Soldiers raised for specific campaigns, without experience (some officers "
                "veterans)", "Archibugieri, balestrieri montati, fanti italiani o guasconi",
                "L35; L129; L337"),
    MoraleClass("rabble", "Feccia", "Rabble", 0, 6,
                "Troops raised in haste, without enthusiasm or experience", "Fanteria francese",
                "L36; L130; L338"),
)}
MORALE_CLASSES = tuple(MORALE)
# Tabella 1 (L125-130) "Punti di Comando"
COMMAND_POINTS = {k: m.command_points for k, m in MORALE.items()}
# "Falange" L68 names "Reclute", not in the list: Militia (HERALD D12).
MORALE_ALIASES = {"reclute": "militia", "recruits": "militia"}


def command_points(morale: str) -> int:
    """A company's command points by its morale class [Tabella 1] L126-130: 4/3/2/1/0."""
    return COMMAND_POINTS[MORALE_ALIASES.get(morale, morale)]


# == troop roles ("Tipi di truppe" L37-40) =====================================================

ROLES = {
    "shooting": ("Truppe da tiro", "Troops armed with missile weapons, artillery included", "L38"),
    "shock": ("Truppe da scontro", "Troops armed mainly for hand-to-hand combat; some pike columns "
              "include a screen of light troops", "L39"),
    "skirmishers": ("Schermagliatori", "Armed with missile weapons; they avoid physical contact "
                    "with enemy units", "L40"),
}
ROLE_KEYS = tuple(ROLES)


# == armour ("Tipo di armatura" L41-48) ========================================================

# L42-47: the same three grades for horse and foot; guns have none ("").
ARMOURS = {
    "armoured": {"cavalry": ("Cavalleria Corazzata", "full armour, arms and legs too", "L42"),
                 "infantry": ("Fanteria corazzata", "full armour, often only in the front ranks "
                              "of pike columns", "L45")},
    "protected": {"cavalry": ("Cavalleria Protetta", "partial armour, usually no limb "
                              "protection", "L43"),
                  "infantry": ("Fanteria Protetta", "partial armour", "L46")},
    "unprotected": {"cavalry": ("Cavalleria non protetta", "no armour", "L44"),
                    "infantry": ("Fanteria non protetta", "no armour", "L47")},
}
ARMOUR_KEYS = tuple(ARMOURS)
ARMOUR_RANK = {"": 0, "unprotected": 1, "protected": 2, "armoured": 3}


def armour_in_use(best: str, lightest: str = "", *, good_order: bool = True,
                  from_front: bool = True) -> str:
    """The armour a company of mixed armour counts [Tipo di armatura] L48: "considerare la
    migliore solo se l'unità è in buon ordine ed è attaccata (o colpita) di fronte, altrimenti
    considerare la corazzatura più leggera". `lightest` "" = all its bases wear `best`."""
    if not lightest or ARMOUR_RANK[lightest] >= ARMOUR_RANK[best]:
        return best
    return best if good_order and from_front else lightest


# == weapons ("Tipi di armi" L49-65) ===========================================================

@dataclass(frozen=True)
class Weapon:
    key: str
    italian: str
    english: str
    line: str
    note: str = ""
    firearm: bool = False       # "Nessun arma da fuoco (incluse artiglierie) può sparare" L233
    artillery: bool = False     # fired by artillery companies (L61-65)


MELEE_WEAPONS = {w.key: w for w in (
    Weapon("lance", "Lancia", "Lance", "L51", "used by heavy cavalry; lancers who have not "
           "charged fight with side arms (L54)"),
    Weapon("pike", "Picca", "Pike", "L52", "a very long spear used by infantry"),
    Weapon("polearm", "Altre armi in asta", "Other polearms", "L53",
           "halberds, bills, two-handed swords, dismounted cavalry's swords, the Spanish "
           "sword-and-buckler (Spada-e-scudo)"),
    Weapon("side_arms", "Armi da fianco", "Side arms", "L54",
           "short swords, maces, knives: shooting troops, skirmishers, dismounted unarmoured "
           "cavalry, lancers who have not charged; the only weapons of troops rallied from rout"),
)}
MISSILE_WEAPONS = {w.key: w for w in (
    Weapon("longbow", "Arco lungo", "Longbow", "L56", "English and Welsh, but found all over "
           "Europe"),
    Weapon("shortbow", "Arco corto", "Short bow", "L57"),
    Weapon("crossbow", "Balestra", "Crossbow", "L58"),
    Weapon("arquebus", "Archibugio", "Arquebus", "L59", firearm=True),
    Weapon("javelin", "Giavellotto", "Javelin", "L60"),
    Weapon("light_gun", "Cannoni leggeri", "Light guns", "L62", firearm=True, artillery=True),
    Weapon("heavy_gun", "Cannoni pesanti", "Heavy guns", "L63", "often used in sieges",
           firearm=True, artillery=True),
    Weapon("organ_gun", "Cannoni ad organo", "Organ guns", "L64", "multi-barrel pieces on small "
           "carriages, all barrels fired together at short range", firearm=True, artillery=True),
    Weapon("war_cart", "Carri ed apparati da Guerra", "War carts", "L65", "small armoured carts "
           "with projecting blades and small guns, as the Spanish used at Ravenna (HERALD D18)",
           firearm=True, artillery=True),
)}
ARTILLERY_WEAPONS = tuple(k for k, w in MISSILE_WEAPONS.items() if w.artillery)
FIREARMS = tuple(k for k, w in MISSILE_WEAPONS.items() if w.firearm)
# L54 "queste sono le uniche armi che possono essere utilizzate da truppe che hanno recuperato
# dalla rotta"
RALLIED_WEAPON = "side_arms"


def weapon_for_melee(weapon: str, *, charged: bool = True, rallied: bool = False) -> str:
    """The melee weapon a company uses now [Armi da mischia] L54: side arms for troops rallied
    from rout and for lancers who have not charged; else its own."""
    if rallied:
        return RALLIED_WEAPON
    if weapon == "lance" and not charged:
        return "side_arms"
    return weapon


# == melee and shooting factors ("Fattori di mischia" L73-77, "Fattori di tiro" L78-82) ==========

@dataclass(frozen=True)
class Factor:
    key: str
    italian: str
    english: str
    level: int                 # the "Livello d'entrata" in the (missing) table (L73, L78)
    examples: str
    line: str


MELEE_FACTORS = {f.key: f for f in (
    Factor("terrifying", "Terrificanti", "Terrifying", 5, "Picchieri svizzeri e gendarmi francesi",
           "L74"),
    Factor("valiant", "Valorosi", "Valiant", 4, "picchieri tedeschi ed altri cavalieri pesanti",
           "L75"),
    Factor("unreliable", "Inaffidabili", "Unreliable", 2, "fanterie Italiane e Francesi, truppe "
           "a cavallo con armi da tiro", "L76"),
    Factor("incapable", "Incapaci", "Incapable", 1, "truppe da schermaglia e tutta la Feccia",
           "L77"),
)}
SHOOTING_FACTORS = {f.key: f for f in (
    Factor("devastating", "Devastanti", "Devastating", 5, "archibugieri spagnoli, artiglieri "
           "francesi", "L79"),
    Factor("accurate", "Accurati", "Accurate", 4, "Artiglierie spagnole, Truppe da tiro Italiane",
           "L80"),
    Factor("inexperienced", "Inesperti", "Inexperienced", 2, "Truppe da tiro francesi, truppe "
           "da tiro a cavallo, altre artiglierie", "L81"),
    Factor("poor", "Pessimi", "Poor", 1, "Arcieri francesi, feccia", "L82"),
)}
ENTRY_LEVELS = (5, 4, 2, 1)         # no level 3 in either list (digest §2.8)


def melee_level(factor: str) -> int:
    """The melee table's entry level of a factor [Fattori di mischia] L73-77: 5/4/2/1."""
    return MELEE_FACTORS[factor].level


def shooting_level(factor: str) -> int:
    """The shooting table's entry level [Fattori di tiro] L78-82: 5/4/2/1; 0 for no factor."""
    return SHOOTING_FACTORS[factor].level if factor else 0


# == special formations ("Formazioni speciali" L66-72), screens (L83-84), Doppelsöldner (L85-86) =

FORMATIONS = {
    "igel": ("Igel", "A defensive pike formation like a square: it does not move, each company "
             "faces another way", "L67"),
    "phalanx": ("Falange", "Shock companies in side-to-side contact forming one mass; never "
                "Recruits (Militia, HERALD D12) or Rabble; counts as larger than the enemy in "
                "melee; broken into disordered companies when disordered; broken up at will in "
                "the command phase", "L68-69"),
    "colunella": ("Colunella", "Spanish (others may adopt it): medium, one base of shooting "
                  "troops and one of shock troops; a mixed unit", "L70-71"),
    "legion": ("Legione", "Machiavelli's Florentine legion: medium shock troops, one base of "
               "swords, one of pikes, may have a skirmisher screen; unreliable", "L72"),
}
PHALANX_EXCLUDED = ("militia", "rabble")          # L68 "Reclute o Feccia" (HERALD D12)
# L71 "Tutte le unità 'Miste' tirano come se fossero 'Piccole' ma combattono in mischia come 'Medie'"
MIXED_COMPOSITIONS = ("colunella",)
MIXED_SHOOTS_AS = "small"
MIXED_FIGHTS_AS = "medium"
COMPOSITION_BASES = {"colunella": 2, "legion": 2}  # L70, L72 "di dimensioni medie"
# L84 the screen: "fattore di tiro 'Inesperti' e tira come se fosse una compagnia piccola. Non
# può essere fatta oggetto dal tiro nemico"; removed while its parent is in melee.
SCREEN_SHOOTING_FACTOR = "inexperienced"
SCREEN_SHOOTS_AS = "small"
SCREEN_WEAPONS = ("crossbow", "arquebus")         # L84 "armati con balestra od archibugio"


def shoots_as(size: str, composition: str = "") -> str:
    """The size a company shoots as [Colunella] L71: a mixed unit as small."""
    return MIXED_SHOOTS_AS if composition in MIXED_COMPOSITIONS else size


def fights_as(size: str, composition: str = "") -> str:
    """The size a company fights as [Colunella] L71: a mixed unit as medium."""
    return MIXED_FIGHTS_AS if composition in MIXED_COMPOSITIONS else size


# == captains ("Personalità del Capitano" L87-92, "Tabella 2" L246-250) ========================

PERSONALITIES = {
    "rash": ("Irruento", "Rash: hard to control, tends to ignore orders and attack", "L88"),
    "unpredictable": ("Imprevedibile", "Unpredictable: often ready to attack, sometimes listens "
                      "to reason", "L89"),
    "reliable": ("Affidabile", "Reliable: normally obeys orders", "L90"),
    "cautious": ("Prudente", "Cautious: tends to hesitate in reading and carrying out orders",
                 "L91"),
    "timid": ("Timoroso", "Timid: unreliable with orders, waits for the battle to be decided",
              "L92"),
}
PERSONALITY_KEYS = tuple(PERSONALITIES)

# Tabella 2 (L246-250), one d6 per captain, the row by his company.
PERSONALITY_TABLE = {
    # L247 "Mercenari 6: Imprevedibile; 5: Affidabile; 4,3: Prudente - 1,2: Timoroso"
    "mercenaries": {1: "timid", 2: "timid", 3: "cautious", 4: "cautious", 5: "reliable",
                    6: "unpredictable"},
    # L248 "Feccia/Milizia 6: Imprevedibile; 5,4: Prudente; 3,2,1; Timoroso"
    "rabble_militia": {1: "timid", 2: "timid", 3: "timid", 4: "cautious", 5: "cautious",
                       6: "unpredictable"},
    # L250 "Altre compagnie 6: Irruento; 5:Imprevedibile; 4,3: Affidabile; 2: Prudente; 1: Timoroso"
    "others": {1: "timid", 2: "cautious", 3: "reliable", 4: "reliable", 5: "unpredictable",
               6: "rash"},
}
SWISS_PERSONALITY = "rash"          # L249 "Svizzeri Sempre Irruento" (HERALD D15: before the row)
SWISS_NATIONS = ("swiss",)


def personality_row(morale: str, nation: str = "") -> str:
    """Which row of Tabella 2 a captain rolls on (L246-250): "swiss" for a Swiss company whatever
    its morale class (HERALD D15), "mercenaries", "rabble_militia" (Rabble, Militia, Recruits) or
    "others" (Gentlemen and Professionals)."""
    if nation in SWISS_NATIONS:
        return "swiss"
    m = MORALE_ALIASES.get(morale, morale)
    if m == "mercenaries":
        return "mercenaries"
    if m in ("rabble", "militia"):
        return "rabble_militia"
    if m in MORALE:
        return "others"
    raise ValueError(f"unknown morale class {morale!r}")


def rolls_personality(morale: str, nation: str = "") -> bool:
    """A Swiss captain is always Rash and rolls no die [Tabella 2] L249 (HERALD D15)."""
    return personality_row(morale, nation) != "swiss"


def personality(morale: str, nation: str, roll: int | None) -> str:
    """The captain's personality for a d6 `roll` [Tabella 2] L246-250 (None for the Swiss)."""
    row = personality_row(morale, nation)
    if row == "swiss":
        return SWISS_PERSONALITY
    _check_d6(roll)
    return PERSONALITY_TABLE[row][roll]


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


# == terrain ("Terreno" L172-211) ==============================================================

@dataclass(frozen=True)
class Category:
    key: str
    italian: str
    slows: bool                 # reduces movement (the amount is Herald's completion)
    slows_skirmishers: bool
    disorders: bool             # "ne disordina la formazione" (closed); HERALD D22 for broken
    passable: bool
    text: str
    line: str


CATEGORIES = {c.key: c for c in (
    Category("open", "Terreno aperto", False, False, False, True,
             "Non influenzano né il movimento, né l'ordine delle truppe", "L174-180"),
    Category("broken", "Terreno Rotto", True, False, False, True,
             "Riduce il movimento per tutte le unità tranne che per gli schermagliatori. Non ha "
             "effetto sull'ordine.", "L181-191"),
    Category("closed", "Terreno chiuso", True, True, True, True,
             "Riduce il movimento delle truppe e ne disordina la formazione.", "L192-198"),
    Category("impassable", "Terreno impassabile", False, False, False, False,
             "Terreni all'interno dei quali le truppe non possono transitare né essere schierate.",
             "L199-205"),
)}
CATEGORY_KEYS = tuple(CATEGORIES)


@dataclass(frozen=True)
class TerrainKind:
    """A kind of terrain feature: its shape (an "area" polygon, a "line" buffered by its width,
    a "crossing" of a watercourse), the categories the text puts it in (the first is the default;
    the battle file picks among them: a small wood is broken, a large dense wood closed, a great
    forest impassable), and what it does to sight and cover."""
    key: str
    shape: str
    categories: tuple[str, ...]
    italian: str
    line: str
    blocks_sight: bool = False      # L215-216 "bloccano completamente la visuale"
    limits_sight: bool = False      # L217-218 ½ UDM inside and into it
    conceals: bool = False          # L221 skirmishers may hide in or behind it
    cover: str = ""                 # L222-227: "in" inside it, "behind" on the far side, "all"
    width: float = 0.0              # default width of a line (UDM)
    water: bool = False             # a watercourse (no cover, L224)
    road: bool = False              # ignores the ground it runs on (L206-207)


TERRAIN_KINDS = {k.key: k for k in (
    # areas
    TerrainKind("hill", "area", ("open", "broken"), "Pendii o colline con poca inclinazione, "
                "Colline basse / Colline ripide", "L177-178; L184; L208-209", blocks_sight=True),
    TerrainKind("woods", "area", ("broken", "closed", "impassable"), "Piccole creste o boschi / "
                "Boschi fitti o grandi / Grandi foreste fitte", "L189; L195; L204",
                blocks_sight=True, limits_sight=True, cover="in"),
    TerrainKind("vineyard", "area", ("broken",), "Coltivazioni (vigneti, orti, …)", "L187; L216-218",
                blocks_sight=True, limits_sight=True, cover="in"),
    TerrainKind("cultivation", "area", ("broken",), "Coltivazioni (vigneti, orti, …)", "L187",
                cover="in"),
    TerrainKind("cornfield", "area", ("open",), "campi di grano", "L221", conceals=True),
    TerrainKind("scrub", "area", ("broken",), "Steppa o macchia bassa / macchia alta",
                "L185; L221", conceals=True, cover="in"),
    TerrainKind("rough", "area", ("broken",), "Terreno rotto od aree rocciose", "L186; L221",
                conceals=True, cover="in"),
    TerrainKind("village", "area", ("broken",), "Aree agricole costruite, fattorie e villaggi",
                "L190; L216-218; L226", blocks_sight=True, limits_sight=True, cover="all"),
    TerrainKind("town", "area", ("closed",), "Grandi aree cittadine", "L198; L216-218; L226",
                blocks_sight=True, limits_sight=True, cover="all"),
    TerrainKind("marsh", "area", ("closed", "impassable"), "Paludi / Grandi Paludi",
                "L194; L205; L221", conceals=True, cover="in"),
    TerrainKind("lake", "area", ("impassable",), "Laghi o mari", "L202", water=True),
    TerrainKind("fortification", "area", ("impassable",), "Fortificazioni (Castelli o cinta "
                "murarie)", "L203; L211"),
    # lines
    TerrainKind("road", "line", ("open",), "Strade / Strade rialzate", "L180; L206-207",
                width=1.0, road=True),
    TerrainKind("river", "line", ("closed", "impassable"), "Fiumi e canali / Grandi fiumi, "
                "traversabili solo su ponti o con traghetti", "L196; L201; L224", width=2.0,
                water=True),
    TerrainKind("canal", "line", ("closed",), "Fiumi e canali", "L196; L224", width=1.0,
                water=True),
    TerrainKind("stream", "line", ("broken",), "Torrenti", "L191; L224", width=0.5, water=True),
    TerrainKind("hedge", "line", ("broken",), "Piccoli ostacoli lineari (siepi)", "L188; L225",
                cover="behind", width=0.25),
    TerrainKind("low_wall", "line", ("broken",), "Piccoli ostacoli lineari (muri bassi)",
                "L188; L221; L225", conceals=True, cover="behind", width=0.25),
    TerrainKind("palisade", "line", ("broken",), "Piccoli ostacoli lineari (palizzate)", "L188",
                cover="behind", width=0.25),
    TerrainKind("drainage_ditch", "line", ("broken",), "Piccoli ostacoli lineari (canali di "
                "drenaggio)", "L188; L224", width=0.25, water=True),
    TerrainKind("high_wall", "line", ("closed",), "Grandi ostacoli lineari (muri alti)",
                "L197; L216; L220; L225", blocks_sight=True, cover="behind", width=0.25),
    TerrainKind("ditch", "line", ("closed",), "Grandi ostacoli lineari (fossati e trincee)",
                "L197; L225", cover="behind", width=0.5),
    TerrainKind("dyke", "line", ("closed",), "Grandi ostacoli lineari (dighe); argini",
                "L197; L216", blocks_sight=True, cover="behind", width=0.5),
    TerrainKind("ridge", "line", ("broken",), "Piccole creste; creste lineari", "L189; L216; L221; "
                "L225", blocks_sight=True, conceals=True, cover="behind", width=0.5),
    TerrainKind("defences", "line", ("broken", "closed"), "Difese campali", "L210-211; L225",
                cover="behind", width=0.5),
    # crossings of a river, canal or stream
    TerrainKind("ford", "crossing", ("broken",), "Guadi", "L183", width=1.5),
    TerrainKind("bridge", "crossing", ("open",), "Ponti", "L179", width=1.0),
)}
AREA_KINDS = tuple(k for k, t in TERRAIN_KINDS.items() if t.shape == "area")
LINE_KINDS = tuple(k for k, t in TERRAIN_KINDS.items() if t.shape == "line")
CROSSING_KINDS = tuple(k for k, t in TERRAIN_KINDS.items() if t.shape == "crossing")
WATER_KINDS = tuple(k for k, t in TERRAIN_KINDS.items() if t.water)
SIGHT_BLOCKERS = tuple(k for k, t in TERRAIN_KINDS.items() if t.blocks_sight)
SIGHT_LIMITERS = tuple(k for k, t in TERRAIN_KINDS.items() if t.limits_sight)
CONCEALING = tuple(k for k, t in TERRAIN_KINDS.items() if t.conceals)


def terrain_kind(key: str) -> TerrainKind:
    try:
        return TERRAIN_KINDS[key]
    except KeyError:
        raise KeyError(f"unknown terrain kind {key!r}; known: {', '.join(sorted(TERRAIN_KINDS))}") \
            from None


def gives_cover(kind: str, category: str) -> str:
    """The cover a feature gives [Copertura] L222-227: "all" (built-up areas, against every
    enemy), "in" (companies wholly inside broken or closed ground, watercourses excepted),
    "behind" (wholly behind hedges, crests, walls, field defences, against enemies on the far
    side) or "" (none)."""
    t = terrain_kind(kind)
    if t.cover == "behind":
        return "behind"
    if t.water or t.shape != "area":
        return ""
    if t.cover == "all":
        return "all"
    return "in" if category in ("broken", "closed") else ""


# == command ("Coesione delle battaglie" L115-122) =============================================

# L117-120: cavalry within 5 UDM of the battle commander's company, infantry 3; skirmishers within
# 2 UDM of any company of their own battle; artillery none (HERALD D2: edge to edge).
COMMAND_RADIUS = {"cavalry": 5.0, "infantry": 3.0, "skirmishers": 2.0, "artillery": None}


def command_radius(arm: str, role: str) -> tuple[float | None, str]:
    """(radius in UDM or None, measured to "commander" or "battle") [Coesione delle battaglie]
    L117-120: skirmishers 2 UDM from any company of their battle, cavalry 5 and infantry 3 from
    the battle commander's company, artillery free."""
    if arm == "artillery":
        return None, ""
    if role == "skirmishers":
        return COMMAND_RADIUS["skirmishers"], "battle"
    return COMMAND_RADIUS[arm], "commander"


# == army break ("Punto di rottura dell'esercito" L123-131), camp ("Accampamento" L236-240) =====

CAMP_SIZE = Footprint(2.0, 1.0)     # L237 "di dimensioni 1 X 2 udm": 2 wide, 1 deep (HERALD D23)
CAMP_POINTS = 3                     # L240 "un valore di 3 punti ai fini del punto di rottura"
CAMP_CATEGORY = "open"              # L271 "esclusivamente in terreno aperto"
BREAK_FRACTION = (1, 2)             # L131 "Quando più della metà della forza dell'esercito è perduta"
# L131 when a company's points are lost: "fuori tavolo, in rotta, distrutta, o soggetta ad ordini
# di ritirata"
POINTS_LOST_WHEN = ("off", "routing", "destroyed", "retreat")


def army_strength(company_morales, camp: bool = True) -> int:
    """An army's strength [Punto di rottura dell'esercito] L124: the command points of its
    companies (Tabella 1) plus the camp's 3 (L240)."""
    return sum(command_points(m) for m in company_morales) + (CAMP_POINTS if camp else 0)


def army_broken(lost: int, strength: int) -> bool:
    """More than half the strength lost [Punto di rottura dell'esercito] L131 (exactly half is
    not enough): 2 x lost > strength."""
    return lost * BREAK_FRACTION[1] > strength * BREAK_FRACTION[0]


# == the treasury ("Tesoro" L93-95) and sworn enemies ("Nemici giurati" L96-97) ================

ECU_DEFAULT = "1d6"                 # L95 "un tesoro corrispondente ad 1D6 in Ecu"
ECU_STEP = 1                        # L94 "Ogni Ecu permette di modificare di un livello il risultato"
ECU_IMMUNE = ("gentlemen",)         # L301 "la spesa in Ecu non ha effetto su Compagnie di
                                    # Gentiluomini": the battle commander's company (HERALD D24)


def ecu_effect(commander_morale: str, net_ecu: int) -> int:
    """The bribes' modifier to an interpretation roll [Tesoro] L94, [Interpretazione degli
    ordini] L301: ±1 per Ecu, none on a battle whose commander's company is Gentlemen (HERALD
    D24)."""
    return 0 if commander_morale in ECU_IMMUNE else net_ecu * ECU_STEP


NATIONS = ("french", "gascon", "scots", "swiss", "landsknecht", "imperial_landsknecht", "spanish",
           "italian", "venetian", "milanese", "mantuan", "papal", "ferrarese", "florentine",
           "stradiot", "german")
# L97 "Svizzeri e Lanzi e Lanzi Imperiali contro Lanzi al servizio di altri partiti": the Swiss
# against every Landsknecht, Imperial Landsknechts against the others.
SWORN_ENEMIES = (frozenset({"swiss", "landsknecht"}), frozenset({"swiss", "imperial_landsknecht"}),
                 frozenset({"imperial_landsknecht", "landsknecht"}))


def sworn_enemies(nation_a: str, nation_b: str) -> bool:
    """Whether two companies' nations are sworn enemies [Nemici giurati] L97."""
    return frozenset({nation_a, nation_b}) in SWORN_ENEMIES


# == orders ("Ordini" L132-160) ================================================================

@dataclass(frozen=True)
class Order:
    """An order and what it allows, from the text's definition (L136-160; digest §4.3's
    permissions summary). "" = the text is silent: Herald's completion decides (HERALD D6)."""
    key: str
    italian: str
    voluntary: bool             # L134 Assault and Hesitate are never given; Retreat is morale's
    movement: str
    manoeuvre: str              # "none" / "steer" / "any" / "face" / ""
    shooting: str               # "any" / "short" (skirmishers any) / "none" / ""
    charges: str                # "must" / "none" / "counter" / "must_objective" / "mounted_any" / ""
    becomes: str                # automatic changes
    line: str


ORDERS = {o.key: o for o in (
    Order("assault", "Assalto", False, "full speed to the nearest enemy by the most direct way "
          "(sworn enemies first, unless others attack it directly)", "steer", "short", "must",
          "", "L136-139"),
    Order("attack", "Attaccare", True, "towards the nearest enemy or the units named", "none",
          "any", "must", "", "L140-142"),
    Order("delay", "Fermare il nemico", True, "towards the nearest enemy or a named position; may "
          "stop 2 UDM from the enemy, must follow it if it moves away", "any", "any", "counter",
          "", "L143-146"),
    Order("occupy", "Occupare", True, "towards the objective (a terrain feature, fortification "
          "or settlement)", "", "any", "must_objective",
          "hold when the objective is taken and no enemy is within 2 UDM", "L147-150"),
    Order("hold", "Tenere", True, "none: the companies stay where they are", "face", "any",
          "none", "", "L151-153"),
    Order("withdraw", "Indietreggiare", True, "back at half speed, facing the enemy", "face", "",
          "mounted_any", "", "L154-155"),
    Order("hesitate", "Esitare", False, "none (charge responses only)", "face", "none", "none",
          "withdraw when charged or shot at", "L156-158"),
    Order("march", "Marcia", True, "march speed to a named objective", "", "", "",
          "hold at the objective, or while an enemy is within 2 UDM (march again when none is)",
          "L159-160"),
    Order("retreat", "Ritirata", False, "", "", "", "",
          "every remaining battle of a broken army", "L134; L131"),
)}
ORDER_KEYS = tuple(ORDERS)
VOLUNTARY_ORDERS = tuple(k for k, o in ORDERS.items() if o.voluntary)
DELAY_STANDOFF = 2.0                # L145 "possono fermarsi ad una distanza di 2 udm dal nemico"
OCCUPY_CLEAR = 2.0                  # L150 "non ci sono unità nemiche entro 2 udm"
MARCH_HALT = 2.0                    # L160 "entro 2 udm durante la marcia"
WITHDRAW_SPEED = 0.5                # L155 "a metà velocità"
CHARGE_HALT = 1.0                   # L347 "si fermano ad 1 udm dal bersaglio della carica"


def must_charge(order: str) -> bool:
    """Orders whose shock troops declare a charge as soon as they can [Assalto] L138, [Attaccare]
    L141 (and Occupy, on the objective's holders and blockers, L149)."""
    return ORDERS[order].charges in ("must", "must_objective")


def may_declare_charge(order: str, mounted: bool = False) -> bool:
    """Whether a battle's order lets its companies declare charges at all: not Hold (L153), not
    Delay (counter-charge only, L146), not Hesitate (L157); Withdraw only mounted troops (L155);
    Retreat and March: the completion."""
    c = ORDERS[order].charges
    if c == "mounted_any":
        return mounted
    return c in ("must", "must_objective")


# == interpretation ("Interpretazione degli ordini" L298-315, "Tabella 5" L304-309) ============

# Tabella 5 L305-309
INTERPRETATION_MODIFIERS = {"rash": 2, "timid": 2, "unpredictable": 1, "cautious": 1,
                            "reliable": -1}
SWORN_ENEMY_MODIFIER = 1            # L308 "Nemici giurati in vista +1"
INTERPRETATION_FAILS_AT = 6         # L303 "Un risultato di 6 o più"


def interpretation_total(roll: int, personality_key: str, sworn_in_sight: bool = False,
                         ecu: int = 0) -> int:
    """The modified interpretation roll [Tabella 5] L304-309: d6 + the captain's modifier, +1
    with sworn enemies in sight, + the Ecu's net effect (see `ecu_effect`)."""
    _check_d6(roll)
    return (roll + INTERPRETATION_MODIFIERS[personality_key]
            + (SWORN_ENEMY_MODIFIER if sworn_in_sight else 0) + ecu)


def interpretation_fails(total: int) -> bool:
    """6 or more: the commander has not understood [Test per l'interpretazione] L303."""
    return total >= INTERPRETATION_FAILS_AT


def failed_order(personality_key: str, given: str) -> str:
    """The order a battle takes when the test fails [Tabella 5, Risultato] L311-315: Rash ->
    Assault; Unpredictable -> Attack (Hesitate if Attack was given); Reliable and Cautious ->
    Hold (Hesitate if Hold was given); Timid -> Hesitate."""
    if personality_key == "rash":
        return "assault"
    if personality_key == "unpredictable":
        return "hesitate" if given == "attack" else "attack"
    if personality_key in ("reliable", "cautious"):
        return "hesitate" if given == "hold" else "hold"
    if personality_key == "timid":
        return "hesitate"
    raise ValueError(f"unknown personality {personality_key!r}")


# == activation ("Attivazione delle battaglie", "Tabella 6" L333-344) ==========================

# L334-338 the minimum d6 by the morale class of the battle commander's company.
ACTIVATION_MINIMUM = {k: m.activation for k, m in MORALE.items()}
# L339-344 as printed (the layout is broken; HERALD D10 reads it):
TABLE6_AS_PRINTED = (
    "Comandante Irruento + 1",
    "Comandante Timoroso - 1",
    "La battaglia si trova fuori tavolo",
    "La battaglia era attivata nella mossa precedente - 1",
    "+ 1",
)
# HERALD D10: each value stays on the line it is printed on; the orphan "+ 1" belongs to the one
# line without a value: off table +1, activated in the previous turn -1.
ACTIVATION_MODIFIERS = {"rash": 1, "timid": -1, "off_table": 1, "activated_last": -1}


def activation_total(roll: int, personality_key: str, *, off_table: bool = False,
                     activated_last: bool = False) -> int:
    """The modified activation roll [Tabella 6] L339-344 (HERALD D10)."""
    _check_d6(roll)
    return (roll + ACTIVATION_MODIFIERS.get(personality_key, 0)
            + (ACTIVATION_MODIFIERS["off_table"] if off_table else 0)
            + (ACTIVATION_MODIFIERS["activated_last"] if activated_last else 0))


def activates(commander_morale: str, total: int) -> bool:
    """The battle activates when the modified roll reaches the minimum of its commander's
    company's morale class [Tabella 6] L333-338: Professionals 2, Gentlemen 3, Mercenaries 4,
    Militia 5, Rabble 6."""
    return total >= ACTIVATION_MINIMUM[MORALE_ALIASES.get(commander_morale, commander_morale)]


# What a battle that has not activated may still do [Attivazione delle battaglie] L327-331.
NOT_ACTIVATED_MAY = ("shoot at enemies in sight", "charge, if its order obliges it, an enemy "
                     "within its move", "artillery finish limbering begun the turn before",
                     "units in melee fight it out")


# == the sequence ("Prima della battaglia" L242-274, "Sequenza di mossa" L275-291) ==============

PREBATTLE = (
    ("organisation", "Organizzazione dell'esercito", "Prima della battaglia 1", "L243"),
    ("personalities", "Determinare la personalità di ciascun Capitano", "Prima della battaglia 2",
     "L244-250"),
    ("weather", "Stagione e tempo atmosferico", "Prima della battaglia 3", "L251-267"),
    ("attacker", "Determinare l'attaccante ed il difensore", "Prima della battaglia 4",
     "L268-269"),
    ("deployment", "Schieramento", "Prima della battaglia 5", "L270"),
    ("defences", "Piazzamento dei campi e delle difese campali", "Prima della battaglia 6", "L271"),
    ("placement", "Piazzamento degli eserciti", "Prima della battaglia 7", "L272"),
    ("orders", "Emanazione degli ordini alle battaglie", "Prima della battaglia 8", "L273"),
    ("bribery", "Corruzione", "Prima della battaglia 9", "L274"),
)
TURN = (
    ("command", "Fase di Comando", "Sequenza di mossa 1", "L276"),
    ("actions", "Azioni", "Sequenza di mossa 2", "L277-286"),
    ("rout", "Rotte", "Sequenza di mossa 3", "L287"),
    ("pursuit", "Inseguimento", "Sequenza di mossa 4", "L288"),
    ("reorganisation", "Riorganizzazione", "Sequenza di mossa 5", "L289"),
    ("end", "Fine mossa", "Sequenza di mossa 6", "L290"),
)
ACTIVATION_SEQUENCE = (
    ("activate", "2a", "Attivazione delle battaglie", "L278; L326-344"),
    ("declare", "2b", "Dichiarazioni di carica", "L279; L345; L363-367"),
    ("manoeuvre", "2c", "Manovre", "L280; L346"),
    ("move", "2d", "Movimento", "L281; L347"),
    ("shoot", "2e", "Tiro", "L282; L348"),
    ("respond", "2f", "Risposte nemiche alla carica", "L283; L349-358"),
    ("close", "2g", "Movimento finale di carica", "L284; L359"),
    ("melee", "2h", "Risoluzione delle mischie", "L285; L360-361"),
    ("captains", "2i", "Test per i rischi del Capitano", "L362"),
)

# "Prima della battaglia" 4 (L269): "L'attaccante è il giocatore che ha il maggior numero di
# Capitani Irruenti ed irruenti. In caso di parità lanciare 1D6": every captain of the army counts,
# Rash only (HERALD D11).
ATTACKER_COUNTS = ("rash",)


def attacker_by_captains(rash_a: int, rash_b: int) -> int:
    """1 when the first army has more Rash captains, 2 when the second has, 0 for a tie (then
    1d6 each, the higher attacks) [Prima della battaglia 4] L269 (HERALD D11)."""
    return 1 if rash_a > rash_b else 2 if rash_b > rash_a else 0


# "Prima della battaglia" 5 (L270): "Gli eserciti possono essere schierati fino a 6 udm dal bordo
# del tavolo"; the ambush: only the defender, hidden, in broken or closed ground or out of the
# enemy's sight, and "non oltre la propria metà del tavolo".
DEPLOYMENT_DEPTH = 6.0
AMBUSH_BY = "defender"
AMBUSH_CATEGORIES = ("broken", "closed")

# "Disordine" L98-107: a company is disordered when it
DISORDER_CAUSES = (
    ("morale_failed", "Falliscono un test di morale", "L100"),
    ("pursuing", "Stanno inseguendo", "L101"),
    ("routing", "Stanno fuggendo", "L102"),
    ("obedience_failed", "Falliscono un test di obbedienza", "L103"),
    ("interpenetrated", "Hanno interpenetrato o sono stati interpenetrati da unità amiche, a meno "
     "che almeno una delle due non sia di schermagliatori", "L104"),
    # "terreno rotto" here, but broken ground "Non ha effetto sull'ordine" (L182) and closed ground
    # "ne disordina la formazione" (L193): closed ground (HERALD D22)
    ("closed_ground", "si trovano o stanno muovendo attraverso terreno rotto", "L105"),
    ("broken_through", "Sono state \u201csfondate\u201d", "L106"),
    ("short_manoeuvre", "non hanno abbastanza disponibilità di movimento per completare una "
     "manovra", "L107"),
)
# "Riorganizzazione dal disordine" L111: not in melee, rout, "terreno rotto" (closed ground, HERALD
# D22) or pursuit.
REORGANISE_BARRED = ("in_melee", "routing", "closed_ground", "pursuing")

# "Schermagliatori" L161-170
SKIRMISHER_PUSH_BACK = 1.0          # L165 "piazzata ad 1 udm dal suo fronte"
SKIRMISHER_CHARGE_TARGETS = ("skirmishers", "flank", "rear", "camp")   # L169, L345

# "Risposte nemiche alla carica" L349-358
COMPULSORY_RESPONSES = ("skirmishers_evade", "flank_rear_morale_test")     # L351-352
OPTIONAL_RESPONSES = ("shoot", "counter_charge", "emergency_face")         # L354-356
EMERGENCY_FACE_EXAMPLE = ("infantry", "open", 2.0)   # L357 infantry in the open: a 2 UDM move


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
