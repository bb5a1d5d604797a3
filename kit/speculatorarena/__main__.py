"""`python3 -m speculatorarena ...` is the client."""

import sys

from .client import main

sys.exit(main())
