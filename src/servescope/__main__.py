"""``python -m servescope``."""

from servescope.cli import main

main()
