"""The Italian Wars rules (the Italian text, `rules/italian-wars.it.txt`): the army's tables as
data (digest §2, Components): the scale and the table ("Il tavolo", "Scale" L17-27), bases and
companies ("Basette", "Compagnie" L7-16), morale classes and their command points ("Morale"
L30-36, "Tabella 1" L125-130), troop roles ("Tipi di truppe" L37-40), armour ("Tipo di armatura"
L41-48), weapons ("Tipi di armi" L49-65), the melee and shooting factors ("Fattori di mischia"
L73-77, "Fattori di tiro" L78-82), special formations and skirmisher screens ("Formazioni
speciali" L66-72, "Schermi di Schermagliatori" L83-84) and the captains' personalities
("Personalità del Capitano" L87-92, "Tabella 2" L246-250).

Part of engine/italianwars/tables.py (which re-exports every name here); its principles apply:
each value cites the text's lines, Herald's readings are marked "HERALD D<n>"
(engine/italianwars/DECISIONS.md). Distances are UDM (HERALD D1), dice d6 (HERALD D5).

Pure data and functions: standard library and engine.core only; no I/O, discord, sqlite, Pillow.
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.core.table.geometry import Footprint


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
