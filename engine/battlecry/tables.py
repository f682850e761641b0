"""Battle Cry tables as data (DESIGN principle 4). Section numbers follow the digest
(`rules/digests/battle-cry.md`), which maps the Italian text; FAQ rulings from
`rules/supplements.md` §2.3 are marked "FAQ".

Values the text does not give are Herald completion, each marked HERALD with the reason.
"""
from __future__ import annotations

from dataclasses import dataclass

SIDES = ("union", "confederate")
UNIT_KINDS = ("infantry", "cavalry", "artillery")
PIECE_KINDS = UNIT_KINDS + ("general",)

# --- BC §1 / §5.2: the battle die --------------------------------------------------------------
# Six stickers: 2 Infantry, 1 Cavalry, 1 Artillery, 1 Flag, 1 Crossed Sabres.
# HERALD: the numbering of faces 1..6 is ours (used to enter physical dice by number).
DIE_FACES = {1: "infantry", 2: "infantry", 3: "cavalry", 4: "artillery", 5: "flag", 6: "sabres"}
FACE_SYMBOLS = {"infantry": "🪖", "cavalry": "🐎", "artillery": "💣", "flag": "🚩", "sabres": "⚔️"}
FACE_LETTERS = {"infantry": "I", "cavalry": "C", "artillery": "A", "flag": "F", "sabres": "S"}
FACE_BY_LETTER = {"i": 1, "c": 3, "a": 4, "f": 5, "s": 6}
# what `dice=` and /dice read as each face (the engine's numbers 1-6 are read as well)
DIE_FACE_WORDS = {"infantry": 1, "cavalry": 3, "artillery": 4, "flag": 5, "sabres": 6,
                  "inf": 1, "cav": 3, "art": 4, "sabre": 6, "saber": 6, "sabers": 6, "swords": 6,
                  **FACE_BY_LETTER}

# --- BC §2.1: figures per unit -----------------------------------------------------------------
FULL_FIGURES = {"infantry": 4, "cavalry": 3, "artillery": 2, "general": 1}

# --- BC §4.2 / §5.1: movement table ------------------------------------------------------------
# (hexes, may battle after moving)
MOVEMENT = {
    "infantry": (1, True),
    "cavalry": (3, True),
    "artillery": (1, False),
    "general": (3, True),
    # BC §7 scenario 8/14: horse artillery moves 2, or moves 1 and fires.
    "horse_artillery": (2, True),
}
FORCE_MARCH_INFANTRY_MOVE = 2  # BC §2.4 card 10

# --- BC §4.4.1: battle dice by range (index 0 = adjacent) ---------------------------------------
BATTLE_DICE = {
    "infantry": (4, 3, 2, 1),
    "artillery": (5, 4, 3, 2, 1),
    "artillery_on_hill": (5, 4, 3, 2, 1, 1),
    "cavalry": (3,),
    # FAQ (supplements §2.3): horse artillery 4-3-2-1, VMI cadets 3-2-1.
    "horse_artillery": (4, 3, 2, 1),
    "vmi": (3, 2, 1),
}


@dataclass(frozen=True)
class Terrain:
    """One terrain type of BC §2.3."""
    name: str
    stop_on_entry: bool = False     # must stop on entering
    no_battle_after_entry: bool = False
    impassable: bool = False
    blocks_los: bool = False
    target_dice: int = 0            # dice change when battling a unit in this hex
    attacker_dice: int = 0          # dice change for a unit battling FROM this hex
    section: str = "BC §2.3"

    @property
    def label(self) -> str:
        """The name players read ("Devil's Den", "woods")."""
        return "Devil's Den" if self.name == "devils_den" else self.name.replace("_", " ")


