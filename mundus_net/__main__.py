"""``python -m mundus_net``: the ``mundus`` command."""

import sys

from mundus_net.cli import main

sys.exit(main())
