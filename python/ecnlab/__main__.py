"""``python -m ecnlab``."""

import sys

from ecnlab.cli import main

sys.exit(main())
