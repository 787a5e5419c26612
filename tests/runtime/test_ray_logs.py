"""Ray's own logs land in the run folder, and a job's output on a non-terminal is g2w's lines only."""

import os
import subprocess
import sys

from g2w.runtime import ray_logs

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_the_link_becomes_a_copy_once_ray_is_down(tmp_path):
    session_logs = tmp_path / "tmp_ray" / "session_x" / "logs"
    session_logs.mkdir(parents=True)
    (session_logs / "raylet.out").write_text("started\n")
    try:
        ray_logs.use_run_folder(tmp_path / "run")
        link = ray_logs.link_session_logs(str(session_logs), output=str(tmp_path / "stage"))
    finally:
        ray_logs.use_run_folder(None)
    assert link == str(tmp_path / "run" / "logs" / "ray" / "session_x") and os.path.islink(link)
    (session_logs / "raylet.out").write_text("started\nstopped\n")  # read live through the link
    assert open(os.path.join(link, "raylet.out")).read().endswith("stopped\n")
    ray_logs.copy_session_logs()
    assert not os.path.islink(link) and open(os.path.join(link, "raylet.out")).read() == "started\nstopped\n"
    assert ray_logs.link_session_logs(str(session_logs), output="s3://bucket/run") is None  # no local folder


def test_a_job_prints_its_own_lines_and_keeps_rays_logs(make_video, tmp_path):
    video = make_video("clip.mp4", frames=8)
    out = tmp_path / "detect"
    env = dict(os.environ, PYTHONPATH=_REPO)
    env.pop("RAY_ADDRESS", None)
    command = [sys.executable, "-c", "import sys; from g2w.cli import main; sys.exit(main())"]
    done = subprocess.run(
        [*command, "detect", video, "--output", str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    for stream in (done.stdout, done.stderr):
        assert "(pid=" not in stream and "Running Dataset" not in stream and "raylet" not in stream, stream
    sessions = os.listdir(out / "logs" / "ray")
    assert len(sessions) == 1 and sessions[0].startswith("session_")
    kept = out / "logs" / "ray" / sessions[0]
    assert not kept.is_symlink()  # copied at exit: it outlives the temporary folder
    names = os.listdir(kept)
    assert "raylet.out" in names and any(n.startswith("worker-") for n in names)
    assert str(kept) in done.stderr  # the job says where Ray's logs are
