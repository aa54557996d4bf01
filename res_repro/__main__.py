"""``python -m res_repro`` is the same as ``res-repro``."""

from res_repro.cli import main

main()
