"""``python -m dpaudit.cli`` is the ``dpaudit`` command."""

import sys

from dpaudit.cli.commands import main

if __name__ == "__main__":
    sys.exit(main())
