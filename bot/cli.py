"""The offline face of Herald: the same command language as the slash commands, from a script
file or a prompt (two players at one keyboard), writing a board PNG per action and a JSON log.

    herald play battlecry first-bull-run --seed 7            # hotseat prompt
    herald play battlecry first-bull-run --script game.txt   # a script, one command per line
    herald play ... --dice 1,5,6,2                           # dice results to use (physical dice)
    herald play --load game.json                             # continue a /game export file
    herald demo                                              # the scripted demo battle

A script line is ``side: command`` (``union: play probe left``) or just ``command``, given by the
side the rules wait on. Blank lines and ``#`` comments are skipped; ``# seed: N`` sets the seed.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Callable, Iterable, TextIO

from engine.core.commands import dice_faces, parse, split_side
from engine.core.errors import HeraldError
from engine.core.game import Game, game_options, get_ruleset, option_name, rulesets
from engine.core.pending import waiting_line
from renders import board_module

DEMO_DIR = Path(__file__).parent / "demos"


def renderer(ruleset_id: str) -> Callable | None:
    try:
        return board_module(ruleset_id).render_board
    except (ImportError, AttributeError):
        return None


def read_script(path: Path) -> tuple[str | None, list[str]]:
    """The lines of a script file and the seed its header names, if any."""
    seed, numbered = script_lines(path)
    return seed, [s for _, s in numbered]


def script_lines(path: Path) -> tuple[str | None, list[tuple[int, str]]]:
    """The commands of a script file with their line numbers, and the seed its header names.
    A file that cannot be read is a ValueError naming it (never a traceback)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read the script {path}: {getattr(exc, 'strerror', None) or exc}") from None
    seed = None
    lines = []
    for n, raw in enumerate(text.splitlines(), 1):
        s = raw.strip()
        if s.lower().startswith("# seed:"):
            seed = s.split(":", 1)[1].strip()
            continue
        if s and not s.startswith("#"):
            lines.append((n, s))
    return seed, lines


GAME_FILES = ("[0-9][0-9][0-9]-*.png", "log.json")     # what a Session writes into its folder


def holds_a_game(folder: Path) -> bool:
    return folder.is_dir() and any(next(folder.glob(pattern), None) is not None for pattern in GAME_FILES)


def fresh_folder(out: Path) -> Path:
    """The folder a new game's boards go to: `out`, or when an earlier game's boards are there,
    the first of `out-2`, `out-3`... that holds none (never one game's images beside another's)."""
    if not holds_a_game(out):
        return out
    n = 2
    while holds_a_game(out.with_name(f"{out.name}-{n}")):
        n += 1
    return out.with_name(f"{out.name}-{n}")


def clear_game(folder: Path) -> None:
    """Remove the boards and log a Session wrote into `folder` (the demo replays the same battles)."""
    for pattern in GAME_FILES:
        for path in folder.glob(pattern):
            path.unlink(missing_ok=True)


