"""Keys of `games.options` (a JSON object per game) that more than one module reads.

A leaf of bot/ (DESIGN "Layers, one way"): the service writes some of these keys and the club
features others, and each reads what the other wrote, so the names live below both. A key that
only one module uses stays in that module.
"""
from __future__ import annotations

GAME_OPTIONS = "game_options"            # the optional rules chosen at creation (bot/service.py)
REMATCH_OF = "rematch_of"                # a return game: the id of its first game (BC §6 Balancing)
STARTED_AT = "started_at"                # when /game start ran (bot/service.py; turn clocks)
SNAPSHOT_REPAIRED = "snapshot_repaired"  # a snapshot that differed from the log, rebuilt from it

DEADLINE_OPTION = "decision_deadline_hours"    # bot/deadlines.py; set by GameService.set_deadline
DEADLINE_SET_AT = "decision_deadline_set_at"
MAX_DEADLINE_HOURS = 168                       # one week

PAUSED = "paused"                        # bot/club.py: {"by", "at", "reason"} while paused
CLOCK_RESTARTED = "clock_restarted_at"   # bot/club.py: waits count from here (resume, substitution)