TERRAIN = {
    "clear": Terrain("clear"),
    "woods": Terrain("woods", stop_on_entry=True, no_battle_after_entry=True, blocks_los=True,
                     target_dice=-1),
    "orchard": Terrain("orchard", target_dice=-1),
    "hill": Terrain("hill", blocks_los=True, target_dice=-1),
    "field": Terrain("field", blocks_los=True, target_dice=-1),
    "building": Terrain("building", stop_on_entry=True, no_battle_after_entry=True, blocks_los=True,
                        target_dice=-2),
    # *Rovine*: "Rough" in the English original (digest §8 item 13): never entered.
    "rough": Terrain("rough", impassable=True),
    "river": Terrain("river", stop_on_entry=True, attacker_dice=-1),
    "bridge": Terrain("bridge"),
    # BC §7 scenario 11 (Devil's Den), NOTES box, battle-cry.it.txt p. 18: "Un'unità può entrare
    # nella Devil's Den ma è costretta a fermarsi e non può più combattere per quel turno" (stop,
    # no battle that turn); "Un'unità che attacca un avversario che si trova nel Devil's Den,
    # riduce di 2 il proprio numero di dadi" (-2); "Il Devil's Den blocca la linea di vista".
    # Only that scenario's map places it; like Woods it is no obstacle to a retreat (BC §4.6).
    "devils_den": Terrain("devils_den", stop_on_entry=True, no_battle_after_entry=True,
                          blocks_los=True, target_dice=-2, section="BC §7 (Gettysburg, Devil's Den)"),
}
FENCE_DICE = -1          # BC §2.3: attacker on the front side of a Fence
FIELD_WORKS_DICE = -2    # BC §2.3: replaces the underlying terrain's reduction, unless from the rear
FIELD_WORKS_SUPPLY = 6   # HERALD: the 2000 box holds 6 Field-work tokens (digest §2.4); the cap.
GENERAL_DICE = 1         # BC §4.7
LEADERSHIP_GENERAL_DICE = 2  # BC §2.4 card 12

# --- BC §1 sections ----------------------------------------------------------------------------
# HERALD (digest §8 item 2): the board is read as the Commands & Colors family board: 9 rows,
# rows 1,3,5,7,9 of 13 hexes and rows 2,4,6,8 of 12 hexes shoved half a hex right. The two dashed
# lines run 4.5 and 8.5 hex-widths from the west edge: they split hexes 05 and 09 of the 13-hex
# rows and run along hexsides in the 12-hex rows. Sections are stored by compass ("west",
# "centre", "east"); each player's "left" is the west for the side whose home edge is south.
BOARD_COLS, BOARD_ROWS = 13, 9


def board_sections(col0: int, row0: int) -> tuple[str, ...]:
    """Compass sections of a hex (0-based column and row): one, or two for a split hex."""
    if row0 % 2 == 0:                       # 13-hex row, centres at 0.5 .. 12.5
        centre_x = col0 + 0.5
    else:                                   # 12-hex row, centres at 1.0 .. 12.0
        centre_x = col0 + 1.0
    out = []
    if centre_x <= 4.5:
        out.append("west")
    if 4.5 <= centre_x <= 8.5:
        out.append("centre")
    if centre_x >= 8.5:
        out.append("east")
    return tuple(out)


# --- BC §2.4: the command cards -------------------------------------------------------------------
@dataclass(frozen=True)
class CardType:
    id: str
    name: str
    italian: str
    kind: str                 # "section" or "tactic"
    text: str
    orders: int | None = None  # section cards: how many units (None = all)
    section: str | None = None  # "left" / "centre" / "right" for section cards


SECTION_CARD_BASE = {
    # id: (name, italian, orders)
    "skirmish": ("Skirmish", "Schermaglia", 1),
    "probe": ("Probe", "Esploratori", 2),
    "attack": ("Attack", "Attacco", 3),
    "assault": ("Assault", "Assalto", None),
}