class Session:
    """One offline game: applies lines, writes PNGs and the JSON log."""

    def __init__(self, game: Game, out: Path | None, render: bool = True, echo: TextIO | None = None,
                 dice: list[int] | None = None):
        self.game, self.out, self.echo = game, out, echo or sys.stdout
        self.dice = dice or []
        self.render_fn = renderer(game.ruleset.id) if render else None
        self.count = 0
        self._drawing: list[tuple[Path, Any]] = []     # boards being drawn in the render pool
        # log.json is rewritten whole: after every command at the keyboard (hotseat), every 25 in
        # a script (a 450-command script rewrote 200 MB of JSON), and at the end (`close`)
        self.log_every = 25
        if out:
            try:
                out.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise ValueError(f"cannot write to {out}: {exc.strerror or exc}") from None
            what = "a board PNG after each action and log.json" if self.render_fn else "log.json"
            print(f"(writing {what} into {out}{'/' if not str(out).endswith('/') else ''})", file=self.echo)
            self._write_png("000-start")

    def _unwritable(self, exc: OSError) -> None:
        """The folder cannot be written any more: say so once, and play on without it."""
        print(f"! cannot write to {self.out}: {exc.strerror or exc}; the game goes on without boards or log",
              file=self.echo)
        self.out = None

    DRAWING_AHEAD = 8     # boards in the render pool at once (a few MB of PNGs waiting)

    def _write_png(self, name: str) -> None:
        """The board after this command, drawn in the render pool (renders/pool.py: one worker
        per core) while the game goes on, written when drawn; `finish` waits for the last."""
        if not (self.render_fn and self.out):
            return
        from renders.pool import job_for, shared_pool
        g = self.game
        path = self.out / f"{name}.png"
        try:
            job = job_for(g.ruleset, g.scenario, g.state)
            self._drawing.append((path, shared_pool().submit(job)))
        except Exception:                   # not picklable, no pool: draw it here
            self._drawing.append((path, None))
            self._write(path, self.render_fn(g.scenario, g.state))
        while len(self._drawing) > self.DRAWING_AHEAD:
            self._collect()

    def _collect(self) -> None:
        path, future = self._drawing.pop(0)
        if future is not None:
            self._write(path, future.result())

    def _write(self, path: Path, png: bytes) -> None:
        if self.out:
            try:
                path.write_bytes(png)
            except OSError as exc:
                self._unwritable(exc)

    def finish(self) -> None:
        """Wait for the boards still being drawn and write them."""
        while self._drawing:
            self._collect()

    def step(self, line: str) -> bool:
        """Apply one line; print the narrative or the refusal. True if accepted."""
        try:
            side, text = split_side(line, self.game.ruleset.sides)
        except HeraldError as exc:                    # `napoleon: end`: a prefix that is no side
            print(f"! {line}: refused: {exc}", file=self.echo)
            return False
        side = side or self.game.to_act
        if side is None:
            print(f"! the battle is over: {getattr(self.game.state, 'result', '')}", file=self.echo)
            return False
        if query_verb(self.game.ruleset, text):       # a question (units, a hand): answered, nothing applied
            try:
                answer = self.game.ruleset.query(self.game.scenario, self.game.state, side, parse(text))
            except HeraldError as exc:
                print(f"! {side}: {text}: refused: {exc}", file=self.echo)
                return False
            print(answer, file=self.echo)
            return True
        try:
            events = self.game.apply(side, text, dice_queue=self.dice)
        except HeraldError as exc:
            print(f"! {side}: {text}: refused: {exc}", file=self.echo)
            return False
        self.count += 1
        print(f"> {side}: {self.game.history[-1].text}", file=self.echo)
        for e in events:
            print(f"  {e.narrative}", file=self.echo)
        decision = waiting_decision(self.game)
        if decision is not None:                       # the game waits on a player: say who, and how to answer
            print(f"  ⏳ {waiting_line(decision)}", file=self.echo)
        if self.out:
            verb = text.split()[0] if text.split() else "cmd"
            self._write_png(f"{self.count:03d}-{side}-{verb}")
            if self.count % self.log_every == 0:
                self.write_log()
        return True

    def close(self) -> None:
        """The game's end (or the session's): the last boards written, and the log."""
        self.finish()
        self.write_log()

    def write_log(self) -> None:
        if not self.out:
            return
        g = self.game
        log = {"ruleset": g.ruleset.id, "scenario": g.scenario.id, "seed": g.seed, "options": g.options or [],
               "state_hash": g.state.state_hash(),
               "commands": [{"seq": i + 1, "side": r.side, "text": r.text, "dice": list(r.dice),
                             "events": [e.to_dict() for e in r.events]}
                            for i, r in enumerate(g.history)]}
        try:
            (self.out / "log.json").write_text(json.dumps(log, indent=1, ensure_ascii=False), encoding="utf-8")
        except OSError as exc:
            self._unwritable(exc)


def run_lines(session: Session, lines: Iterable[str], stop_on_error: bool = False) -> int:
    refused = 0
    for line in lines:
        if not session.step(line):
            refused += 1
            if stop_on_error:
                break
    return refused


