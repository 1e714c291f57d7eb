"""``python -m shiftsched``: the command line, ``shiftsched.cli``."""

from __future__ import annotations

import sys

from shiftsched.cli.main import EXIT_FAILED, EXIT_INTERNAL, EXIT_INVALID, EXIT_OK, main

__all__ = ["EXIT_FAILED", "EXIT_INTERNAL", "EXIT_INVALID", "EXIT_OK", "main"]

if __name__ == "__main__":
    sys.exit(main())
