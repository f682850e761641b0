"""Console script `herald`: with DISCORD_TOKEN set it runs the bot; without it, the offline demo
(or any CLI subcommand given: `herald play ...`, `herald demo`, `herald scenarios`, and
`herald sync`, which registers the slash commands and needs the token)."""
from __future__ import annotations

import logging
import os
import sys


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    token = os.environ.get("DISCORD_TOKEN", "").strip()
    if token and (not argv or argv[0] == "bot"):
        from bot.client import run_bot
        from bot.shards import ShardsError, from_env
        try:
            shards = from_env()           # HERALD_SHARDS: the shards this process runs (bot/shards.py)
        except ShardsError as exc:
            print(f"herald: {exc}", file=sys.stderr)
            return 1
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        sharded = {"shards": shards} if shards is not None else {}     # unset: one plain connection
        # the store: PostgreSQL when HERALD_DATABASE_URL=postgresql://... is set, else the SQLite file
        database = os.environ.get("HERALD_DATABASE_URL", "").strip() or os.environ.get("HERALD_DB", "herald.db")
        return run_bot(token, database, **sharded)
    from bot.cli import main as cli_main
    return cli_main(argv)


if __name__ == "__main__":
    raise SystemExit(main())