def help_text(ruleset, scenario=None) -> str:
    """The ruleset's command language, from its declared verbs (engine/core/verbs.py): the same
    list `/act` completes and the slash commands are built from; given the battle being played,
    only the verbs it has (no Second Newbury `boatbridge` at Edgehill), and the standing policies
    with their values (engine/*/verbs.py POLICIES)."""
    from engine.core.verbs import available
    commands = getattr(ruleset, "commands", None)
    if commands is None:
        return "\n".join("  " + v for v in ruleset.verbs.values())
    lines = [f"  {v.usage}: {v.description} ({v.section})" for v in commands.verbs
             if available(v, ruleset, scenario)]
    policies = getattr(ruleset, "policies", ())
    if policies:
        lines.append("  policies: " + "; ".join(f"policy {p.kind} {'|'.join(v for v, _ in p.values)}"
                                                  for p in policies))
    lines.append("  at this prompt also: help, help <command> (its options), status (or ?), quit")
    return "\n".join(lines)


def verb_help(ruleset, word: str) -> str:
    """`help <command>`: the verb's usage and rule, then each option with what it takes (the
    declaration's own descriptions, as the slash command's options show them)."""
    commands = getattr(ruleset, "commands", None)
    verb = commands.verb(word) if commands is not None else None
    if verb is None:
        known = ", ".join(v.name for v in commands.verbs) if commands is not None else ""
        return f"  no command '{word}'" + (f"; the commands: {known}" if known else "")
    lines = [f"  {verb.usage}: {verb.description} ({verb.section})"]
    for o in verb.options:
        if o.flag:
            how = f"(optional: the word `{o.flag}`) "
        else:
            how = (f"`{o.word} ...` " if o.word else "") + ("(optional) " if not o.required else "")
        lines.append(f"    {o.name}: {how}{o.description}")
    if verb.dice:
        lines.append("    dice: (optional) your own die results, `dice=` then the results, comma separated")
    return "\n".join(lines)


def waiting_decision(game: Game):
    """The decision the game waits on (a bypass window, a retreat, a reaction), or None."""
    pending = getattr(game.ruleset, "pending", None)
    return pending(game.state) if pending is not None and game.to_act is not None else None


def query_verb(ruleset, line: str) -> bool:
    commands = getattr(ruleset, "commands", None)
    verb = commands.verb(line.split()[0]) if commands is not None and line.split() else None
    return verb is not None and verb.reply == "query"


def hotseat(session: Session, stdin: TextIO | None = None) -> None:
    g = session.game
    stdin = stdin or sys.stdin
    session.log_every = 1            # a player may stop at any command: the log is always whole
    print(g.ruleset.status(g.scenario, g.state), file=session.echo)
    while g.to_act is not None:
        side = g.to_act
        hand = getattr(g.state, "hands", {}).get(side)
        if hand is not None and g.state.phase == "card":
            print(g.ruleset.hand_text(g.state, side, g.scenario), file=session.echo)
        print(f"[{side}] > ", end="", file=session.echo, flush=True)
        try:
            line = stdin.readline()
        except KeyboardInterrupt:                   # Ctrl-C: stop here, the game so far is kept
            print("\n(interrupted)", file=session.echo)
            break
        if not line:
            break
        line = line.strip()
        if line in ("quit", "exit"):
            break
        if line in ("status", "?"):
            print(g.ruleset.status(g.scenario, g.state), file=session.echo)
            continue
        if line == "help":
            print(help_text(g.ruleset, g.scenario), file=session.echo)
            continue
        if line.startswith("help ") and len(line.split()) == 2:
            print(verb_help(g.ruleset, line.split()[1]), file=session.echo)
            continue
        if query_verb(g.ruleset, line):         # a question (a hand of cards): answered, nothing applied
            try:
                print(g.ruleset.query(g.scenario, g.state, side, parse(line)), file=session.echo)
            except HeraldError as exc:
                print(f"refused: {exc}", file=session.echo)
            continue
        if line:
            session.step(line)
    print(g.ruleset.status(g.scenario, g.state), file=session.echo)


