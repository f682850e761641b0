"""The Italian Wars rules (the Italian text, `rules/italian-wars.it.txt`): command and the turn
as data (digest §2.12-2.15, §3, §4.1-4.6, §4.10-4.12, §4.17): battle cohesion ("Coesione delle
battaglie" L115-122), the army's break point and camp ("Punto di rottura dell'esercito" L123-131,
"Accampamento" L236-240), the treasury and sworn enemies ("Tesoro" L93-95, "Nemici giurati"
L96-97), the orders ("Ordini" L132-160), their interpretation ("Interpretazione degli ordini"
L298-315, "Tabella 5" L304-309), battle activation ("Attivazione delle battaglie", "Tabella 6"
L326-344) and the sequence of play ("Prima della battaglia" L242-274, "Sequenza di mossa"
L275-291), with disorder ("Disordine" L98-111), skirmishers (L161-170) and the responses to a
charge (L349-358).

Part of engine/italianwars/tables.py (which re-exports every name here); its principles apply:
each value cites the text's lines, Herald's readings are marked "HERALD D<n>"
(engine/italianwars/DECISIONS.md). Distances are UDM (HERALD D1), dice d6 (HERALD D5).

Pure data and functions: standard library and engine.core only; no I/O, discord, sqlite, Pillow.
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.core.table.geometry import Footprint
from engine.italianwars.tables_army import MORALE, MORALE_ALIASES, _check_d6, command_points


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
