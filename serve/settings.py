"""The service's settings, parsed from `serve run serve.app:build key=value ...` arguments.

Every value is a plain string on the command line (or under `args:` in config.yaml); this file
turns them into typed fields. The bearer token is read here, once, from `G2W_SERVE_TOKEN` or the
file named by `G2W_SERVE_TOKEN_FILE`, and only its SHA-256 travels to the replicas, so the secret
itself never lands in Serve's stored config.
"""

from __future__ import annotations

import hashlib
import json
import os
import typing
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

from g2w.io.sqldb import is_postgres


class SettingsError(ValueError):
    """The service cannot start with these settings."""


def _bool(text) -> bool:
    if isinstance(text, bool):
        return text
    value = str(text).strip().lower()
    if value not in ("1", "0", "true", "false", "yes", "no"):
        raise SettingsError(f"expected true or false, got {text!r}")
    return value in ("1", "true", "yes")


def _roots(text) -> tuple[str, ...]:
    items = text if isinstance(text, (list, tuple)) else str(text).split(",")
    return tuple(r.strip() for r in items if r.strip())


def _mapping(text) -> dict:
    """A name -> value table: a dict (config.yaml) or its JSON text (the command line)."""
    if isinstance(text, dict):
        value = text
    else:
        try:
            value = json.loads(str(text)) if str(text).strip() else {}
        except ValueError as exc:
            raise SettingsError(f"expected a JSON object ({exc})") from exc
    if not isinstance(value, dict) or not all(isinstance(k, str) and k for k in value):
        raise SettingsError("expected an object keyed by name")
    return value


def _judges(text) -> dict:
    """Named LLM judges: {"name": {"endpoint": URL, "model": ID, "api_key_env": VAR?}}.

    They are the only URLs and environment variables an evaluation can reach: a client names a
    judge, and never supplies an endpoint or a variable name itself.
    """
    judges = {}
    for name, spec in _mapping(text).items():
        if name == "reference" or not isinstance(spec, dict) or not {"endpoint", "model"} <= set(spec):
            raise SettingsError(f"judge {name!r}: needs endpoint and model (and 'reference' is built in)")
        unknown = set(spec) - {"endpoint", "model", "api_key_env"}
        if unknown:
            raise SettingsError(f"judge {name!r}: unknown fields {sorted(unknown)}")
        judges[name] = {k: str(v) for k, v in spec.items()}
    return judges


def _checkpoints(text) -> dict:
    """Named checkpoints a `checkpoint` option may pick: {"name": path} or {"name": {"checkpoint": path,
    "base_dir": path, "mllm_dir": path, "compile": true}}; a client names one, the workers get its
    paths and whether its DiT is compiled (a server setting: compiling costs a replica once per model)."""
    out = {}
    for name, spec in _mapping(text).items():
        spec = spec if isinstance(spec, dict) else {"checkpoint": spec}
        if "checkpoint" not in spec or set(spec) - {"checkpoint", "base_dir", "mllm_dir", "compile"}:
            raise SettingsError(f"checkpoint {name!r}: needs checkpoint (and optionally base_dir, mllm_dir, compile)")
        out[name] = {k: _bool(v) if k == "compile" else str(v) for k, v in spec.items()}
    return out


