"""The HUD-removal service: `serve run serve.app:build [key=value ...]` or `serve deploy serve/config.yaml`.

`build(args)` reads the settings (serve/settings.py; the token from G2W_SERVE_TOKEN or
G2W_SERVE_TOKEN_FILE, refusing to start without one unless insecure-no-auth=true) and wires
the ingress to its workers. Nothing here runs at import.

    CpuRemover  CPU methods of g2w.remove.METHODS; one clip per replica at a time
    GpuRemover  methods with gpu=True; one replica per GPU, max_ongoing_requests=1
    Detector    detection only (detector=module:function, the shipped segmenter by default); scales from zero
    Judge       the evaluate job
"""

from __future__ import annotations

from ray.serve import Application
from ray.serve.deployment import Deployment

from serve import api, workers
from serve.settings import parse_settings


def _deployment(decorated: object) -> Deployment:
    """A class `@serve.deployment` replaced at import by its Deployment; a type checker keeps
    seeing the class (class decorators do not change its type), so the replacement is checked here."""
    if not isinstance(decorated, Deployment):
        raise TypeError(f"{decorated!r} is not a Ray Serve deployment")
    return decorated


Api, Remover = _deployment(api.Api), _deployment(workers.Remover)
Detector, Judge = _deployment(workers.Detector), _deployment(workers.Judge)

# Detection is occasional: no replica (and no CPU held) until a detection is queued, one per
# queued detection up to two, and back to none a minute after the last one.
DETECTOR_AUTOSCALING = {
    "min_replicas": 0,
    "initial_replicas": 0,
    "max_replicas": 2,
    "target_ongoing_requests": 1,
    "upscale_delay_s": 0,
    "downscale_delay_s": 60,
}


def build(args: dict | None = None, api_options: dict | None = None) -> Application:
    """The application; `api_options` are Serve options for Api (the load benchmark varies
    max_ongoing_requests through them; a deployment sets them in config.yaml)."""
    settings = parse_settings(args or {})
    cpu = Remover.options(name="CpuRemover", num_replicas=settings.cpu_replicas).bind()
    gpu = (
        Remover.options(
            name="GpuRemover",
            num_replicas=settings.gpu_replicas,
            max_ongoing_requests=1,
            ray_actor_options={"num_cpus": 1, "num_gpus": 1},
        ).bind()
        if settings.gpu_replicas
        else None
    )
    detector = (
        Detector.options(autoscaling_config=DETECTOR_AUTOSCALING).bind(settings.detector) if settings.detector else None
    )
    return Api.options(**(api_options or {})).bind(settings, cpu, gpu, detector, Judge.bind(settings.judges))
