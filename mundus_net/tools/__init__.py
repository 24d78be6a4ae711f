"""The tools: the commands that compose the lower layers (``mundus rules``, ``sim``,
``tournament``, ``report``, ``verify``, ``play``). Nothing below imports them
(docs/architecture.md)."""
