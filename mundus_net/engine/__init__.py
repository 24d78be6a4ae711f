"""The rules engine (docs/rules.md R1-R8): cards, the deck, decisions, the game, views, the
notation and game records. Pure: no I/O, no network, no terminal; it imports nothing of the
rest of mundus_net (docs/architecture.md)."""