def parse_dice(text: str | None, faces=None) -> list[int]:
    """`--dice 1,5,6` (or, for a ruleset that names its faces, `--dice flag,sabres`: `dice=`)."""
    if not text:
        return []
    try:
        return list(parse(f"x dice={text.replace(' ', '')}", faces).dice)
    except HeraldError as exc:
        raise SystemExit(f"herald: --dice: {exc}") from None


def demo(out: Path, render: bool = True, echo: TextIO | None = None) -> Game:
    """Replay every bundled demo script to its end (the README's first command runs this)."""
    last = None
    echo = echo or sys.stdout
    for script in sorted(DEMO_DIR.glob("*.txt")):
        ruleset_id, scenario_id = script.stem.split("--", 1)
        seed, lines = read_script(script)
        game = Game.new(ruleset_id, scenario_id, seed or 1)
        print(f"== demo: {game.ruleset.name}, {game.scenario.title}, seed {game.seed} ==", file=echo)
        if (out / script.stem).is_dir():
            clear_game(out / script.stem)         # the same battle again: no board of an earlier run stays
        session = Session(game, out / script.stem, render=render, echo=echo)
        refused = run_lines(session, lines)
        session.close()
        print(game.ruleset.status(game.scenario, game.state), file=echo)
        print(f"== {session.count} commands accepted, {refused} refused; boards and log.json in "
              f"{out / script.stem} ==", file=echo)
        last = game
    return last


def load_file(path: Path) -> Game:
    """A game from a /game export file (or a CLI log.json), replayed and verified (bot/history.py);
    a ValueError naming what is wrong otherwise."""
    from .history import load_game
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from None
    return load_game(data)


def odds_command(args) -> int:
    """`herald odds`: the game (a battle's start, a script, or --load FILE), then the exact what-if
    of one action (engine/core/odds.py)."""
    import io
    from engine.core.odds import EXACT_LIMIT, QUICK_BUDGET, QUICK_FALLBACK, what_if
    words = list(args.words)
    try:
        if args.load:
            if args.option:
                raise ValueError("--load continues the file's game: its optional rules are the file's (drop --option)")
            if len(words) != 1:
                raise ValueError("with --load, give only the action, quoted: herald odds --load FILE 'battle ui2 0604'")
            action = words[0]
            game = load_file(args.load)
            seed, numbered = script_lines(args.script) if args.script else (None, [])
        else:
            if len(words) < 3:
                raise ValueError("give a ruleset, a battle and the action: herald odds battlecry first-bull-run "
                                 "'battle ui2 0604' (or --load FILE 'action')")
            if words[0] not in rulesets():
                raise ValueError(f"unknown ruleset '{words[0]}' (known: {', '.join(sorted(rulesets()))})")
            action = " ".join(words[2:])
            seed, numbered = script_lines(args.script) if args.script else (None, [])
            game = Game.new(words[0], words[1], args.seed or seed or 1, options=args.option or None)
    except (KeyError, ValueError, OSError, HeraldError) as exc:
        print(f"herald: {exc.args[0] if isinstance(exc, KeyError) and exc.args else exc}", file=sys.stderr)
        return 2
    echo = io.StringIO()
    session = Session(game, None, render=False, echo=echo)
    for n, line in numbered:
        if not session.step(line):
            said = echo.getvalue().strip().splitlines()[-1].lstrip("! ")
            print(f"herald: line {n} of {args.script} was refused: {said}", file=sys.stderr)
            return 2
    side = args.side or game.to_act
    try:       # as /odds answers: at once, and when that was cut at a horizon, the whole tree
        odds = what_if(game.ruleset, game.scenario, game.state, side, action,
                       budget=QUICK_BUDGET, fallback=QUICK_FALLBACK)
    except HeraldError as exc:
        print(f"! refused: {exc}")
        return 1
    if not odds.exact:
        print("herald: cut short to answer at once; working out the exact answer "
              f"(up to {EXACT_LIMIT:.0f} s)...", file=sys.stderr, flush=True)
        try:
            odds = what_if(game.ruleset, game.scenario, game.state, side, action,
                           budget=None, time_limit=EXACT_LIMIT, deepen=True)
        except HeraldError as exc:
            print(f"herald: no exact answer ({exc}): the answer cut short stands", file=sys.stderr)
        else:
            if not odds.exact:
                print(f"herald: the whole tree needs more than {EXACT_LIMIT:.0f} s: each sequence of dice "
                      f"is followed until it is rarer than 1 in {round(1 / odds.floor):,}", file=sys.stderr)
    print(odds.text())
    return 0


