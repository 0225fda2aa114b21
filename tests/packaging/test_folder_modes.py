"""A package's folder and its cache entries are made as any file tool makes a folder: 0777 less
the umask (0755 under the usual 022), not tempfile's private 0700, so a web server or another
user can read them. The installed wheel's build checks the same on a real package
(test_install.py)."""

import os
import stat

import pytest

from webhal.glue.npm_package import _new_folder


@pytest.mark.parametrize("umask, mode", [(0o022, 0o755), (0o027, 0o750), (0o077, 0o700)])
def test_new_folders_follow_the_umask(tmp_path, umask, mode):
    before = os.umask(umask)
    try:
        made = [_new_folder(str(tmp_path), ".webhal-build-") for _ in range(3)]
    finally:
        os.umask(before)
    assert len(set(made)) == 3
    for path in made:
        assert os.path.basename(path).startswith(".webhal-build-")
        assert stat.S_IMODE(os.stat(path).st_mode) == mode
