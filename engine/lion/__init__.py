"""Lion of the North ("Il Leone del Nord", ed. 2.01), issue 15: Herald's first open-table ruleset."""