@dataclass(frozen=True)
class ServiceSettings:
    data_dir: str = "serve_data"  # uploads and results; every replica must see it (a shared mount on a cluster)
    # Where finished results are published, a local folder or an s3:// prefix (g2w/io/storage.py),
    # by the worker that made them; "" keeps them in the job folders under data_dir.
    output_store: str = ""
    state_dir: str = ""  # the SQLite job store; a local disk of the ingress node (default: data_dir)
    # A postgresql:// URL of the job store (jobs, batches, sessions and API keys) instead of SQLite
    # under state_dir: then the ingress may move to any node. No password in it: the URL is kept
    # in Serve's config, so the replicas' libpq reads one from PGPASSWORD or ~/.pgpass.
    store_url: str = ""
    allowed_roots: tuple[str, ...] = ()  # local folders or s3:// prefixes a `uri` may point into
    max_upload_mb: float = 512.0
    max_active_jobs: int = 64  # queued + running; beyond it, 429
    max_active_per_owner: int = 32  # queued + running of one owner; beyond it, 429
    max_running: int = 8  # removals in flight at once; more wait queued in the store, not in Serve
    max_running_per_owner: int = 8  # jobs of one owner running at once; the dispatcher passes over the rest
    max_batch_items: int = 1000
    max_frame_pixels: int = 4096 * 4096
    # Decode cost, checked from the container's headers before a frame is decoded or a job queued.
    max_pixels: int = 3840 * 2160  # width x height of a clip
    max_frames: int = 60 * 60 * 60  # an hour at 60 fps
    max_duration_s: float = 3600.0
    judges: dict = field(default_factory=dict)  # named LLM judges (see _judges); "reference" is always there
    checkpoints: dict = field(default_factory=dict)  # named checkpoints for the `checkpoint` option
    retry_after_s: int = 10
    # A running job's claim lasts this long without a report from its worker (which heartbeats at a
    # third of it); only then is it requeued, so a restarted ingress never gives a job a second writer.
    lease_s: float = 30.0
    cpu_replicas: int = 1  # fixed CPU Remover replicas when config.yaml does not autoscale them
    gpu_replicas: int = 0  # GPU Remover replicas: one per GPU; 0 disables methods that need a GPU
    dispatch: bool = True  # false: accept and queue jobs but start none (maintenance; they run after a restart)
    # "module:function" of the detection-only model (serve/workers.py); "" turns detection off.
    # On by default: the segmenter ships in the repo and runs on CPU, and its replicas scale
    # from zero (serve/app.py), so it holds no CPU until a detection is asked for.
    detector: str = "g2w.jobs.detect:detect_file"
    session_ttl_s: float = 12 * 3600.0  # a page session's lifetime
    # A finished job's upload, results and record are deleted this long after it finished; 0 keeps them.
    retention_s: float = 7 * 86400.0
    min_free_disk_mb: float = 1024.0  # below this much free space under data_dir, new work is refused (507)
    insecure_no_auth: bool = False
    token_sha256: str = field(default="", repr=False)

    @property
    def max_upload_bytes(self) -> int:
        return int(self.max_upload_mb * (1 << 20))

    @property
    def store_path(self) -> str:
        """The job store: the `store-url` when one is set, else the SQLite file under state_dir."""
        return self.store_url or os.path.join(self.state_dir or self.data_dir, "jobs.sqlite")


_PARSERS: dict[object, Callable[[Any], Any]] = {bool: _bool, int: int, float: float, str: str, tuple[str, ...]: _roots}
_NAMED_PARSERS: dict[str, Callable[[Any], Any]] = {"judges": _judges, "checkpoints": _checkpoints}


def _check_store_url(url: str) -> None:
    if not url:
        return
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if not is_postgres(url) or (not parts.hostname and "host=" not in parts.query):
        raise SettingsError("store-url: expected postgresql://[user@]host[:port]/database")
    if parts.password is not None or "password=" in parts.query:
        raise SettingsError(
            "store-url: no password in the URL (it is kept in Serve's config); use PGPASSWORD or ~/.pgpass"
        )


def read_token(env=os.environ) -> str | None:
    """The bearer token from G2W_SERVE_TOKEN, or from the file named by G2W_SERVE_TOKEN_FILE."""
    if env.get("G2W_SERVE_TOKEN"):
        return env["G2W_SERVE_TOKEN"].strip()
    if env.get("G2W_SERVE_TOKEN_FILE"):
        try:
            with open(env["G2W_SERVE_TOKEN_FILE"]) as f:
                return f.read().strip() or None
        except OSError as exc:
            raise SettingsError(f"G2W_SERVE_TOKEN_FILE: cannot read ({exc})") from exc
    return None


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def parse_settings(args: dict, env=os.environ) -> ServiceSettings:
    """Typed settings from builder args (dashes or underscores); refuses to start without a token."""
    known = {f.name for f in fields(ServiceSettings) if f.name != "token_sha256"}
    hints = typing.get_type_hints(ServiceSettings)
    values = {}
    for key, raw in (args or {}).items():
        name = key.replace("-", "_")
        if name not in known:
            raise SettingsError(f"unknown setting {key!r}: use one of {sorted(known)}")
        try:
            values[name] = (_NAMED_PARSERS.get(name) or _PARSERS[hints[name]])(raw)
        except (TypeError, ValueError) as exc:
            raise SettingsError(f"setting {key}: {exc}") from exc
    settings = ServiceSettings(**values)
    _check_store_url(settings.store_url)
    token = read_token(env)
    if token:
        return ServiceSettings(**{**values, "token_sha256": token_digest(token)})
    if not settings.insecure_no_auth:
        raise SettingsError(
            "no token: set G2W_SERVE_TOKEN or G2W_SERVE_TOKEN_FILE, or pass insecure-no-auth=true for local use only"
        )
    return settings
