"""``python -m dpaudit.cli`` is the ``dpaudit`` command."""

import sys

from dpaudit.cli.main import main

sys.exit(main())
