"""`python -m simdist.cli ...`: the `simdist` command."""

import sys

from simdist.cli.main import main

sys.exit(main())
