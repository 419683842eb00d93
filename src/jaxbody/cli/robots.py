"""``python -m jaxbody.cli.robots``: prints the installed example-robot-data wheel's robots folder
(the README's ``$ROBOTS``), or says how to install it and exits with status 1."""

from __future__ import annotations

import os
import sys

from jaxbody.cli.models import ERD_MISSING, example_robot_data


def main():
    erd = example_robot_data()
    if erd is None:
        sys.exit(f"error: {ERD_MISSING}")
    print(os.path.join(erd, "robots"))


if __name__ == "__main__":
    main()