def db_command(args) -> int:
    """`herald db copy SQLITE_FILE POSTGRES_URL` (bot/db_copy.py): 0 when every game replays
    the same on PostgreSQL, 1 when one differs or the copy was refused, 2 for bad arguments."""
    import asyncio

    from .store import StoreError, is_postgres_url, redact
    if not args.sqlite_file.is_file():
        print(f"herald: no SQLite file {args.sqlite_file}", file=sys.stderr)
        return 2
    if not is_postgres_url(args.postgres_url):
        print(f"herald: {redact(args.postgres_url)!r} is not a postgresql:// URL", file=sys.stderr)
        return 2
    from .db_copy import copy_database
    try:
        return asyncio.run(copy_database(str(args.sqlite_file), args.postgres_url))
    except (StoreError, OSError) as exc:
        print(f"herald: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:             # asyncpg's and sqlite's own errors: a line, no traceback
        if type(exc).__module__.split(".")[0] not in ("asyncpg", "sqlite3"):
            raise
        print(f"herald: the copy failed, nothing was written to PostgreSQL: {exc}", file=sys.stderr)
        return 1


def _main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["sync"]:                  # register the slash commands (bot/sync.py)
        from .sync import main as sync_main
        return sync_main(argv[1:])
    ap = argparse.ArgumentParser(prog="herald", description="Herald: wargames by post")
    sub = ap.add_subparsers(dest="cmd")
    sub.add_parser("bot", help="run the Discord bot (needs DISCORD_TOKEN; the default when it is set)")
    sub.add_parser("sync", help="register the slash commands with Discord: `herald sync --help`")
    p_play = sub.add_parser("play", help="play offline (hotseat prompt or a script)")
    p_play.add_argument("ruleset", nargs="?", choices=sorted(rulesets()))
    p_play.add_argument("scenario", nargs="?")
    p_play.add_argument("--load", type=Path, metavar="FILE",
                        help="continue a game file from /game export (or a log.json), replayed and verified")
    p_play.add_argument("--seed", default=None)
    p_play.add_argument("--script", type=Path)
    p_play.add_argument("--dice", help="die results to use first, comma separated")
    p_play.add_argument("--out", type=Path, default=Path("herald-out"))
    p_play.add_argument("--no-render", action="store_true")
    p_play.add_argument("--option", action="append", default=[], metavar="RULE",
                        help="an optional rule of the battle to play with (repeatable; "
                             "`herald scenarios` lists them)")
    p_demo = sub.add_parser("demo", help="replay the bundled demo battles")
    p_demo.add_argument("--out", type=Path, default=Path("herald-demo"))
    p_demo.add_argument("--no-render", action="store_true")
    sub.add_parser("scenarios", help="list the scenarios of every ruleset")
    p_odds = sub.add_parser("odds", help="the exact odds of an action, nothing committed (a what-if)",
                            usage="herald odds RULESET SCENARIO ACTION [--script FILE] | herald odds --load FILE ACTION")
    p_odds.add_argument("words", nargs="+", metavar="RULESET SCENARIO ACTION",
                        help=f"a ruleset ({', '.join(sorted(rulesets()))}), a battle and the command considered, "
                             "e.g. 'battle ui2 0604' or 'fire r1 0605'; with --load only the command")
    p_odds.add_argument("--load", type=Path, metavar="FILE",
                        help="the game so far from a /game export file (or a log.json)")
    p_odds.add_argument("--script", type=Path, help="the game so far: a script, as `play` reads it")
    p_odds.add_argument("--seed", default=None)
    p_odds.add_argument("--side", default=None, help="who asks (default: the side the rules wait on)")
    p_odds.add_argument("--option", action="append", default=[], metavar="RULE")
    p_rules = sub.add_parser("rules", help="look up a rule by section number or words (as /rules)")
    p_rules.add_argument("ruleset", choices=sorted(rulesets()))
    p_rules.add_argument("query", nargs="+", help="a section (10.4, §10.4) or words (retreat, salvo)")
    p_db = sub.add_parser("db", help="the game database: `herald db copy SQLITE_FILE POSTGRES_URL`")
    db_sub = p_db.add_subparsers(dest="db_cmd", required=True)
    p_copy = db_sub.add_parser("copy", help="copy a club's games from its SQLite file to an empty PostgreSQL "
                                            "database, checked by replaying every game there")
    p_copy.add_argument("sqlite_file", type=Path, help="the bot's SQLite file (HERALD_DB)")
    p_copy.add_argument("postgres_url", help="postgresql://user:password@host/database (HERALD_DATABASE_URL)")
    args = ap.parse_args(argv)
    if args.cmd == "db":
        return db_command(args)
    if args.cmd == "bot":
        print("herald bot: set DISCORD_TOKEN to run the Discord bot", file=sys.stderr)
        return 2
    if args.cmd == "rules":
        from engine.core.rulesdoc import RulesIndexError, answer
        try:
            print(answer(args.ruleset, " ".join(args.query), ruleset=get_ruleset(args.ruleset), markdown=False))
        except (LookupError, RulesIndexError) as exc:
            print(f"herald: {exc}", file=sys.stderr)
            return 1
        return 0
    if args.cmd == "odds":
        return odds_command(args)
    if args.cmd == "scenarios":
        for rid, rs in sorted(rulesets().items()):
            for sid, title in rs.scenarios():
                print(f"{rid:12s} {sid:24s} {title}")
                for oid, text in game_options(rs, rs.load_scenario(sid)):
                    print(f"{'':12s}   --option {option_name(oid):20s} {text}")
        return 0
    if args.cmd == "play":
        try:
            seed, lines = (read_script(args.script) if args.script else (None, None))
        except ValueError as exc:
            print(f"herald: {exc}", file=sys.stderr)
            return 2
        seed = args.seed or seed or 1
        try:
            if args.load or not (args.ruleset and args.scenario):     # a game file (bot/history.py)
                from .history import load_game
                if not args.load or args.ruleset or args.scenario:
                    raise ValueError("play takes a ruleset and a scenario, or --load FILE (the file names its battle)")
                if args.seed or args.option:
                    raise ValueError("--load continues the file's game: its seed and optional rules are the "
                                     "file's (drop --seed/--option)")
                try:
                    data = args.load.read_bytes()
                except OSError as exc:
                    raise ValueError(f"cannot read {args.load}: {exc.strerror or exc}") from None
                game = load_game(data)
            else:
                game = Game.new(args.ruleset, args.scenario, seed, options=args.option or None)
        except (KeyError, ValueError, OSError, HeraldError) as exc:
            print(f"herald: {exc}", file=sys.stderr)
            return 2
        out = fresh_folder(args.out)
        if out != args.out:
            print(f"({args.out} holds an earlier game: this one goes into {out})")
        try:
            session = Session(game, out, render=not args.no_render,
                              dice=parse_dice(args.dice, dice_faces(game.ruleset)))
        except ValueError as exc:
            print(f"herald: {exc}", file=sys.stderr)
            return 2
        if lines is not None:
            refused = run_lines(session, lines)
            session.close()
            print(game.ruleset.status(game.scenario, game.state))
            return 1 if refused else 0
        hotseat(session)
        session.close()
        return 0
    out = getattr(args, "out", Path("herald-demo"))
    try:
        demo(out, render=not getattr(args, "no_render", False))
    except ValueError as exc:
        print(f"herald: {exc}", file=sys.stderr)
        return 2
    return 0


def main(argv: list[str] | None = None) -> int:
    """`herald ...`: no traceback, ever. Ctrl-C stops quietly; a reader that goes away
    (`herald rules tacw retreat | head`) ends the output without a word."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("\nherald: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        import os
        try:                                  # nothing more reaches the closed pipe, not even at exit
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 141


if __name__ == "__main__":
    raise SystemExit(main())
