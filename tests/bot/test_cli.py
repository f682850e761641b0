"""The offline CLI and the `herald` console script: scripts, hotseat, supplied dice, the demo."""
import io
import json

from PIL import Image

import bot.cli as cli
import bot.main as herald_main
from engine.core.game import Game

SCRIPT = """# seed: 7
union: play assault-centre
union: move ui1 0404
union: fly ui1 to the moon
union: battle ui1 0607 dice=1,5
confederate: play probe-left
union: end
"""


def test_script_writes_a_png_per_action_and_the_log(tmp_path, capsys):
    script = tmp_path / "game.txt"
    script.write_text(SCRIPT)
    rc = cli.main(["play", "battlecry", "first-bull-run", "--script", str(script), "--out", str(tmp_path / "out")])
    out = capsys.readouterr().out
    assert rc == 1                                           # two lines were refused
    assert "fly ui1 to the moon: refused: unknown command 'fly'" in out
    assert "refused: it is Union's turn (BC §3.2)" in out
    pngs = sorted(p.name for p in (tmp_path / "out").glob("*.png"))
    assert pngs == ["000-start.png", "001-union-play.png", "002-union-move.png", "003-union-battle.png",
                    "004-union-end.png"]
    assert Image.open(tmp_path / "out" / "003-union-battle.png").size[0] > 1000
    log = json.loads((tmp_path / "out" / "log.json").read_text())
    assert log["seed"] == "7" and [c["text"] for c in log["commands"]] == [
        "play assault-centre", "move ui1 0404", "battle ui1 0607 dice=1,5", "end"]
    battle = log["commands"][2]["events"][0]
    assert battle["section"] == "BC §4.4" and [d["face"] for d in battle["dice"]] == ["infantry", "flag"]


def test_dice_option_supplies_results_in_order_and_records_them(tmp_path, capsys):
    script = tmp_path / "g.txt"
    script.write_text("# seed: 7\nplay assault-centre\nbattle ui1 0607\nbattle ua1 0507\n")
    rc = cli.main(["play", "battlecry", "first-bull-run", "--script", str(script), "--dice", "6,6,5,1",
                   "--out", str(tmp_path), "--no-render"])
    assert rc == 0
    log = json.loads((tmp_path / "log.json").read_text())
    used = [log["commands"][1]["dice"], log["commands"][2]["dice"]]
    rolled = [[d["result"] for e in c["events"] for d in e["dice"]] for c in log["commands"][1:]]
    assert used == rolled and used[0] and used[1]              # each battle took its own dice...
    assert used[0] + used[1] == [6, 6, 5, 1][:len(used[0]) + len(used[1])]   # ...in queue order
    assert not list(tmp_path.glob("*.png"))


def test_hotseat_reads_commands_for_the_side_to_act():
    game = Game.new("battlecry", "first-bull-run", 7)
    out = io.StringIO()
    session = cli.Session(game, None, render=False, echo=out)
    cli.hotseat(session, stdin=io.StringIO("status\nplay assault-centre\nend\nhelp\nquit\n"))
    text = out.getvalue()
    assert "Your hand (Union)" in text and "[union] >" in text and "[confederate] >" in text
    assert game.state.active == "confederate" and len(game.history) == 2
    assert "move <unit> <to> ... [alone]: Move a unit to a hex or along a path (BC §4.2)" in text


def test_hotseat_answers_a_question_without_applying_it():
    game = Game.new("battlecry", "first-bull-run", 7)
    out = io.StringIO()
    session = cli.Session(game, None, render=False, echo=out)
    cli.hotseat(session, stdin=io.StringIO("hand\nquit\n"))
    assert out.getvalue().count("Your hand (Union)") == 3 and game.history == []    # 2 prompts + the answer


def test_demo_plays_every_bundled_battle_to_its_end(tmp_path):
    out = io.StringIO()
    game = cli.demo(tmp_path, render=False, echo=out)
    text = out.getvalue()
    assert game.state.phase == "over"
    scripts = sorted(p.stem for p in cli.DEMO_DIR.glob("*.txt"))
    assert scripts == ["battlecry--first-bull-run", "italianwars--fornovo", "italianwars--ravenna", "jdg--marengo",
                       "lion--breitenfeld", "lion--lutzen", "tacw--edgehill"]
    assert text.count(" 0 refused") == len(scripts)
    for stem in scripts:
        log = json.loads((tmp_path / stem / "log.json").read_text())
        assert log["commands"] and log["ruleset"] == stem.split("--")[0]
    log = json.loads((tmp_path / scripts[-1] / "log.json").read_text())
    assert len(log["commands"]) == len(game.history) and log["state_hash"] == game.state.state_hash()


def test_console_script_runs_the_demo_without_a_token_and_the_bot_with_one(monkeypatch, tmp_path):
    calls = []
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    monkeypatch.setattr(cli, "demo", lambda out, render=True: calls.append(("demo", out)))
    assert herald_main.main([]) == 0 and calls[0][0] == "demo"
    import bot.client
    monkeypatch.setenv("DISCORD_TOKEN", "t0ken")
    monkeypatch.setenv("HERALD_DB", str(tmp_path / "h.db"))
    monkeypatch.setattr(bot.client, "run_bot", lambda token, db: calls.append(("bot", token, db)) or 0)
    assert herald_main.main([]) == 0
    assert calls[1] == ("bot", "t0ken", str(tmp_path / "h.db"))
    monkeypatch.delenv("DISCORD_TOKEN")
    assert herald_main.main(["bot"]) == 2


