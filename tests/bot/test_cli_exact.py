"""Issue 12, the CLI: where the boards go, a fresh folder per game, no traceback ever, `herald
odds --load`, every subcommand in `--help`."""
from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from bot import cli
from engine.core.game import Game

SCRIPT = "# seed: 7\nunion: play assault-centre\nunion: move ui1 0404\nunion: end\n"


def test_the_boards_folder_is_named_and_a_new_game_gets_a_fresh_one(tmp_path, capsys):
    script = tmp_path / "g.txt"
    script.write_text(SCRIPT)
    out = tmp_path / "out"
    assert cli.main(["play", "battlecry", "first-bull-run", "--script", str(script), "--out", str(out),
                     "--no-render"]) == 0
    said = capsys.readouterr().out
    assert f"into {out}/" in said and (out / "log.json").exists()
    # a second game: never beside the first one's files
    assert cli.main(["play", "battlecry", "first-bull-run", "--script", str(script), "--out", str(out),
                     "--no-render"]) == 0
    said = capsys.readouterr().out
    second = tmp_path / "out-2"
    assert f"{out} holds an earlier game: this one goes into {second}" in said
    assert (second / "log.json").exists()
    assert len(json.loads((out / "log.json").read_text())["commands"]) == 3


def test_the_demo_replaces_its_own_earlier_boards(tmp_path):
    stale = tmp_path / "battlecry--first-bull-run" / "999-union-end.png"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"old")
    cli.demo(tmp_path, render=False, echo=io.StringIO())
    assert not stale.exists() and (stale.parent / "log.json").exists()


def test_no_traceback_for_a_missing_script_or_an_unwritable_folder(tmp_path, capsys):
    assert cli.main(["play", "battlecry", "first-bull-run", "--script", str(tmp_path / "nope.txt")]) == 2
    assert "cannot read the script" in capsys.readouterr().err
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    assert cli.main(["play", "battlecry", "first-bull-run", "--out", str(blocker / "sub"), "--no-render"]) == 2
    assert "cannot write to" in capsys.readouterr().err
    assert cli.main(["odds", "battlecry", "first-bull-run", "battle ui1 0607",
                     "--script", str(tmp_path / "nope.txt")]) == 2
    assert "cannot read the script" in capsys.readouterr().err


def test_ctrl_c_and_a_closed_pipe_end_quietly(tmp_path, monkeypatch, capsys):
    class Interrupted(io.StringIO):
        def readline(self, *a):
            raise KeyboardInterrupt
    game = Game.new("battlecry", "first-bull-run", 7)
    echo = io.StringIO()
    cli.hotseat(cli.Session(game, None, render=False, echo=echo), stdin=Interrupted())
    assert "(interrupted)" in echo.getvalue()

    def boom(argv=None):
        raise KeyboardInterrupt
    monkeypatch.setattr(cli, "_main", boom)
    assert cli.main([]) == 130 and "interrupted" in capsys.readouterr().err
    # a reader that stops early (`herald scenarios | head -1`): no traceback on stderr
    proc = subprocess.run(f"{sys.executable} -m bot.cli scenarios | head -1", shell=True,
                          capture_output=True, text=True, cwd=str(cli.Path(cli.__file__).parent.parent))
    assert proc.stdout.strip() and "Traceback" not in proc.stderr


def test_odds_loads_a_game_file_and_names_the_refused_line(tmp_path, capsys):
    script = tmp_path / "g.txt"
    script.write_text(SCRIPT)
    assert cli.main(["play", "battlecry", "first-bull-run", "--script", str(script), "--out",
                     str(tmp_path / "o"), "--no-render"]) == 0
    capsys.readouterr()
    assert cli.main(["odds", "--load", str(tmp_path / "o" / "log.json"), "play skirmish-centre"]) in (0, 1)
    out = capsys.readouterr()
    assert "Traceback" not in out.err and (out.out or out.err)
    bad = tmp_path / "bad.txt"
    bad.write_text("# seed: 7\n\nunion: play assault-centre\n# a note\nunion: fly to the moon\n")
    assert cli.main(["odds", "battlecry", "first-bull-run", "battle ui1 0607", "--script", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"line 5 of {bad} was refused" in err and "fly" in err


def test_help_lists_every_subcommand(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    text = capsys.readouterr().out
    for name in ("bot", "sync", "play", "demo", "scenarios", "odds", "rules"):
        assert f"    {name} " in text, name


def test_a_bad_prefix_is_refused_by_name_in_the_cli():
    game = Game.new("battlecry", "first-bull-run", 7)
    echo = io.StringIO()
    assert not cli.Session(game, None, render=False, echo=echo).step("union: napoleon: end")
    assert "'napoleon:' is not a side of this battle" in echo.getvalue() and game.history == []


def test_the_dice_option_takes_face_names_too(tmp_path):
    script = tmp_path / "g.txt"
    script.write_text("# seed: 7\nunion: play assault-centre\nunion: move ui1 0404\nunion: battle ui1 0607\n")
    assert cli.main(["play", "battlecry", "first-bull-run", "--script", str(script), "--dice", "flag, sabres",
                     "--out", str(tmp_path / "o"), "--no-render"]) == 0
    log = json.loads((tmp_path / "o" / "log.json").read_text())
    assert log["commands"][2]["dice"][:2] == [5, 6]
    with pytest.raises(SystemExit, match="banner"):
        cli.main(["play", "battlecry", "first-bull-run", "--dice", "banner", "--no-render", "--out", str(tmp_path / "p")])


def test_a_folder_that_stops_being_writable_mid_game_is_said_once_and_the_game_goes_on(tmp_path):
    import shutil
    game = Game.new("battlecry", "first-bull-run", 7)
    echo = io.StringIO()
    out = tmp_path / "o"
    session = cli.Session(game, out, render=False, echo=echo)
    shutil.rmtree(out)
    out.write_text("not a folder")                     # the folder is gone: writes fail
    session.log_every = 1                              # as at the keyboard: the log after each command
    assert session.step("union: play assault-centre") and session.step("union: move ui1 0404")
    assert echo.getvalue().count("cannot write to") == 1 and len(game.history) == 2
    session.close()
    assert echo.getvalue().count("cannot write to") == 1
