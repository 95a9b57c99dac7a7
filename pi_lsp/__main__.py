"""``python -m pi_lsp``: the same as the ``pi-lsp`` console script."""

import sys

from pi_lsp.cli import main

if __name__ == "__main__":
    sys.exit(main())
