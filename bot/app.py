"""The one place that assembles Herald's game service: the service and the club features beside it.

Data flows one way (DESIGN "Layers, one way"): cogs -> service -> engine and store. The club
features import the service and join it through its hooks (bot/hooks.py), each with its own
`install(service)`; the service imports none of them. The client (bot/client.py), the benches
and the tests' harness all build their service here, so each runs the same features.

    bot/cogs/*, client, cli, sync            Discord and the command line
      bot/app.py                             this assembly
        status_message, views, history,      what the cogs show, above the features
        arbitration, server_view
          undo -> physical_dice -> club      the club features (each imports the service;
          deadlines -> club                  none is imported by it)
          campaigns, uploads
            bot/service.py (+ bot/hooks.py)  the game service
              engine/, bot/store.py, and the leaves errors, options, names, replies
"""
from __future__ import annotations

from . import campaigns, club, deadlines, physical_dice, undo, uploads
from .service import GameService
from .store import Store

# in the order they join: each may rely on those before it (undo on physical dice, deadlines on club)
FEATURES = (club, deadlines, physical_dice, undo, uploads, campaigns)


def install_features(service: GameService) -> GameService:
    """Install every club feature on `service` (once each); returns it."""
    for feature in FEATURES:
        name = feature.__name__
        if name not in service.hooks.installed:
            feature.install(service)
            service.hooks.installed.append(name)
    return service


def settle_memory() -> None:
    """Issue 13: after start-up (rulesets, scenarios and the live games loaded), move what is in
    memory out of the garbage collector's sight (`gc.freeze`: it lives as long as the process)
    and collect the young generation less often; a full collection then scans only what came
    later. Under the load bench a full collection held the event loop over 100 ms before."""
    import gc
    gc.collect()
    gc.freeze()
    gc.set_threshold(5_000, 20, 20)


def make_service(store: Store) -> GameService:
    """Herald's game service on `store`, with every club feature installed."""
    return install_features(GameService(store))
