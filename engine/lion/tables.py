"""Lion of the North ("Il Leone del Nord", ed. 2.01): every table of the text as data.

DESIGN principle 4: the tables live here as plain data with small pure functions. Each table names
its section ("[7 B]": section 7 paragraph B; "[Tabella riassuntiva]" the summary sheet; "[Tabella
delle truppe]" the troop chart; "[TIRO]" the shooting grid; "[13]" the cards) and the line of
`rules/lion-of-the-north.it.txt` it was read from ("L236"), with the Italian words beside it. The
Italian text is the authority; where it is silent or reads two ways, the value is Herald's, marked
"HERALD D<n>" (engine/lion/DECISIONS.md).

Distances are centimetres [2] (the text's millimetre bases are converted: 80 mm = 8 cm). Dice are
real polyhedra d3..d12 (HERALD D9); a die is written by its number of faces (8 = d8).

Pure data and functions: standard library and engine.core only; no I/O, discord, sqlite, Pillow.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from engine.core.table.geometry import Footprint

CITE = "LdN"


def cite(section: str, lines: str = "") -> str:
    """A citation of the text for an event: "LdN [7 B]" (with " (L78)" when lines are given)."""
    return f"{CITE} [{section}]" + (f" ({lines})" if lines else "")


# == basing [2] ===================================================================================

# A base's rectangle in cm: frontage (`width`) x `depth` [2] (HERALD D2), the geometry's own type.
Size = Footprint


# [2] L28-34 "Tipo / Base Fronte x profondità": mm converted to cm. Pike & Shot "80 mm x 20mm" is
# two infantry bases side by side; the Tercio doubles the depth [2] L38 ("Per i Tercios, raddoppiare
# la profondità della formazione"); dismounted dragoons stand on an infantry base (HERALD D2).
BASES = {
    "infantry": Size(4.0, 2.0),        # L30 "Fanteria 40mm x 20mm"
    "cavalry": Size(4.0, 3.0),         # L31 "Cavalleria 40mm x 30mm"
    "artillery": Size(3.0, 3.5),       # L32 "Artiglieria 30mm x 35mm"
    "general": Size(2.0, 2.0),         # L33 "Generale 20mm x 20mm"
    "camp": Size(9.0, 6.0),            # L34 "Accampamenti 90mm x 60mm"
    "pike_and_shot": Size(8.0, 2.0),   # L29 "Pike & Shot 80 mm x 20mm"
    "tercio": Size(8.0, 4.0),          # L38 two P&S one behind the other [12 F] L124
}
CAMP_SIZE = BASES["camp"]
GENERAL_SIZE = BASES["general"]


# == the troop chart [Tabella delle truppe] L232-250 and the summary lists L169-200 ==============

DIE_LADDER = (3, 4, 6, 8, 10, 12)      # [9 A] L98: one die lower, "mai con un dado minore di 1d3"
UNLIMITED = math.inf                   # L247 heavy guns' "illimitata" range


@dataclass(frozen=True)
class TroopType:
    """One row of the troop chart (L232-248) with the summary lists (L169-200).

    melee_die / shoot_die: faces of the die (0 = does not shoot); max_range in cm (0 = none,
    UNLIMITED for heavy guns); move in cm (0 = never moves); arm: infantry / cavalry / artillery /
    general; footprint: the base (HERALD D2); attacks: may attack voluntarily (the chart's "Non
    possono attaccare volontariamente"); moves: may move at all; weight: counts as this many units
    for demoralisation and victory [11 C]."""
    key: str
    name: str
    melee_die: int
    shoot_die: int
    max_range: float
    move: float
    arm: str
    footprint: Size
    attacks: bool = True
    moves: bool = True
    weight: int = 1
    italian: str = ""                  # the chart's own name
    line: str = ""                     # where the row is
    melee_die_cover: int = 0           # dismounted dragoons: d6 in cover [12 C] L118, L241
    second_die: int = 0                # P&S attacked by a second enemy: +1d8 (late: +1d6) [12 E]
    hits: int = 2                      # hits that destroy it [9 A], [12 E-F]
    light: bool = False                # light horse (Croats) [5 D]
    evades: bool = False               # may evade infantry [5 D] L67
    about_face: str = "stay"           # half_move / stay / stay_disordered [5 D] L67
    occupies_towns: bool = False       # [5 B] L65 "Solo moschettieri, milizie e dragoni smontati"
    enters_marsh: bool = False         # [5 B] L65 "Solo fanterie e generali possono attraversare paludi"
    mounted: bool = False              # a horse base (dragoons switch with dismounted_dragoons)
    gun: str = ""                      # artillery: organ / regimental / light / medium / heavy / mortar
    note: str = ""


_INF, _CAV, _ART = BASES["infantry"], BASES["cavalry"], BASES["artillery"]

TROOPS: dict[str, TroopType] = {t.key: t for t in (
    TroopType("general", "General", 4, 0, 0, 24, "general", BASES["general"], attacks=False,
              weight=2, italian="Generali", line="L233; L171; L188", enters_marsh=True,
              note="Non possono attaccare volontariamente; weight 2 C-in-C, 1 sub-commander [11 B]"),
    TroopType("militia", "Militia", 4, 0, 0, 8, "infantry", _INF, italian="Milizia",
              line="L234; L176; L188", occupies_towns=True, enters_marsh=True),
    TroopType("musketeers", "Musketeers", 6, 8, 15, 10, "infantry", _INF, italian="Moschettieri",
              line="L235; L175; L181; L189; L197", about_face="half_move", occupies_towns=True,
              enters_marsh=True),
    TroopType("pike_and_shot", "Pike & Shot", 12, 8, 15, 8, "infantry", BASES["pike_and_shot"],
              weight=2, italian="Pike & Shot", line="L236; L176; L181; L192; L197; [12 E] L120",
              second_die=8, hits=3, about_face="stay_disordered", enters_marsh=True),
    TroopType("late_pike_and_shot", "Late Pike & Shot", 10, 10, 15, 8, "infantry",
              BASES["pike_and_shot"], weight=2, italian="Tardi P&S",
              line="[12 E] L120-122; L182; L191", second_die=6, hits=3,
              about_face="stay_disordered", enters_marsh=True,
              note="musket-heavy P&S: 'spara con 1d10 e combatte con 1d10 più 1 eventuale d6' "
                   "[12 E] L122; range and move of P&S (HERALD D13)"),
    TroopType("tercio", "Tercio", 12, 8, 15, 8, "infantry", BASES["tercio"], weight=3,
              italian="Tercio", line="[12 F] L124; [11 C] L112", second_die=8, hits=4,
              about_face="stay_disordered", enters_marsh=True,
              note="two P&S one behind the other: the P&S row, +1d3 in melee, fires from all four "
                   "faces (one die lower from sides and rear) [12 F]"),
    TroopType("pikemen", "Pikemen", 12, 0, 0, 8, "infantry", _INF, italian="Picchieri",
              line="L237; L176; L192", about_face="stay_disordered", enters_marsh=True),
    TroopType("reiter", "Reiter", 8, 6, 5, 22, "cavalry", _CAV, italian="Reiter",
              line="L238; L172; L180; L190; L196", mounted=True),
    TroopType("regular_cavalry", "Regular cavalry", 10, 0, 0, 22, "cavalry", _CAV,
              italian="Cavalleria Regolare", line="L239; L172; L191", mounted=True),
    TroopType("dragoons", "Dragoons", 6, 6, 5, 20, "cavalry", _CAV, italian="Dragoni",
              line="L240; L173; L180; L189; L196", evades=True, about_face="half_move",
              mounted=True, note="may dismount [12 C]"),
    TroopType("mounted_arquebusiers", "Mounted arquebusiers", 6, 6, 5, 20, "cavalry", _CAV,
              italian="Arch. a cavallo (Moschettieri ed archibugeri a cavallo)",
              line="L240; L180; L189; L196", evades=True, about_face="half_move", mounted=True,
              note="the chart's row 'Dragoni & Arch. a cavallo' (HERALD D14)"),
    TroopType("dismounted_dragoons", "Dismounted dragoons", 4, 8, 15, 15, "infantry", _INF,
              italian="Dragoni smontati", line="L241; L174; L181; L188; L189; [12 C] L118",
              melee_die_cover=6, about_face="half_move", occupies_towns=True, enters_marsh=True,
              note="d4 in the open, d6 in cover; 15 cm as written (HERALD D15)"),
    TroopType("detached_musketeers", "Detached musketeers", 4, 8, 15, 10, "infantry", _INF,
              italian="Moschettieri distaccati", line="[12 G] L125", melee_die_cover=6,
              about_face="half_move", occupies_towns=True, enters_marsh=True,
              note="'combattono come Dragoni smontati': melee d4/d6; shoot and move as musketeers "
                   "(HERALD D16)"),
    TroopType("croats", "Croats", 6, 0, 0, 24, "cavalry", _CAV,
              italian="Croati (Cavalleria Leggera)", line="L242; L171; L189", light=True,
              evades=True, about_face="half_move", mounted=True),
    TroopType("organ_guns", "Organ guns", 3, 8, 15, 0, "artillery", _ART, attacks=False,
              moves=False, italian="Cannoni ad Organo", line="L243; L181; L187; L197",
              gun="organ", note="non possono muovere (HERALD D11)"),
    TroopType("regimental_guns", "Regimental guns", 3, 10, 30, 8, "artillery", _ART,
              attacks=False, italian="Cannoni Reggimentali", line="L244; L176; L182; L187; L198",
              gun="regimental", note="may shoot in the move they moved [6 A] L71"),
    TroopType("light_guns", "Light guns", 3, 10, 30, 8, "artillery", _ART, attacks=False,
              italian="Cannoni Leggeri", line="L245; L176; L182; L187; L198", gun="light",
              note="mossa speciale: shoot only deployed, change status once [6 A] L71"),
    TroopType("medium_guns", "Medium guns", 3, 10, 60, 8, "artillery", _ART, attacks=False,
              italian="Cannoni Medi", line="L246; L176; L182; L187; L199", gun="medium",
              note="mossa speciale: shoot only deployed, change status once [6 A] L71"),
    TroopType("heavy_guns", "Heavy guns", 3, 12, UNLIMITED, 0, "artillery", _ART,
              attacks=False, moves=False, italian="Cannoni Pesanti",
              line="L247; L183; L187; L200; [6 B] L72", gun="heavy",
              note="the chart prints '12' for the shooting die: d12 as in the list L183"),
    TroopType("mortar", "Mortar", 3, 12, 60, 0, "artillery", _ART, attacks=False, moves=False,
              italian="Mortaio", line="L248; L183; L187; L199; [6 B] L72; [12 D] L119",
              gun="mortar", note="fires over obstacles, always at long range, no cover save"),
)}

# A general's weight depends on his role [11 B] L111: "il generale in capo conta sempre come 2
# unità, mentre un sub-comandante conta come 1 unità"; wing generals of the large-army rule count
# as sub-commanders unless one of them is the C-in-C (HERALD D20).
GENERAL_WEIGHTS = {"cinc": 2, "sub": 1, "wing": 1}
GENERAL_ROLES = tuple(GENERAL_WEIGHTS)

# The summary lists as printed (L169-200), to check the chart against (tests): type keys per value.
SUMMARY_MOVE = {            # "Movimento" L169-176
    24: ("general", "croats"),
    22: ("regular_cavalry", "reiter"),
    20: ("dragoons",),
    15: ("dismounted_dragoons",),
    10: ("musketeers",),
    8: ("pikemen", "militia", "regimental_guns", "light_guns", "medium_guns", "pike_and_shot"),
}
SUMMARY_SHOOT = {           # "Dadi di Tiro" L178-183
    6: ("dragoons", "reiter", "mounted_arquebusiers"),
    8: ("musketeers", "dismounted_dragoons", "organ_guns", "pike_and_shot"),
    10: ("regimental_guns", "light_guns", "medium_guns", "late_pike_and_shot"),
    12: ("heavy_guns", "mortar"),
}
SUMMARY_MELEE = {           # "Dadi di Mischia" L185-192 (dismounted dragoons: d4 open, d6 cover)
    3: ("organ_guns", "regimental_guns", "light_guns", "medium_guns", "heavy_guns", "mortar"),
    4: ("general", "militia", "dismounted_dragoons"),
    6: ("musketeers", "dragoons", "croats", "mounted_arquebusiers"),
    8: ("reiter",),
    10: ("regular_cavalry", "late_pike_and_shot"),
    12: ("pikemen", "pike_and_shot"),
}
SUMMARY_RANGE = {           # "Gittata Massima" L194-200
    5: ("dragoons", "reiter", "mounted_arquebusiers"),
    15: ("musketeers", "organ_guns", "pike_and_shot"),
    30: ("regimental_guns", "light_guns"),
    60: ("medium_guns", "mortar"),
    UNLIMITED: ("heavy_guns",),
}

# Elite / untrained [Tabella delle truppe] L250: "Unità d'Elitè sommano sempre 1 al dado. Unità non
# addestrate sottraggono sempre 1 al dado." Which rolls: every die the unit itself rolls (HERALD D17).
QUALITY_MODIFIER = {"": 0, "elite": 1, "untrained": -1}
QUALITIES = tuple(QUALITY_MODIFIER)
QUALITY_APPLIES_TO = ("shoot", "melee", "rally", "cover_save", "loot_exit")

# [4 B] L50: mixed groups "fanteria ed artiglieria, cavalleria e moschettieri, quest'ultima
# combinazione è possibile solo per l'esercito svedese" (arm pairs; "" = any army).
GROUP_MIXES = {frozenset({"infantry", "artillery"}): "", frozenset({"cavalry", "musketeers"}): "swedish"}


def troop(key: str) -> TroopType:
    """The troop chart's row for `key` (KeyError names the known types)."""
    try:
        return TROOPS[key]
    except KeyError:
        raise KeyError(f"unknown troop type {key!r}; known: {', '.join(sorted(TROOPS))}") from None


def effective_type(type_key: str, mounted: bool = True) -> str:
    """The chart row a unit uses now: dragoons on foot are "dismounted_dragoons" [12 C] L118 ("la
    basetta di cavalleria viene rimpiazzata da una di Dragoni smontati"); every other type is
    itself."""
    return "dismounted_dragoons" if type_key == "dragoons" and not mounted else type_key


def footprint(type_key: str, mounted: bool = True) -> Size:
    """The base of a unit of that type now (HERALD D2): dismounted dragoons stand on 4 x 2."""
    return troop(effective_type(type_key, mounted)).footprint


def weight(type_key: str, role: str = "") -> int:
    """How many units a unit or general counts as for demoralisation and victory [11 B-C]: a
    general by his role (C-in-C 2, sub-commander or wing 1), P&S 2, Tercio 3, others 1."""
    if type_key == "general":
        return GENERAL_WEIGHTS[role or "sub"]
    return troop(type_key).weight


# == dice: the ladder and the step-down [9 A] =================================================

def step_down(die: int, n: int = 1) -> int:
    """The die `n` sizes lower on DIE_LADDER (d12 -> d10 -> d8 -> d6 -> d4 -> d3), never below d3
    [9 A] L98 ("ma mai con un dado minore di 1d3"). n <= 0 leaves the die; 0 (no die) stays 0."""
    if die == 0:
        return 0
    if die not in DIE_LADDER:
        raise ValueError(f"d{die} is not on the die ladder {DIE_LADDER}")
    i = DIE_LADDER.index(die)
    return DIE_LADDER[max(0, i - max(0, n))]


# How many hits a unit takes before it is destroyed, and from which hit on it rolls one die lower
# and may not close to contact: [9 A] L98 (a normal base: 1 hit disorders, the 2nd destroys),
# [12 E] L122 (P&S: 3 hits; after the 1st a die lower, after the 2nd no voluntary contact),
# [12 F] L124 (Tercio: 4 hits; after the 2nd a die lower, after the 3rd no voluntary contact).
HITS_TO_DESTROY = {"default": 2, "pike_and_shot": 3, "late_pike_and_shot": 3, "tercio": 4}
STEP_DOWN_FROM = {"default": 1, "pike_and_shot": 1, "late_pike_and_shot": 1, "tercio": 2}
NO_CONTACT_FROM = {"default": 1, "pike_and_shot": 2, "late_pike_and_shot": 2, "tercio": 3}
# [12 F] L124 "Un Tercio recupera, al massimo, un fattore di disordine per volta": a Tercio rallies
# one level; every other unit (P&S included) all its levels (HERALD D21).
RALLY_LEVELS = {"tercio": 1}


def _hit_class(type_key: str) -> str:
    return type_key if type_key in HITS_TO_DESTROY else "default"


def hits_to_destroy(type_key: str) -> int:
    """Hits that destroy a unit of this type [9 A], [12 E], [12 F]: 2, P&S 3, Tercio 4."""
    return HITS_TO_DESTROY[_hit_class(type_key)]


def disorder_steps(type_key: str, hits: int) -> int:
    """Sizes the unit's dice step down for its disorder [9 A], [12 E-F]: 1 once disordered
    (a Tercio from its 2nd hit), else 0."""
    return 1 if hits >= STEP_DOWN_FROM[_hit_class(type_key)] else 0


def may_close(type_key: str, hits: int) -> bool:
    """Whether a unit with `hits` may move into contact voluntarily [9 A] L98 ("non possono
    chiudere contatto"), [12 E] L122 (P&S from the 2nd hit), [12 F] L124 (Tercio from the 3rd)."""
    return hits < NO_CONTACT_FROM[_hit_class(type_key)]


def rally_levels(type_key: str, hits: int) -> int:
    """Disorder levels a successful rally removes [10 A], [12 F] (HERALD D21)."""
    return min(hits, RALLY_LEVELS.get(type_key, hits))


# == shooting [7], [Tabella riassuntiva] L204-218, [TIRO] L252-257 ==========================

ARC_HALF_ANGLE = 30.0      # [7 A] L77 "L'angolo di tiro è di 30° per lato" (HERALD D5)

# Band boundaries (HERALD D10): L206 "Corta, meno di 5 cm.; Normale, tra 5 e 10 cm.; Lunga, 11cm o
# più" and the grid L254 "0 5 >10": short below 5, normal from 5 to 10 inclusive, long above 10
# (10.01 is long: the grid's ">10" closes the gap 10-11). Artillery L210 "Corta, meno di 15 cm.;
# Normale, tra 15 e 45 cm.; Lunga, 46 cm o più", grid L256 "0 15 >45".
SHOOTING_BANDS = {
    "small_arms": (("short", 0.0), ("normal", 5.0), ("long", 10.0)),      # L206, L254
    "artillery": (("short", 0.0), ("normal", 15.0), ("long", 45.0)),      # L210, L256
}
# The lowest roll that hits [7 B] L78, L204, L208, [TIRO] L255, L257: "Se il risultato del dado è
# maggiore o uguale al valore relativo al range, il bersaglio è disordinato".
SHOOTING_THRESHOLDS = {
    "small_arms": {"short": 5, "normal": 6, "long": 7},
    "artillery": {"short": 6, "normal": 8, "long": 10},
}
BANDS = ("short", "normal", "long")


def fire_class(shooter_arm: str) -> str:
    """"artillery" for guns (organ guns included, HERALD D11), else "small_arms" ("Fanteria e
    Cavalleria", L204)."""
    return "artillery" if shooter_arm == "artillery" else "small_arms"


def band(shooter_arm: str, distance: float) -> str:
    """The range band of a shot [Tabella riassuntiva] L206, L210, [TIRO] L254-256 (HERALD D10):
    small arms short < 5 cm, normal 5-10 cm, long > 10 cm; artillery short < 15, normal 15-45,
    long > 45. Mortars always shoot at long range [12 D]: the caller passes the band itself."""
    if distance < 0:
        raise ValueError(f"a distance cannot be negative ({distance})")
    lower = SHOOTING_BANDS[fire_class(shooter_arm)]
    if distance < lower[1][1]:
        return "short"
    if distance <= lower[2][1]:
        return "normal"
    return "long"


def threshold(shooter_arm: str, band_name: str) -> int:
    """The lowest modified roll that hits in that band [7 B], [TIRO]."""
    return SHOOTING_THRESHOLDS[fire_class(shooter_arm)][band_name]


def shooting_band(type_key: str, distance: float) -> str:
    """The band for a troop type: mortars always long [12 D] L119, others by `band`."""
    t = troop(type_key)
    return "long" if t.gun == "mortar" else band(t.arm, distance)


def in_range(type_key: str, distance: float) -> bool:
    """Within the type's maximum range [7 A] L77 ("Gittata Massima" L194-200)."""
    t = troop(type_key)
    return t.shoot_die > 0 and distance <= t.max_range


# Dice and numbers added to a roll (each with its section and line).
CANISTER_DIE = 3           # [7 F] L83, L216 "aggiungere il risultato di 1d3" (not mortars)
DEEP_TARGET_BONUS = 1      # [7 G] L84, L218 medium and heavy guns at a Tercio, not canister
DEEP_TARGET_GUNS = ("medium", "heavy")
COVER_SAVE = (6, 5)        # [7 C] L79, L212 "lanciano 1 d6: con 5 e 6 non vengono disordinati"
COVER_KINDS = ("woods", "wall", "defences", "town")   # L79 woods, walls, defences; town HERALD D18
GUN_EXPLOSION = (1, 6, 1)  # [7 E] L82 a natural "1", then another d6: "1" = the gun explodes
VISIBILITY_BANDS = ("short",)   # [15] 1 L160 "Consentito solo il tiro a distanza breve"
GENERAL_EXPOSED = 10.0     # [9 C] L101 a general may be shot "se dista più di 10 cm da un'unità amica"


# == melee [8], [Tabella riassuntiva] L214-228 =================================================

FLANK_DIE = 3              # [8 C] L92, L214 attacker on a flank adds 1d3
TERCIO_DIE = 3             # [12 F] L124, L222 a Tercio always adds 1d3
GENERAL_SUPPORT_DIE = 3    # [8 D] L93, L224 a general touching his own bases in melee adds 1d3
RETREAT_DISTANCE = 5.0     # [8 E] L94 "deve ritirarsi di 5 cm, fronte al nemico"
DISENGAGE_DICE = (2, 6)    # [8 E] L94 cavalry disengaging from infantry: move minus 2D6
# attackers per face [8 A] L90: one per side; P&S two on the front and two on the rear [12 E] L120
# (or one P&S / Tercio); a Tercio two per side [12 F] L124.
ATTACKERS_PER_FACE = {"default": {"front": 1, "rear": 1, "left": 1, "right": 1},
                      "pike_and_shot": {"front": 2, "rear": 2, "left": 1, "right": 1},
                      "late_pike_and_shot": {"front": 2, "rear": 2, "left": 1, "right": 1},
                      "tercio": {"front": 2, "rear": 2, "left": 2, "right": 2}}
# ties [8 B] L91 "Se Cavallerie, P&S o Picchieri attaccano in salita e pareggiano ... disordinate";
# L220 "Se in attacco in salita, o Cavallerie o Picchieri in attacco in boschi: in caso di parità =
# attaccanti disordinati" (HERALD D19: both read together).
TIE_UPHILL_ARMS = ("cavalry",)
TIE_UPHILL_TYPES = ("pike_and_shot", "late_pike_and_shot", "tercio", "pikemen")
TIE_WOODS_TYPES = ("pikemen",)                                        # with every cavalry type
# [9 B] L100 artillery disordered again in melee: 1d6, 1-3 spiked (destroyed), 4-6 captured
GUN_CAPTURE = {"die": 6, "spiked": (1, 3), "captured": (4, 6)}


# == command: control points [4], [11 A] =======================================================

DISCIPLINES = ("trained", "regular", "irregular")
# [4 E] L58 "se l'esercito è Addestrato, il giocatore lancia un D8, se l'esercito è regolare, lancia
# un D6, se Irregolare, lancia un D4"; L202 the same.
CPT_DICE = {"trained": 8, "regular": 6, "irregular": 4}
# [4 E] L60 large armies: wing generals "un Dado pari ad un livello inferiore ... (esercito
# addestrato D6, esercito regolare D4, esercito irregolare D3)".
WING_CPT_DICE = {"trained": 6, "regular": 4, "irregular": 3}
COMMAND_RADIUS = 40.0      # [4 C] L52 "o che disti oltre 40 cm"
VISIBILITY_CPT_MODIFIER = -1   # [15] 1 L160 "Sottrarre 1 a tutti i lanci di dado per il numero di Cpts"

# [4 C] L52, [4 D] L54, [5 D] L67, [6 C] L73, [11 A] L110, [12 C] L118. "general_away": the general
# is dead, in contact with enemy bases or more than 40 cm away.
CPT_COSTS = {
    "move": 1,                        # [4 C] L52 "Muovere un'unità od un gruppo costa 1 Cpt"
    "move_general_away": 2,           # [4 C] L52 "... nel qual caso il movimento costa 2 Cpt"
    "forced_march_extra": 1,          # [4 D] L54 "1 Cpt extra per un'unità", single units only
    "about_face": 1,                  # [5 D] L67 "dev'essere 'speso' 1 Cpt"
    "artillery_pivot": 1,             # [6 C] L73 "al costo di 1 cpt"
    "general": 0,                     # [4 A] L48, [4 C] L52 "Il Generale può muovere senza alcuna spesa"
    "dragoons_mount": 0,              # [12 C] L118 "'Montare' e 'smontare' non richiede Cpts"
    "demoralised_move": 2,            # [11 A] L110 "costa 2 Cpts"
    "demoralised_general_away": 3,    # [11 A] L110 "il costo sale a 3 Cpts"
    "demoralised_to_own_edge": 1,     # [11 A] L110 "direttamente verso il proprio bordo ... 1 Cpt"
}
FORCED_MARCH_FACTOR = 2    # [4 D] L54 "velocità doppia" (no triple speed, not for groups)
SURPRISE_MARCH_FACTOR = 3  # [15] 3 L162 "triplicare la propria velocità"


def cpt_die(discipline: str, role: str = "cinc") -> int:
    """The Cpt die [4 E] L58: trained d8, regular d6, irregular d4; a wing general of the
    large-army rule one level lower (d6 / d4 / d3) [4 E] L60."""
    return (WING_CPT_DICE if role == "wing" else CPT_DICE)[discipline]


def move_cost(*, demoralised: bool = False, general_away: bool = False,
              to_own_edge: bool = False, forced: bool = False) -> int:
    """The Cpts of one move of a unit or group [4 C-D], [11 A] (the table CPT_COSTS)."""
    if demoralised and to_own_edge:
        base = CPT_COSTS["demoralised_to_own_edge"]
    elif demoralised:
        base = CPT_COSTS["demoralised_general_away" if general_away else "demoralised_move"]
    else:
        base = CPT_COSTS["move_general_away" if general_away else "move"]
    return base + (CPT_COSTS["forced_march_extra"] if forced else 0)


# == movement [5], [6] ==========================================================================

MAX_TURN = 45.0            # [5 A] L64 "La rotazione massima per turno è di 45°" (HERALD D4)
ARTILLERY_PIVOT_MAX = 45.0  # [6 C] L73 "ruotare sul posto al massimo di 45° per mossa"
WOUNDED_GENERAL_MOVE = 10.0  # [9 C] L101 "potrà muovere al massimo di 10 cm per mossa"
GENERAL_WITHDRAW = 5.0     # [9 C] L101 "si ritira dalla mischia muovendo 5 cm"
ROAD_FACTOR = 2            # [5 B] L65 start and end on the road: double move
# [5 B] L65: entering woods, marsh or a town stops the base; later turns inside, the move is cut by
# 1d6 (infantry, general) or 2d6 (cavalry). A ford stops it; next move 1d6 off.
TERRAIN_MOVE = {
    "woods": {"stops": True, "dice": {"infantry": 1, "general": 1, "cavalry": 2}, "line": "L65"},
    "marsh": {"stops": True, "dice": {"infantry": 1, "general": 1}, "line": "L65",
              "only": ("infantry", "general")},
    "town": {"stops": True, "dice": {"infantry": 1, "general": 1, "cavalry": 2}, "line": "L65"},
    "ford": {"stops": True, "dice": {"infantry": 1, "general": 1, "cavalry": 1}, "line": "L65"},
}
IMPASSABLE_WATER = ("river", "stream")   # [5 B] L65 crossed only at bridges or fords
NO_ARTILLERY = ("woods", "marsh")        # [6 A] L71 "tranne che su strada"
TOWN_OCCUPANTS = tuple(k for k, t in TROOPS.items() if t.occupies_towns)


# == rally [10] ==================================================================================

RALLY_DIE = 8              # [10 A] L105 "Lanciare 1d8 per ciascuna unità"
# [10 A] L105 "con 7-8 se l'esercito è 'Irregolare', con 6-8 se è 'Regolare', con 5-8 se
# 'Addestrato'"; L230 the same.
RALLY_TARGET = {"trained": 5, "regular": 6, "irregular": 7}
RALLY_GENERAL_DIE = 3      # [10 A] L105 "Se il generale è aggregato sommare il risultato di 1d3"
RALLY_ENEMY_NEAR = 10.0    # [10 A] L106 "un nemico entro 10 cm": -1
RALLY_PENALTY = -1         # L106 enemy within 10 cm / short-range medium-heavy artillery fire
DEMORALISED_RALLY = -1     # [11 A] L110 "sottraggono '1' al lancio di dado per la riorganizzazione"


# == generals at risk [9 C], [Tabella riassuntiva] L226-228 ====================================

@dataclass(frozen=True)
class RiskRow:
    low: int
    high: int
    result: str                # no_effect / wounded / killed
    text: str


# [9 C] L101, L226 "1d8: 1-2 'Nessun effetto', Generale si ritira dalla mischia, 5 cm.; 3-5
# Generale Ferito ...; 6-8 Generale ucciso"
GENERAL_RISK_MELEE = (
    RiskRow(1, 2, "no_effect", "no effect: the general withdraws 5 cm from the melee"),
    RiskRow(3, 5, "wounded", "wounded: at most 10 cm a move; a second wound kills"),
    RiskRow(6, 8, "killed", "killed: removed from play"),
)
# [9 C] L101, L228 "se colpito, 1d8: 1-5 = nessun effetto, 6-7 = ferito, 8 = ucciso"
GENERAL_RISK_FIRE = (
    RiskRow(1, 5, "no_effect", "no effect"),
    RiskRow(6, 7, "wounded", "wounded: at most 10 cm a move; a second wound kills"),
    RiskRow(8, 8, "killed", "killed: removed from play"),
)
GENERAL_RISK_DIE = 8


def general_risk(table: tuple[RiskRow, ...], roll: int) -> RiskRow:
    """The row of a general-risk table for a d8 roll [9 C]."""
    for row in table:
        if row.low <= roll <= row.high:
            return row
    raise ValueError(f"a d8 roll is 1-8, not {roll}")


# == demoralisation and victory [11], [12 A-B], [14] ===========================================

# [11 B-C] L111-112: the counting weights (troop types' `weight`, generals by role).
WEIGHTS = {
    "unit": 1,
    "pike_and_shot": 2, "late_pike_and_shot": 2,     # [11 C] L112 "unità P&S contano come 2 unità"
    "tercio": 3,                                      # [11 C] L112 "i tercios come 3 unità"
    "cinc": 2,                                        # [11 B] L111 "il generale in capo ... 2 unità"
    "sub": 1, "wing": 1,                              # [11 B] L111 "un sub-comandante ... 1 unità"
}
# [12 A] L116 a camp, when captured, counts as "2 basette se l'esercito è addestrato, 3 se regolare,
# 5 se irregolare" (only in the losses, never in the base total: HERALD D22).
CAMP_VALUE = {"trained": 2, "regular": 3, "irregular": 5}
LOOT_EXIT = {"die": 6, "stay": (1, 3), "general_bonus": 1}   # [12 A] L116
DEMORALISATION_PERCENT = 40   # [11 A] L110 "il 40% (arrotondato per eccesso)"
VICTORY_PERCENT = 60          # [14 A] L151 "elimina il 60% delle unità nemiche"
# [14 A] L151 victory level by the winner's own losses: < 30% decisive, 30-40% partial, > 40%
# Pyrrhic.
VICTORY_LEVELS = (("decisive", 0, 30), ("partial", 30, 40), ("pyrrhic", 40, 100))


def percent_of(total: int, percent: int) -> int:
    """`percent`% of `total`, rounded up [11 A] L110 ("arrotondato per eccesso"): 40% of 31 is 13
    (12.4 up); exact in integers."""
    return -(-total * percent // 100)


def demoralisation_threshold(total: int) -> int:
    """Weighted losses that demoralise an army of `total` weighted units [11 A] (40%, rounded up)."""
    return percent_of(total, DEMORALISATION_PERCENT)


def victory_threshold(total: int) -> int:
    """Weighted enemy losses that win [14 A] (60% of the enemy's total, rounded up like [11 A]:
    HERALD D22)."""
    return percent_of(total, VICTORY_PERCENT)


def victory_level(own_lost: int, own_total: int) -> str:
    """[14 A] L151: decisive when the winner lost less than 30% of his units, partial from 30 to
    40% (inclusive), Pyrrhic above 40%."""
    pct = 100 * own_lost / own_total if own_total else 0
    if pct < 30:
        return "decisive"
    if pct <= 40:
        return "partial"
    return "pyrrhic"


# == the cards [3], [13] =========================================================================

@dataclass(frozen=True)
class Card:
    id: str                    # engine.lion.state.CARDS
    kind: str                  # move / shoot / combat / rally / end
    player: str                # "A" / "B" / "" (the end card)
    text: str                  # [13]'s list, L131-147
    printed: str               # the printed card at the end of the file, L261-299
    english: str
    line: str


CARDS = {c.id: c for c in (
    Card("combat_a", "combat", "A", 'Giocatore A inizia il combattimento',
         '"A" Inizia il combattimento', "Player A begins combat", "L131; L265"),
    Card("combat_b", "combat", "B", 'Giocatore B inizia il combattimento',
         '"B" Inizia il combattimento', "Player B begins combat", "L133; L281"),
    Card("rally_a", "rally", "A", 'Giocatore A tenta la riorganizzazione',
         '"A" tenta la riorganizzazione', "Player A attempts to rally", "L135; L285"),
    Card("rally_b", "rally", "B", 'Giocatore B tenta la riorganizzazione',
         '"B" tenta la riorganizzazione', "Player B attempts to rally", "L137; L289"),
    Card("shoot_a", "shoot", "A", 'Giocatore A spara', '"A" Spara', "Player A shoots",
         "L139; L261"),
    Card("shoot_b", "shoot", "B", 'Giocatore B spara', '"B" Spara', "Player B shoots",
         "L141; L277"),
    Card("move_a", "move", "A",
         "Giocatore A lancia i dadi per i Cpts e muove. Il Giocatore B, poi, spara contro le "
         "unità nemiche giunte a contatto sul proprio fronte.",
         '"A" lancia i dadi per i Cpts e muove. Il Giocatore B, poi, spara contro le unità nemiche '
         'giunte a contatto sul proprio fronte.',
         "Player A rolls for Cpts and moves; then player B shoots at the enemy units that came "
         "into contact on his front", "L143; L269"),
    Card("move_b", "move", "B",
         "Giocatore B lancia i dadi per i Cpts e muove. Il Giocatore A, poi, spara contro le "
         "unità nemiche giunte a contatto sul proprio fronte.",
         '"B" lancia i dadi per i Cpts e muove. Il Giocatore A, poi, spara contro le unità nemiche '
         'giunte a contatto sul proprio fronte.',
         "Player B rolls for Cpts and moves; then player A shoots at the enemy units that came "
         "into contact on his front", "L145; L273"),
    Card("end", "end", "",
         "Lanciare 1d6. 1-4=Il turno continua: pescare un'altra carta. 5=Consultare la tabella "
         "degli eventi casuali, poi pescare un'altra carta. 6=Il turno termina. Mischiare il "
         "mazzo di carte e ricominciare",
         "Lanciare 1d6. 1-4=Il turno continua: pescare un'altra carta. 5=Consultare la tabella "
         "degli eventi casuali, poi pescare un'altra carta. 6=Il turno termina. Mischiare il "
         "mazzo di carte e ricominciare",
         "Roll 1d6: 1-4 the turn goes on, draw another card; 5 roll on the random events table, "
         "then draw another card; 6 the turn ends: shuffle the deck and start again",
         "L147; L291-299"),
)}
# The end card's d6 [13] L147: faces -> what happens.
END_CARD = {"die": 6, "continue": (1, 4), "event": (5, 5), "end_turn": (6, 6)}


def end_card_result(roll: int) -> str:
    """"continue" (1-4), "event" (5) or "end_turn" (6) for the end card's d6 [13] L147."""
    if 1 <= roll <= 4:
        return "continue"
    if roll == 5:
        return "event"
    if roll == 6:
        return "end_turn"
    raise ValueError(f"a d6 roll is 1-6, not {roll}")


# == random events [15] L154-165 ================================================================

@dataclass(frozen=True)
class RandomEvent:
    roll: int
    key: str
    name: str
    italian: str
    text: str                  # Herald's English statement
    duration: str              # how long it lasts (HERALD D23 for "le prossime due mosse")
    line: str
    turns: int = 0             # turns it lasts, the current turn counting as the first (0: see text)
    dice: str = ""             # the dice it rolls


RANDOM_EVENTS = {e.roll: e for e in (
    RandomEvent(1, "limited_visibility", "Limited visibility", "Visibilità limitata",
                "Only short-range shooting; -1 to every Cpt roll. At the start of each later turn "
                "roll 1d6: 1-3 it stays (test again next turn), 4-6 visibility is normal again.",
                "until a start-of-turn d6 of 4-6", "L160", dice="1d6 each later turn"),
    RandomEvent(2, "sunset", "Sunset", "Tramonto",
                "Roll 2d6: the game ends after that many turns. The first Sunset may be ignored "
                "if both players agree.", "2d6 turns, then the game ends", "L161", dice="2d6"),
    RandomEvent(3, "surprise_march", "Surprise march", "Marcia a Sorpresa",
                "Each player rolls a die, the higher wins (reroll ties); the winner rolls 1d4: "
                "that many single units may triple their speed this turn or the next.",
                "this turn or the next", "L162", turns=2, dice="1d6 each, then 1d4"),
    RandomEvent(4, "reinforcements", "Reinforcements", "Rinforzi",
                "Each player rolls a die, the higher wins (reroll ties); the winner rolls 1d4 and "
                "brings back that many of his bases destroyed by the enemy (not artillery or "
                "generals), placed within 10 cm of his own table edge.",
                "at once", "L163", dice="1d6 each, then 1d4"),
    RandomEvent(5, "light_rain", "Light rain", "Pioggia leggera",
                "For the next two moves firearms shoot with a die one size lower.",
                "the rest of this turn and the next turn", "L164", turns=2),
    RandomEvent(6, "heavy_rain", "Heavy rain", "Pioggia forte",
                "For the next two moves firearms do not shoot and march speeds are halved.",
                "the rest of this turn and the next turn", "L165", turns=2),
)}
VISIBILITY_CLEARS = (4, 6)         # [15] 1 L160 "4-6 = La visibilità torna normale"
SUNSET_DICE = (2, 6)               # [15] 2 L161 "Lanciare 2d6"
EVENT_WINNER_DIE = 6               # [15] 3-4 "lanciando ciascuno 1 dado" (HERALD D9: a d6)
EVENT_UNITS_DIE = 4                # [15] 3-4 "lancia 1d4"
REINFORCEMENT_ZONE = 10.0          # [15] 4 L163 "entro 10 cm dal proprio bordo tavolo"
REINFORCEMENT_EXCLUDED_ARMS = ("artillery", "general")


def random_event(roll: int) -> RandomEvent:
    """The random event for a d6 roll [15]."""
    try:
        return RANDOM_EVENTS[roll]
    except KeyError:
        raise ValueError(f"a d6 roll is 1-6, not {roll}") from None


# == the table (HERALD D1) =======================================================================

TABLE_WIDTH = 180.0
TABLE_HEIGHT = 120.0
DEPLOYMENT_DEPTH = 30.0     # HERALD D24: a side deploys within 30 cm of its home edge
DEFAULT_TURN_LIMIT = 12     # HERALD D25: the game ends after turn 12 if no Sunset ended it
