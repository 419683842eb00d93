"""Writes a notebook from a generator's cell list (shared by the notebooks/make_*.py scripts)."""

from pathlib import Path

import nbformat as nbf


def write(cells, path: Path) -> Path:
    """``cells``: [("md" | "code", source)]; writes an unexecuted notebook at ``path``."""
    nb = nbf.v4.new_notebook()
    nb.cells = [nbf.v4.new_markdown_cell(s) if k == "md" else nbf.v4.new_code_cell(s)
                for k, s in cells]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbf.write(nb, path)
    print(path)
    return path
