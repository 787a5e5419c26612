"""Request checks without Ray: settings and tokens, URIs inside roots, per-method options."""

from __future__ import annotations

import os

import pytest

from serve.inputs import InputError, check_method, method_options, resolve_uri, server_options, upload_suffix
from serve.settings import SettingsError, parse_settings, token_digest


def test_settings_need_a_token_unless_insecure(tmp_path):
    with pytest.raises(SettingsError, match="no token"):
        parse_settings({}, env={})
    assert parse_settings({"insecure-no-auth": "true"}, env={}).insecure_no_auth
    token_file = tmp_path / "token"
    token_file.write_text("s3cret\n")
    settings = parse_settings(
        {"max-active-jobs": "5", "allowed_roots": "/a, s3://b/c"}, env={"G2W_SERVE_TOKEN_FILE": str(token_file)}
    )
    assert settings.token_sha256 == token_digest("s3cret") and "s3cret" not in repr(settings)
    assert settings.max_active_jobs == 5 and settings.allowed_roots == ("/a", "s3://b/c")
    with pytest.raises(SettingsError, match="unknown setting"):
        parse_settings({"max-jobs": "5"}, env={"G2W_SERVE_TOKEN": "x"})
    with pytest.raises(SettingsError, match="max-active-jobs"):
        parse_settings({"max-active-jobs": "many"}, env={"G2W_SERVE_TOKEN": "x"})


def test_uris_stay_inside_the_roots(tmp_path):
    root = tmp_path / "inputs"
    root.mkdir()
    (root / "a.mp4").write_bytes(b"x")
    outside = tmp_path / "secret.mp4"
    outside.write_bytes(b"x")
    os.symlink(outside, root / "link.mp4")
    roots = (str(root), "s3://bucket/clips")
    assert resolve_uri(str(root / "a.mp4"), roots) == str(root / "a.mp4")
    assert resolve_uri(f"file://{root}/a.mp4", roots) == str(root / "a.mp4")
    assert resolve_uri("s3://bucket/clips/x/y.mp4", roots) == "s3://bucket/clips/x/y.mp4"
    for bad in (
        str(outside),
        f"{root}/../secret.mp4",
        str(root / "link.mp4"),
        "s3://bucket/clips/../other.mp4",
        "s3://bucket/clipsX/a.mp4",
        "/etc/passwd",
    ):
        with pytest.raises(InputError) as exc:
            resolve_uri(bad, roots)
        assert exc.value.status == 403, bad
    with pytest.raises(InputError, match="only local paths"):
        resolve_uri("http://example.com/a.mp4", roots)


def test_options_follow_each_methods_signature():
    assert method_options("identity", None) == {}
    with pytest.raises(InputError, match="has no options"):
        method_options("identity", '{"radius": 3}')
    assert method_options("telea-gt", '{"radius": 5, "preset": "fast"}') == {"radius": 5, "preset": "fast"}
    for bad in ('{"radius": "5"}', '{"radius": true}', "[1]", "{not json"):
        with pytest.raises(InputError) as exc:
            method_options("telea-gt", bad)
        assert exc.value.status == 422


def test_methods_that_cannot_run_are_refused():
    check_method("identity", has_ground_truth=False, gpu_available=False)
    for name, reason in (("nope", "unknown_method"), ("telea-gt", "method_needs_mask")):
        with pytest.raises(InputError) as exc:
            check_method(name, has_ground_truth=False, gpu_available=False)
        assert (exc.value.status, exc.value.reason) == (422, reason)


def test_upload_names_never_become_paths():
    assert upload_suffix("../../etc/passwd.MP4") == ".mp4"
    assert upload_suffix("clip") == ".bin" and upload_suffix("a.<script>") == ".bin"


def test_every_option_of_every_method_has_a_range():
    from g2w.remove import METHODS
    from serve.inputs import OPTION_RULES, _signature_options

    missing = {(m, o) for m in METHODS for o in _signature_options(m) if o not in OPTION_RULES}
    assert not missing, f"give these options a range in serve/inputs.py OPTION_RULES: {sorted(missing)}"
    checkpoints = {"small": {"checkpoint": "/models/small"}}
    assert method_options("gamecleaner", '{"checkpoint": "small", "steps": 4}', checkpoints)["checkpoint"] == "small"
    assert (
        method_options("gamecleaner", '{"checkpoint": "small", "sampler": "unipc"}', checkpoints)["sampler"] == "unipc"
    )
    for bad in (
        '{"steps": 4}',
        '{"checkpoint": "/models/small"}',
        '{"checkpoint": "small", "base_dir": "/x"}',
        '{"checkpoint": "small", "reference": "self", "reference_edits": "/etc"}',
        '{"checkpoint": "small", "steps": 0}',
        '{"checkpoint": "small", "sampler": "ddim"}',
    ):
        with pytest.raises(InputError) as exc:
            method_options("gamecleaner", bad, checkpoints)
        assert exc.value.status == 422, bad


def test_attention_is_a_client_choice_checked_by_name_and_compile_is_the_servers():
    checkpoints = parse_settings(
        {"insecure-no-auth": "true", "checkpoints": '{"fast": {"checkpoint": "/m/fast", "compile": true}}'}, env={}
    ).checkpoints
    assert checkpoints == {"fast": {"checkpoint": "/m/fast", "compile": True}}
    chosen = method_options("gamecleaner", '{"checkpoint": "fast", "attention": "_native_flash"}', checkpoints)
    assert chosen["attention"] == "_native_flash"
    assert server_options(chosen, checkpoints)["compile"] is True  # the worker gets the checkpoint's setting
    for bad, says in (
        ('{"checkpoint": "fast", "attention": "fastest"}', "unknown attention backend 'fastest'"),
        ('{"checkpoint": "fast", "attention": 3}', "a backend name"),
        ('{"checkpoint": "fast", "compile": true}', "option compile: set by the server"),
    ):
        with pytest.raises(InputError) as exc:
            method_options("gamecleaner", bad, checkpoints)
        assert (exc.value.status, exc.value.reason) == (422, "bad_options") and says in str(exc.value), bad
    with pytest.raises(SettingsError, match="expected true or false"):
        parse_settings(
            {"insecure-no-auth": "true", "checkpoints": '{"x": {"checkpoint": "/m", "compile": "2"}}'}, env={}
        )
