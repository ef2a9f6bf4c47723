"""`python -m lamina`: the `lamina` command (see `lamina._cli`)."""

import sys

from lamina._cli import main

if __name__ == "__main__":
    sys.exit(main())
