"""Which outputs a multi-node job accepts: URIs, anything on one node, and local paths only
under a mount declared shared; everything else is refused with a message naming the fix."""

import os

import pytest

from g2w.runtime.shared_output import SHARED_ENV, OutputNotShared, require_shared_output


def test_uris_and_single_node_runs_are_always_accepted(tmp_path):
    require_shared_output("s3://bucket/run", nodes=8, environ={})
    require_shared_output("gs://bucket/run", nodes=8, environ={})
    require_shared_output(str(tmp_path / "out"), nodes=1, environ={})


def test_a_local_path_on_several_nodes_is_refused_with_the_fix(tmp_path):
    with pytest.raises(OutputNotShared, match=SHARED_ENV) as info:
        require_shared_output(str(tmp_path / "out"), nodes=2, environ={})
    assert "s3://" in str(info.value) and "2 nodes" in str(info.value)


def test_a_path_under_a_declared_shared_mount_is_accepted(tmp_path):
    mount = tmp_path / "efs"
    mount.mkdir()
    env = {SHARED_ENV: f"/nonexistent-mount:{mount}"}
    require_shared_output(str(mount / "runs" / "a"), nodes=4, environ=env)
    require_shared_output(str(mount), nodes=4, environ=env)
    with pytest.raises(OutputNotShared):  # a sibling whose name starts like the mount is not under it
        require_shared_output(str(tmp_path / "efs-other" / "a"), nodes=4, environ=env)


def test_a_relative_path_and_a_symlink_are_judged_by_where_they_lead(tmp_path, monkeypatch):
    mount = tmp_path / "nfs"
    mount.mkdir()
    (tmp_path / "link").symlink_to(mount)
    env = {SHARED_ENV: str(mount)}
    require_shared_output(str(tmp_path / "link" / "run"), nodes=3, environ=env)
    monkeypatch.chdir(mount)
    require_shared_output(os.path.join("runs", "x"), nodes=3, environ=env)
