"""The workspace copy into local sandboxes gives what ``shutil.copytree`` with ``copy2`` gives."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from res_repro.sandbox.tree_copy import copy_tree


def _tree(root: Path) -> None:
    """Files of several sizes and modes, nested and empty folders, links to a file, a folder and
    nowhere, with times that differ from now."""
    (root / "src" / "deep" / "deeper").mkdir(parents=True)
    (root / "empty").mkdir()
    (root / "src" / "main.c").write_text("int main(void) { return 0; }\n")
    (root / "src" / "deep" / "deeper" / "blob.bin").write_bytes(os.urandom(300_000))
    (root / "empty.txt").write_bytes(b"")
    script = root / "run.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o755)
    secret = root / "private.txt"
    secret.write_text("only me\n")
    secret.chmod(0o600)
    (root / "link-to-file").symlink_to("src/main.c")
    (root / "link-to-folder").symlink_to("src/deep")
    (root / "dangling").symlink_to("/nowhere/at/all")
    (root / "src" / "deep").chmod(0o750)
    for path in [*root.rglob("*"), root]:
        if not path.is_symlink():
            os.utime(path, ns=(1_600_000_000_000_000_000, 1_500_000_000_123_456_789))


def _listing(root: Path) -> dict[str, tuple]:
    """Every entry under ``root``: its kind, mode, mtime and contents or link target."""
    found = {}
    for path in sorted(root.rglob("*")):
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            found[str(path.relative_to(root))] = ("link", os.readlink(path))
        elif stat.S_ISDIR(info.st_mode):
            found[str(path.relative_to(root))] = ("dir", stat.S_IMODE(info.st_mode), info.st_mtime_ns)
        else:
            mode, content = stat.S_IMODE(info.st_mode), path.read_bytes()
            found[str(path.relative_to(root))] = ("file", mode, info.st_mtime_ns, content)
    return found


def test_copy_matches_copytree(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    _tree(source)
    shutil.copytree(source, tmp_path / "by-copytree", symlinks=True, dirs_exist_ok=True)
    copy_tree(source, tmp_path / "by-copy-tree")
    expected = _listing(tmp_path / "by-copytree")
    assert _listing(tmp_path / "by-copy-tree") == expected
    assert expected["private.txt"][1] == 0o600 and expected["run.sh"][1] == 0o755
    assert expected["src/deep"][2] == 1_500_000_000_123_456_789


def test_copy_merges_into_an_existing_folder(tmp_path: Path) -> None:
    source, target = tmp_path / "source", tmp_path / "target"
    source.mkdir()
    (source / "a.txt").write_text("new\n")
    target.mkdir()
    (target / "kept.txt").write_text("kept\n")
    (target / "a.txt").write_text("an older, longer text\n")
    copy_tree(source, target)
    assert (target / "a.txt").read_text() == "new\n"
    assert (target / "kept.txt").read_text() == "kept\n"


def test_a_name_taken_in_the_target_raises(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    (source / "gone").symlink_to("x")
    target = tmp_path / "target"
    (target / "gone").mkdir(parents=True)  # the link's name is taken by a folder
    with pytest.raises(FileExistsError):
        copy_tree(source, target)