def test_unknown_scenario_is_a_clear_error(capsys):
    assert cli.main(["play", "battlecry", "waterloo", "--no-render"]) == 2
    assert "no Battle Cry scenario 'waterloo'" in capsys.readouterr().err


def test_play_with_an_optional_rule_and_the_scenarios_listing(tmp_path, capsys):
    """--option plays a battle with its optional rules (TACW digest §8); a bad one is refused."""
    script = tmp_path / "g.txt"
    script.write_text("royalist: policy show\n")
    rc = cli.main(["play", "tacw", "naseby", "--option", "royalist-artillery", "--script", str(script),
                   "--out", str(tmp_path), "--no-render"])
    assert rc == 0
    log = json.loads((tmp_path / "log.json").read_text())
    assert log["options"] == ["royalist-artillery"]
    assert cli.main(["play", "tacw", "naseby", "--option", "no-such", "--no-render", "--out", str(tmp_path)]) == 2
    assert "no optional rule 'no-such'" in capsys.readouterr().err
    assert cli.main(["scenarios"]) == 0
    listing = capsys.readouterr().out
    assert "--option royalist-artillery" in listing and "new-hope-church" in listing


def test_load_continues_a_game_file_and_refuses_a_bad_one_clearly(tmp_path, capsys):
    """`herald play --load FILE` (bot/history.py): the file's game replayed and verified, then
    continued; every bad file is a one-line refusal (exit 2), never a traceback."""
    first, more = SCRIPT.splitlines()[:3], ["confederate: play probe-left"]
    (tmp_path / "a.txt").write_text("\n".join(first) + "\n")
    assert cli.main(["play", "battlecry", "first-bull-run", "--script", str(tmp_path / "a.txt"),
                     "--out", str(tmp_path / "a"), "--no-render"]) == 0
    (tmp_path / "b.txt").write_text("union: end\n" + "\n".join(more) + "\n")
    assert cli.main(["play", "--load", str(tmp_path / "a" / "log.json"), "--script", str(tmp_path / "b.txt"),
                     "--out", str(tmp_path / "b"), "--no-render"]) == 0
    log = json.loads((tmp_path / "b" / "log.json").read_text())
    assert [c["text"] for c in log["commands"]] == ["play assault-centre", "move ui1 0404", "end", "play probe-left"]
    g = Game.new("battlecry", "first-bull-run", "7")          # the same game in one go
    for side, line in [("union", "play assault-centre"), ("union", "move ui1 0404"), ("union", "end"),
                       ("confederate", "play probe-left")]:
        g.apply(side, line)
    assert log["state_hash"] == g.state.state_hash()
    capsys.readouterr()
    good = (tmp_path / "a" / "log.json").read_text()
    bad = json.loads(good)
    bad["commands"][1]["text"] = "move ui1 0101"
    (tmp_path / "junk.json").write_text("{oops")
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    cases = [(["--load", str(tmp_path / "missing.json")], "cannot read"),
             (["--load", str(tmp_path / "a" / "log.json"), "--seed", "3"], "drop --seed/--option"),
             (["--load", str(tmp_path / "junk.json")], "it is not JSON (line 1"),
             (["--load", str(tmp_path / "bad.json")],
              "command 2 (union: move ui1 0101) is refused by the rules on replay")]
    for argv, words in cases:
        assert cli.main(["play", *argv, "--no-render", "--out", str(tmp_path / "c")]) == 2
        err = capsys.readouterr().err
        assert err.startswith("herald: ") and words in err and "Traceback" not in err, err
    assert not (tmp_path / "c").exists()                        # nothing written for a refused file


def test_rules_lookup_offline_gives_the_same_answer_as_slash_rules(capsys):
    """`herald rules` reads the same index as /rules (engine/core/rulesdoc.py): the summary, the
    decisions and the tests that check it; a query that finds nothing is a clear error, rc 1."""
    assert cli.main(["rules", "tacw", "10.4.5"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("TACW §10.4.5 — Retreat impossible") and "D77" in out
    assert "test_10_4_5_broken_unit_that_cannot_retreat_rolls_retreat_impossible" in out
    assert cli.main(["rules", "battlecry", "horse", "artillery"]) == 0
    assert "BC §4.4.1" in capsys.readouterr().out
    assert cli.main(["rules", "battlecry", "zzzqqq"]) == 1
    assert "nothing in the Battle Cry rules index matches 'zzzqqq'" in capsys.readouterr().err


def test_help_of_one_command_lists_its_options_from_the_declaration():
    """`help <command>` at the prompt: the verb's usage and rule, then each option's description
    (the newcomer finds `face <vertex>` and `charge <hex>` in a JdG move); an unknown one lists
    the commands. Nothing is applied."""
    game = Game.new("jdg", "marengo", 2)
    out = io.StringIO()
    session = cli.Session(game, None, render=False, echo=out)
    cli.hotseat(session, stdin=io.StringIO("help move\nhelp fire\nhelp banana\nquit\n"))
    text = out.getvalue()
    assert "steps: Hexes one by one, face <vertex> to turn; charge <hex> ends a cavalry move" in text
    assert "forced: (optional: the word `forced`)" in text
    assert "second: `with ...` (optional) A second artillery unit" in text
    assert "no command 'banana'; the commands: orders, combined" in text
    assert game.history == []