TACTIC_CARDS = {
    "all-out-offensive": ("All-Out Offensive", "Offensiva Totale",
                          "Order all units and Generals. Then reshuffle this card with the deck "
                          "and all discards, and draw."),
    "bombard": ("Bombard", "Bombardamento",
                "Order all artillery. Each may battle twice or move twice."),
    "call-for-reinforcements": ("Call for Reinforcements", "Richiesta di Rinforzi",
                                "Roll one die: the unit type shown arrives (Flag: any type; "
                                "Sabres: none) on a lone General or on your own edge. It may "
                                "battle but not move this turn."),
    "construct-field-works": ("Construct Field-Works", "Costruzione di Trincee",
                              "Order 2 infantry or artillery: place Field-works on their hexes "
                              "(not Rivers). They may not move or battle."),
    "coordinated-attack": ("Coordinated Attack", "Attacco Coordinato",
                           "Order one unit or General in each section."),
    "counter-attack": ("Counter-Attack", "Contrattacco",
                       "Repeat the opponent's last order, left and right swapped."),
    "fire-and-hold": ("Fire and Hold Position", "Sparare e Tenere la Posizione",
                      "Order all infantry and artillery in one section: they battle, not move."),
    "force-march": ("Force March", "Marcia Forzata",
                    "Order the infantry in one section: each may move 2 hexes and battle."),
    "hit-and-run": ("Hit and Run", "Colpire e Scappare",
                    "Order all cavalry: each may move, battle and move again."),
    "leadership": ("Leadership", "Comando",
                   "Order all Generals; attached units move and battle with them at +2 dice."),
    "rally": ("Rally", "Recupero",
              "Order one unit with losses: roll one die per card in hand (this one included); "
              "each die of its type returns a figure. It may battle but not move."),
    "sharp-shooter": ("Sharp Shooter", "Cecchino",
                      "Target any enemy General: roll one die, Crossed Sabres eliminate it."),
    "short-of-supplies": ("Short of Supplies", "Scarsità di Rifornimenti",
                          "One unit (yours or the enemy's) falls back to an empty hex toward its "
                          "own edge in its section, and may not battle this turn."),
}

CARD_TYPES: dict[str, CardType] = {}
for _base, (_name, _it, _n) in SECTION_CARD_BASE.items():
    for _sec in ("left", "centre", "right"):
        _text = (f"Order {'all' if _n is None else _n} unit{'s' if _n != 1 else ''} or General"
                 f"{'s' if _n != 1 else ''} on your {_sec} {'flank' if _sec != 'centre' else ''}")
        CARD_TYPES[f"{_base}-{_sec}"] = CardType(f"{_base}-{_sec}", f"{_name} {_sec.title()}", _it,
                                                 "section", _text.replace("  ", " ").strip() + ".",
                                                 orders=_n, section=_sec)
for _id, (_name, _it, _text) in TACTIC_CARDS.items():
    CARD_TYPES[_id] = CardType(_id, _name, _it, "tactic", _text)

# HERALD (digest §8 item 20): the text gives no per-card counts. The 2000 box held 60 command
# cards; the split below is ours (section cards weighted to the centre, as the board is), kept
# as data so a club can swap in the printed counts.
DECK_COUNTS = {
    "skirmish-left": 2, "skirmish-centre": 4, "skirmish-right": 2,
    "probe-left": 3, "probe-centre": 4, "probe-right": 3,
    "attack-left": 3, "attack-centre": 4, "attack-right": 3,
    "assault-left": 1, "assault-centre": 2, "assault-right": 1,
    "coordinated-attack": 3, "all-out-offensive": 1, "bombard": 2,
    "call-for-reinforcements": 2, "construct-field-works": 2, "counter-attack": 2,
    "fire-and-hold": 3, "force-march": 3, "hit-and-run": 2, "leadership": 2, "rally": 2,
    "sharp-shooter": 2, "short-of-supplies": 2,
}
assert sum(DECK_COUNTS.values()) == 60, "the 2000 box held 60 command cards"

FLAGS_TO_WIN = 6  # BC §6


def mirror_section(section: str) -> str:
    """BC §2.4 card 8 (Counter-Attack): right flank becomes left flank and vice versa."""
    return {"left": "right", "right": "left"}.get(section, section)
