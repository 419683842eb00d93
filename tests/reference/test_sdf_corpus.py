"""Every SDFormat file shipped in pydrake's ``share/drake`` folder, parsed by pydrake and by
jaxbody: the same files load (the counts and any rejection with its reason are printed; run
with -s), and each loaded model matches pydrake's element for element, geometry included
(see `tests.parsers.drake_compare`)."""

import glob
import os

import pytest

pytest.importorskip("pydrake")

import jaxbody as jb  # noqa: E402
from tests.parsers import robot_files  # noqa: E402
from tests.parsers.drake_compare import compare_plants, jaxbody_plant, pydrake_plant  # noqa: E402

DRAKE = robot_files.drake_share_dir()
FILES = sorted(glob.glob(os.path.join(DRAKE, "**", "*.sdf"), recursive=True)) if DRAKE else []
pytestmark = pytest.mark.skipif(not FILES, reason="pydrake ships no .sdf files here")


@pytest.fixture(scope="module")
def corpus():
    """{path: (pydrake's reason or None, jaxbody's reason or None)}"""
    out = {}
    for path in FILES:
        try:
            pydrake_plant(path)
            ref = None
        except Exception as e:  # pydrake raises RuntimeError or ValueError
            ref = str(e).splitlines()[0]
        try:
            jaxbody_plant(path)
            got = None
        except jb.ParseError as e:
            got = e.reason
        out[path] = (ref, got)
    return out


def test_the_same_files_load(corpus):
    accepted = [p for p, (ref, _) in corpus.items() if ref is None]
    loaded = [p for p, (_, got) in corpus.items() if got is None]
    print(f"\n{len(loaded)} of {len(corpus)} SDFormat files load in jaxbody; pydrake accepts "
          f"{len(accepted)}")
    for path, (ref, got) in corpus.items():
        if ref is not None or got is not None:
            print(f"  {robot_files.short_name(path)}: jaxbody: {got or 'loads'}; pydrake: "
                  f"{ref or 'loads'}")
    assert loaded == accepted
    assert len(loaded) >= 8


@pytest.mark.parametrize("path", FILES, ids=[os.path.basename(f) for f in FILES])
def test_model_matches_pydrake(corpus, path):
    if corpus[path][0] is not None:
        pytest.skip(f"pydrake rejects it: {corpus[path][0]}")
    dp, sg = pydrake_plant(path)
    compare_plants(dp, sg, jaxbody_plant(path), robot_files.short_name(path))
