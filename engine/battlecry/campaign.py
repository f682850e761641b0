"""Campaign Flags and the balancing pair of games (BC §6 "Campagne", "Bilanciare gli Scenari").

BC §6 (battle-cry.it.txt p. 10-11; digest §5.3, §6): the winner of a scenario gains Campaign
Flags = the flags he captured - the flags his opponent captured. "Balancing the scenarios": in a
lopsided scenario the players play it twice, swapping sides after the first game, and the winner
is whoever holds the most Campaign Flags after both battles.

A Battle Cry game may therefore be created with the game option `seats`, which records which
seat (a player's name or id, any non-empty text) plays which side, and `leg` (1 or 2), which game
of the pair it is. `swapped_options` gives the options of the return game, `pair_result` adds the
Campaign Flags of both games per seat. Full campaigns (at least three battles, the flag supply)
are a later issue; this module only keeps the arithmetic and the record.

Everything here is pure: no state is changed.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from . import tables

OPTION_KEYS = ("seats", "leg")


class OptionError(ValueError):
    """A game option is malformed; the message names the option and the rule."""


def campaign_flags(winner_flags: int, loser_flags: int) -> int:
    """BC §6 "Giocare una Campagna" (digest §5.3): Campaign Flags gained by the scenario's winner
    = flags captured by the winner - flags captured by the opponent.

    HERALD (digest §8, text defects: the minus sign was lost in extraction; subtraction is the
    only reading): a winner never gains fewer than 0 Campaign Flags, which can only arise when
    a battle ends by resignation or by an army leaving the field before 6 flags."""
    for name, value in (("winner_flags", winner_flags), ("loser_flags", loser_flags)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise OptionError(f"{name} must be a count of flags (0 or more), got {value!r} (BC §6)")
    return max(0, winner_flags - loser_flags)


def validate_options(options: Mapping[str, Any] | None) -> dict[str, Any]:
    """Check and normalise a Battle Cry game's options; {} when there are none.

    `seats`: {"union": seat, "confederate": seat}, two different non-empty texts.
    `leg`: 1 (first game of a balancing pair) or 2 (the return game, sides swapped); defaults to 1
    when seats are given."""
    if not options:
        return {}
    if not isinstance(options, Mapping):
        raise OptionError("game options must be a table of option = value")
    unknown = [k for k in options if k not in OPTION_KEYS]
    if unknown:
        raise OptionError(f"unknown Battle Cry game option '{unknown[0]}' "
                          f"(known: {', '.join(OPTION_KEYS)})")
    out: dict[str, Any] = {}
    seats = options.get("seats")
    if seats is not None:
        if not isinstance(seats, Mapping) or set(seats) != set(tables.SIDES):
            raise OptionError("option 'seats' names the seat of each side: "
                              "{union = \"...\", confederate = \"...\"} (BC §6 Balancing)")
        clean = {}
        for side in tables.SIDES:
            who = seats[side]
            if not isinstance(who, (str, int)) or isinstance(who, bool) or not str(who).strip():
                raise OptionError(f"option 'seats': the {side} seat must be a player's name or id")
            clean[side] = str(who).strip()
        if clean["union"] == clean["confederate"]:
            raise OptionError("option 'seats': one seat cannot play both sides (BC §6 Balancing)")
        out["seats"] = clean
    if "leg" in options:
        leg = options["leg"]
        if leg not in (1, 2) or isinstance(leg, bool):
            raise OptionError(f"option 'leg' is 1 or 2 (the first game or the return game with sides "
                              f"swapped, BC §6 Balancing), got {leg!r}")
        if "seats" not in out:
            raise OptionError("option 'leg' needs 'seats': the return game swaps who plays which side")
        out["leg"] = leg
    elif "seats" in out:
        out["leg"] = 1
    return out


def swapped_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """BC §6 Balancing: the options of the return game, each seat playing the other side."""
    opts = validate_options(options)
    if "seats" not in opts:
        raise OptionError("only a game created with 'seats' can be played again with sides swapped")
    if opts["leg"] != 1:
        raise OptionError("the balancing pair is two games; this is already the return game")
    seats = opts["seats"]
    return {"seats": {"union": seats["confederate"], "confederate": seats["union"]}, "leg": 2}


def seat_of(options: Mapping[str, Any], side: str | None) -> str | None:
    """The seat that plays `side` in a game with these options (None without seats)."""
    seats = (options or {}).get("seats") or {}
    return seats.get(side) if side else None


def game_report(winner: str | None, flags: Mapping[str, int],
                options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What the end of a game reports for the Campaign: the winner, the flags of both sides, the
    Campaign Flags the winner gains (BC §6, digest §5.3), and with `seats` the seats, the leg
    and the winning seat."""
    report: dict[str, Any] = {"winner": winner if winner in tables.SIDES else None,
                              "flags": dict(flags), "campaign_flags": 0}
    if report["winner"] is not None:
        loser = "confederate" if winner == "union" else "union"
        report["campaign_flags"] = campaign_flags(flags[winner], flags[loser])
    if options and options.get("seats"):
        report["seats"] = dict(options["seats"])
        report["leg"] = options.get("leg", 1)
        report["winner_seat"] = seat_of(options, report["winner"])
    return report


def pair_result(reports: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """BC §6 Balancing: add up the Campaign Flags of the two games per seat. Returns
    {"campaign_flags": {seat: n}, "winner": seat, or None on a tie}.

    Each report is the `game_report` of a finished game played with `seats`; the two must be
    legs 1 and 2 of one pair: the same two seats, sides swapped."""
    if len(reports) != 2:
        raise OptionError("a balancing pair is exactly two games (BC §6 Balancing)")
    by_leg = {r.get("leg"): r for r in reports}
    if set(by_leg) != {1, 2} or not all(r.get("seats") for r in reports):
        raise OptionError("a balancing pair is leg 1 and leg 2, each played with seats (BC §6 Balancing)")
    first, second = by_leg[1]["seats"], by_leg[2]["seats"]
    if second != {"union": first["confederate"], "confederate": first["union"]}:
        raise OptionError("the return game must swap the sides of the same two seats (BC §6 Balancing)")
    totals = {first["union"]: 0, first["confederate"]: 0}
    for leg in (1, 2):
        r = by_leg[leg]
        if r.get("winner") is not None:
            totals[r["winner_seat"]] += int(r["campaign_flags"])
    a, b = totals.values()
    winner = None if a == b else max(totals, key=totals.get)
    return {"campaign_flags": totals, "winner": winner}
