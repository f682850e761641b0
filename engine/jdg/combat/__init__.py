"""Jours de Gloire: see engine/jdg/rules.py for the package's layout."""
