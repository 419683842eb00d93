"""``python -m jaxbody.cli``: the ``jaxbody`` command line."""

from jaxbody.cli import main

raise SystemExit(main())
