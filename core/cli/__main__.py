"""`python -m infrakata.core.cli`: the `kata` command."""
import sys

from infrakata.core.cli.commands import main

sys.exit(main())
