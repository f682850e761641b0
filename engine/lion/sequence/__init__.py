"""The card-driven turn of Lion of the North: cards [3], [13], command [4], random events [15],
rally [10], camps [12 A], demoralisation [11] and victory [14]."""
