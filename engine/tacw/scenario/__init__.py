"""Scenario files (TOML) and their validation, also of a club's upload.

schema.py      the file's schema, the loader and the Scenario object
parse.py       reading and validating each block
free_setup.py  the free-setup parts: deployment areas, `area`, `near`
"""
