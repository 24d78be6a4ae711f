"""host: see README.md (built in a later issue)."""
