"""``python -m dpaudit.cli`` is the ``dpaudit`` command."""

import sys

from dpaudit.cli.commands import main

sys.exit(main())
