"""The installed package can't be shadowed by a clone folder: a user who clones the repository
as ``jaxbody/`` and saves a script next to the clone gets the package, not the clone folder as a
namespace package (the src layout makes an editable install a static path to ``src/``). The
README's first example runs from such a folder."""

import os
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_example_runs_next_to_a_clone_folder_named_jaxbody(tmp_path):
    (tmp_path / "jaxbody").mkdir()  # the clone, as a user's file manager shows it
    (tmp_path / "jaxbody" / "README.md").write_text("a clone\n")
    example = re.search(r"```python\n(.*?)```", README.read_text(), re.S).group(1)
    script = tmp_path / "example.py"
    script.write_text(example + "\nprint(J.shape)\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # only what is installed
    res = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.strip().endswith("(1024, 3, 1)")
