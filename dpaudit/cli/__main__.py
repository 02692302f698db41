"""``python -m dpaudit.cli`` is the ``dpaudit`` command (supervised, as the console script:
:mod:`dpaudit.cli.supervisor`)."""

import sys

from dpaudit.cli.supervisor import main

if __name__ == "__main__":
    sys.exit(main())
