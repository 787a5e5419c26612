"""The FastAPI ingress: the job store, admission, and the dispatcher that feeds the workers.

Requests never wait for a removal: a job is validated (method, options, size, a probe of the
video), written to the store as `queued`, and answered with 202. A dispatcher task in this
replica claims queued jobs and calls the Remover (CPU or GPU), Detector or Judge, never more at
once than `max_running` nor than the worker deployment can run (serve/capacity.py), and renews
the leases of the calls it awaits; the outcome goes back to the store. Because the queue lives in SQLite and not
in Serve's request queues, a restart loses nothing, and a full queue is a 429, not a crash.
Run ONE replica of this deployment: it owns the store and requeues interrupted jobs at start.
The routes themselves are in serve/routes.py; they call this replica's methods.
"""

import asyncio
import io
import json
import logging
import os
import shutil
import time

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse, StreamingResponse
from ray import serve
from ray.serve.exceptions import BackPressureError

from g2w.cases.case import load_cases
from g2w.io import storage
from g2w.remove import DEFAULT_METHOD, METHODS
from serve import http
from serve.auth import current_api, serving
from serve.capacity import Lane, app_capacities, lane_slots, room
from serve.containers import ALLOWED, MEDIA_TYPES, container_of
from serve.inputs import JOB_ID, InputError, check_method, method_options, resolve_uri, server_options
from serve.routes import PREFIX, ROUTERS
from serve.settings import ServiceSettings
from serve.store import FINAL, JobStore, Limits, Refused, new_id
from serve.work import (
    DETECTION,
    EDIT_FILES,
    EVALUATION,
    EVALUATION_FILES,
    RESULT_FILES,
    clear_attempts,
    read_image,
    result_rel,
)

log = logging.getLogger("ray.serve")

# Fixed answer types of results: never guessed from a name a client chose.
RESULT_TYPES = {
    "edited.mp4": "video/mp4",
    "mask.mkv": "video/x-matroska",
    "annotation.json": "application/json",
    "preview.png": "image/png",
    "summary.json": "application/json",
    "metrics.json": "application/json",
    "report.html": "text/html; charset=utf-8",
    "table.md": "text/markdown; charset=utf-8",
    "results.parquet": "application/vnd.apache.parquet",
    "judgments.jsonl": "application/x-ndjson",
}
EVALUATION_FIELDS = {"cases", "edited", "judge"}
MAX_JSONL_LINE = 1 << 16
WEDGED_S = 120.0  # store errors for this long fail the health check
SWEEP_MAX_S = 60.0  # the longest wait between two retention sweeps
BACKOFF_S = 1.0  # the dispatcher's first wait after a store error; doubles up to 60 s
CAPACITY_S = 30.0  # how often the dispatcher rereads its workers' capacity from Serve
# A served file is a download that can never run as a page of this origin (report.html included).
FILE_HEADERS = {"Content-Security-Policy": "sandbox"}

app = FastAPI(title="g2w HUD removal", openapi_url=None, docs_url=None, redoc_url=None)
for _router in ROUTERS:
    app.include_router(_router)


@app.middleware("http")
async def _safe_headers(request: Request, call_next):
    """Every answer: no content sniffing, no referrer."""
    resp = await call_next(request)
    resp.headers["X-Content-Type-Options"] = "nosniff"
    resp.headers["Referrer-Policy"] = "no-referrer"
    return resp


@app.exception_handler(InputError)
async def _input_error(request: Request, exc: InputError):
    message = http.scrub(str(exc), current_api().server_paths())
    return http.error(exc.status, exc.reason, message, exc.headers)


@app.exception_handler(Exception)
async def _unexpected(request: Request, exc: Exception):
    log.exception("unexpected error on %s", request.url.path)
    return http.error(500, "internal_error", "the service failed on this request; it is logged")


# Module helpers come before `Api`: the deployment captures the names its methods use when it is decorated.
def _json_object(text) -> dict:
    if text in (None, ""):
        return {}
    try:
        value = json.loads(text)
    except (TypeError, ValueError) as exc:
        raise InputError(422, "bad_json", f"not JSON ({exc})") from exc
    if not isinstance(value, dict):
        raise InputError(422, "bad_json", "expected a JSON object")
    return value


def _flag(name: str, value) -> bool:
    if value in (None, ""):
        return False
    text = str(value).strip().lower()
    if text not in ("true", "false", "1", "0", "on", "off"):
        raise InputError(422, "bad_options", f"{name}: expected true or false, got {value!r}")
    return text in ("true", "1", "on")


def _remove_published(job: dict) -> None:
    """Remove a job's results from its output store, when it has one."""
    if job["params"].get("results_at"):
        names = EVALUATION_FILES if job["kind"] == EVALUATION else RESULT_FILES
        for name in names:
            storage.remove(storage.join(job["params"]["results_at"], result_rel(job["kind"], name)))


def _discard_outputs(job: dict) -> None:
    """Remove a canceled job's results, in its folder and its output store (the upload stays)."""
    workdir = job["workdir"]
    for name in EDIT_FILES:
        path = os.path.join(workdir, name)
        if os.path.exists(path):
            os.remove(path)
    for sub in (EVALUATION, DETECTION):
        shutil.rmtree(os.path.join(workdir, sub), ignore_errors=True)
    _remove_published(job)


def _delete_files(job: dict) -> None:
    """Remove everything a finished job left: its folder (upload and results) and its published results.
    A `uri` source outside the folder is the user's and stays."""
    _remove_published(job)
    shutil.rmtree(job["workdir"], ignore_errors=True)


GPU_METHODS = tuple(sorted(name for name, m in METHODS.items() if m.gpu))
# The worker deployments behind each handle Api is given, by the name Serve knows them by.
_HANDLE_LANES = (
    ("cpu", "removal", "cpu", False),
    ("gpu", "removal", "gpu", True),
    ("detection", "detection", "detection", None),
    ("evaluation", "evaluation", "evaluation", None),
)


def _lanes(handles: dict) -> list[Lane]:
    return [
        Lane(name, kind, getattr(handles.get(handle), "deployment_name", None), gpu)
        for name, kind, handle, gpu in _HANDLE_LANES
    ]


def _serve_capacities(handles: dict, deployments: list[str]) -> dict:
    """Capacity of the worker deployments, from the Serve controller's view of the running app
    (the same details `serve status` and the dashboard's REST API show)."""
    from ray.serve.context import _get_global_client

    apps = [h.app_name for h in handles.values() if h is not None]
    if not apps or not deployments:
        return {}
    client = _get_global_client()
    if client is None:
        return {}
    return app_capacities(client.get_serve_details(), apps[0], deployments)


async def _failed(reason: str, message: str) -> dict:
    return {"state": "failed", "reason": reason, "message": message}


def _stream(uri: str):
    with storage.open_binary(uri) as f:
        while chunk := f.read(1 << 20):
            yield chunk


# max_ongoing_requests: every HTTP request and every worker's progress report is one of Api's
# ongoing requests, and a slow upload holds one for as long as it trickles in. At Serve's default
# of 5, five slow uploads stalled status reads for 19 s; 16 and 64 both kept them near 0.2 s
# (docs/results/serve_load.md). 64 leaves room for max-running workers' reports beside that.
@serve.deployment(ray_actor_options={"num_cpus": 0}, num_replicas=1, max_ongoing_requests=64)
@serve.ingress(app)
class Api:
    def __init__(self, settings: ServiceSettings, cpu_remover, gpu_remover=None, detector=None, judge=None):
        self.s = settings
        self.handles = {"cpu": cpu_remover, "gpu": gpu_remover, "detection": detector, "evaluation": judge}
        os.makedirs(os.path.join(settings.data_dir, "jobs"), exist_ok=True)
        self.store = JobStore(settings.store_path)
        self.recovered = self.store.recover()
        self.lanes = _lanes(self.handles)
        # Each lane's cap from the settings; lowered to its deployment's capacity once Serve says it.
        self.caps = {lane.name: 1 if lane.kind == "evaluation" else settings.max_running for lane in self.lanes}
        self.kind_caps = {"removal": settings.max_running}
        self.slots = lane_slots(self.lanes, self.caps, {})
        self.capacity_at = float("-inf")
        self.running = dict.fromkeys(("removal", "detection", "evaluation"), 0)  # by kind, for /healthz
        self.lane_running = dict.fromkeys(self.slots, 0)
        self.inflight: dict[str, int] = {}  # job id -> attempt, of the calls this replica awaits
        self.renewed_at = float("-inf")
        self.wake = asyncio.Event()
        self.failing_since: float | None = None
        self.swept_at = float("-inf")
        self.dispatcher = asyncio.get_event_loop().create_task(self._dispatch()) if settings.dispatch else None
        serving(self)  # the routes (serve/routes.py) reach this replica through serve.auth

    # ---- dispatching --------------------------------------------------------------------------

    async def _dispatch(self) -> None:
        """Claim and start queued jobs forever. A store error is logged and retried with backoff
        (1 s doubling to 60 s); `check_health` fails once errors have lasted WEDGED_S, so Serve
        replaces the replica instead of leaving a dispatcher that never dispatches."""
        delay = BACKOFF_S
        while True:
            self.wake.clear()
            try:
                await self._renew_inflight()
                await self._expire_leases()
                await self._refresh_capacity()
                await self._claim_all()
                await self._sweep()
            except Exception as exc:  # a store error must not end dispatching
                self.failing_since = self.failing_since or time.monotonic()
                log.warning("dispatcher: %s: %s; retrying in %.0f s", type(exc).__name__, exc, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 60.0)
                continue
            self.failing_since, delay = None, BACKOFF_S
            try:
                await asyncio.wait_for(self.wake.wait(), timeout=1.0)
            except TimeoutError:
                pass

    async def _expire_leases(self) -> None:
        """Requeue (or fail) jobs whose worker stopped renewing its lease: a worker that died, or
        one whose ingress replica died before it could hear the outcome."""
        lost = await asyncio.to_thread(self.store.recover)
        if any(lost.values()):
            log.warning("jobs whose worker was lost: %s", lost)
            self.recovered = {k: self.recovered.get(k, 0) + n for k, n in lost.items()}

    async def _renew_inflight(self) -> None:
        """Renew, three times a lease, the leases of every job whose call this replica still awaits.
        A call can wait in Serve's queue (a replica starting, a removal's detection pass behind
        other detections) before any worker reports for it; without this its lease would expire
        while it waits and the job be handed to a second attempt. Should this replica die, the
        renewals stop with it and only the worker's own reports keep the lease."""
        if not self.inflight or time.monotonic() - self.renewed_at < self.s.lease_s / 3:
            return
        self.renewed_at = time.monotonic()
        gone = await asyncio.to_thread(self.store.renew, dict(self.inflight), self.s.lease_s)
        for job_id in gone:  # finished, canceled or taken over: nothing left to renew
            self.inflight.pop(job_id, None)

    async def _refresh_capacity(self) -> None:
        """Bound each lane by its deployment's capacity as Serve reports it (serve/capacity.py),
        read before the first claim and again every CAPACITY_S (a redeploy may change it)."""
        if time.monotonic() - self.capacity_at < CAPACITY_S:
            return
        self.capacity_at = time.monotonic()
        names = [lane.deployment for lane in self.lanes if lane.deployment]
        try:
            capacities = await asyncio.to_thread(_serve_capacities, self.handles, names)
        except Exception as exc:  # no Serve controller reachable: keep the settings' caps
            log.warning("dispatcher: cannot read the workers' capacity (%s: %s)", type(exc).__name__, exc)
            return
        slots = lane_slots(self.lanes, self.caps, capacities)
        if slots != self.slots:
            log.info("dispatcher: jobs in flight per lane %s (deployments' capacity %s)", slots, capacities)
        self.slots = slots

    async def _claim_all(self) -> None:
        for lane in self.lanes:
            while room(self.slots, self.lane_running, self.kind_caps, self.lanes)[lane.name] > 0:
                job = await asyncio.to_thread(
                    self.store.claim_next,
                    (lane.kind,),
                    self.s.max_running_per_owner,
                    self.s.lease_s,
                    GPU_METHODS if lane.gpu is not None else None,
                    lane.gpu is False,
                )
                if job is None:
                    break
                self.lane_running[lane.name] += 1
                self.running[lane.kind] += 1
                self.inflight[job["id"]] = job["attempts"]
                asyncio.get_event_loop().create_task(self._run(job, lane.name))

    async def _sweep(self) -> None:
        """Retention: delete finished jobs (files and record) `retention-s` after they finished,
        checked every quarter of that (at most every minute)."""
        if self.s.retention_s <= 0 or time.monotonic() - self.swept_at < min(SWEEP_MAX_S, self.s.retention_s / 4):
            return
        self.swept_at = time.monotonic()
        cutoff = time.time() - self.s.retention_s
        while expired := await asyncio.to_thread(self.store.expired, cutoff):
            for job in expired:
                await asyncio.to_thread(self._delete, job)
        await asyncio.to_thread(self.store.drop_empty_batches, cutoff)

    def _delete(self, job: dict) -> None:
        _delete_files(job)
        self.store.delete(job["id"])

    def dispatch_problem(self) -> str | None:
        """Why this replica no longer dispatches, or None while it does (or dispatching is off)."""
        if self.dispatcher is None:
            return None
        if self.dispatcher.done():
            return "the dispatcher stopped"
        if self.failing_since is not None and time.monotonic() - self.failing_since > WEDGED_S:
            return f"the job store has failed for {time.monotonic() - self.failing_since:.0f} s"
        return None

    async def check_health(self) -> None:
        """Serve's health check: raising makes Serve restart this replica."""
        problem = self.dispatch_problem()
        if problem:
            raise RuntimeError(problem)

    def _call(self, job: dict):
        job = {**job, "heartbeat_s": self.s.lease_s / 3}  # the worker renews its lease three times a lease
        if job["kind"] == "evaluation":
            return self.handles["evaluation"].evaluate.remote(job)
        if job["kind"] == "detection":
            return self.handles["detection"].detect.remote(job)
        handle = self.handles["gpu" if job["method"] in GPU_METHODS else "cpu"]
        if handle is None:  # accepted before a restart that turned the GPU removers off
            return _failed("no_gpu", "this service runs no GPU remover now")
        return handle.remove.remote(job)

    async def _detect_after(self, job: dict, out: dict) -> dict:
        """A removal asked with `detect`: the Detector on the same source adds mask, annotation, preview.
        A failed detection is an error item of a job that still succeeded with its edit."""
        if self.handles["detection"] is None:  # accepted before a restart that turned detection off
            return {**out, "errors": [{"item": "detection", "reason": "no_detector", "message": "detection is off"}]}
        found = await self.handles["detection"].detect.remote({**job, "progress_fixed": out.get("frames", 0)})
        if found["state"] == "canceled":
            return {**found, "frames": out.get("frames", 0)}
        if found["state"] == "failed":
            return {
                **out,
                "errors": [{"item": "detection", "reason": found["reason"], "message": found.get("message", "")}],
            }
        return {**out, "files": out["files"] + found["files"]}

    async def _run(self, job: dict, lane: str) -> None:
        try:
            out = await self._call(job)
            if job["kind"] == "removal" and out["state"] == "succeeded" and job["params"].get("detect"):
                out = await self._detect_after(job, out)
        except Exception as exc:  # a replica died or the call failed: the job fails with the reason, never vanishes
            out = {"state": "failed", "reason": "worker_error", "message": f"{type(exc).__name__}: {exc}"[:2000]}
        finally:
            self.running[job["kind"]] -= 1
            self.lane_running[lane] -= 1
            self.inflight.pop(job["id"], None)
            self.wake.set()
        errors = out.get("errors") or (
            [{"item": job["params"].get("input_name"), "reason": out["reason"], "message": out.get("message", "")}]
            if out["state"] == "failed"
            else []
        )
        result = {k: out[k] for k in ("files", "summary", "seconds") if k in out}
        finished = await asyncio.to_thread(
            self.store.finish,
            job["id"],
            out["state"],
            out.get("reason", ""),
            out.get("message", ""),
            result,
            errors,
            out.get("frames"),
            job["attempts"],
        )
        if finished:
            await asyncio.to_thread(clear_attempts, job["workdir"])
            return
        now = await asyncio.to_thread(self.store.get, job["id"])
        if now is None or now["attempts"] != job["attempts"]:  # its lease expired: another attempt owns the job
            log.warning("job %s: the outcome of attempt %s came after its lease; dropped", job["id"], job["attempts"])
        elif now["state"] in ("cancelling", "canceled"):  # canceled while it ran: its outputs are not results
            await asyncio.to_thread(_discard_outputs, job)
            stopped_at = out.get("frames", 0) if out["state"] == "canceled" else None
            await asyncio.to_thread(self.store.stopped, job["id"], stopped_at)

    async def report_progress(self, job_id: str, frames_done: int, attempt: int | None = None) -> bool:
        """Called by the workers (not HTTP) while a job runs: records its frames and renews the
        attempt's lease; True = stop (the job was canceled, or another attempt owns it now)."""
        return await asyncio.to_thread(self.store.progress, job_id, frames_done, attempt, self.s.lease_s)

    # ---- health, views -------------------------------------------------------------------------

    async def health(self) -> dict:
        problem = self.dispatch_problem()
        return {
            "ok": problem is None,
            **({"problem": problem} if problem else {}),
            "recovered": self.recovered,
            "running": self.running,
            "slots": self.slots,
        }

    def server_paths(self) -> tuple[str, ...]:
        """Paths of this server that no answer may show."""
        dirs = (self.s.data_dir, self.s.state_dir, self.s.output_store, *self.s.allowed_roots)
        return tuple(p for d in dirs if d for p in {d, os.path.abspath(d) if "://" not in d else d})

    def view(self, job: dict) -> dict:
        view = http.job_view(job, PREFIX[job["kind"]], self.s.retention_s)
        view["message"] = http.scrub(view["message"], (job["workdir"], *self.server_paths()))
        view["errors"] = json.loads(http.scrub(json.dumps(view["errors"]), (job["workdir"], *self.server_paths())))
        return view

    # ---- submitting ----------------------------------------------------------------------------

    @property
    def limits(self) -> Limits:
        return Limits(self.s.max_active_jobs, self.s.max_active_per_owner)

    def _refused(self, exc: Refused) -> InputError:
        if exc.reason == "idempotency_key_reused":
            return InputError(422, exc.reason, str(exc))
        return InputError(429, exc.reason, str(exc), {"Retry-After": str(self.s.retry_after_s)})

    async def _store_call(self, fn, *args):
        """A store call in a thread, its admission refusals as HTTP errors."""
        try:
            return await asyncio.to_thread(fn, *args)
        except Refused as exc:
            raise self._refused(exc) from exc

    def _key(self, request: Request, kind: str, owner: str) -> str | None:
        """The request's Idempotency-Key, scoped to its owner and job kind."""
        key = request.headers.get("idempotency-key")
        if key is not None and not 0 < len(key) <= 200:
            raise InputError(422, "bad_idempotency_key", "Idempotency-Key must be 1-200 characters")
        return f"{owner}:{kind}:{key}" if key else None

    async def _replay(self, key: str | None, fingerprint: str, owner: str) -> dict | None:
        """The job an earlier request with this key made, if its payload was the same (422 if not);
        else None, once there is room for one more job of `owner` (429 if not)."""
        job_id = await self._store_call(self.store.precheck, "jobs", key, fingerprint, owner, 1, self.limits)
        return await asyncio.to_thread(self.store.get, job_id) if job_id else None

    async def _admit(self, spec: dict, owner: str, key: str | None, fingerprint: str) -> tuple[dict, bool]:
        """Queue `spec` (serve/store.py `admit`); its folder is removed unless this request made the job."""
        created = False
        try:
            job, created = await self._store_call(self.store.admit, spec, owner, self.limits, key, fingerprint)
        finally:
            if not created:
                shutil.rmtree(spec["workdir"], ignore_errors=True)
        return job, created

    def _accepted(self, job: dict, replayed: bool = False) -> JSONResponse:
        headers = {
            "Location": f"{PREFIX[job['kind']]}/{job['id']}",
            **({"Idempotent-Replayed": "true"} if replayed else {}),
        }
        return JSONResponse(self.view(job), status_code=202, headers=headers)

    def _options(self, method: str, raw) -> dict:
        check_method(method, has_ground_truth=False, gpu_available=self.s.gpu_replicas > 0)
        return method_options(method, raw, self.s.checkpoints)

    def _params(self, options: dict, name: str, detect: bool, job_id: str) -> dict:
        """A job's parameters; `run_options` (named checkpoints made paths) never leave the server."""
        return {
            "options": options,
            "run_options": server_options(options, self.s.checkpoints),
            "input_name": name,
            "detect": detect,
            **self._store_at(job_id),
        }

    def _check_disk(self) -> None:
        """507 while free space under data_dir is below `min-free-disk-mb`: checked before an
        upload is read, so a full disk refuses work instead of failing jobs half-written."""
        free = shutil.disk_usage(self.s.data_dir).free
        if free < self.s.min_free_disk_mb * (1 << 20):
            raise InputError(
                507,
                "insufficient_storage",
                f"the service is low on disk ({free >> 20} MB free,"
                f" it needs {self.s.min_free_disk_mb:.0f} MB); retry later",
                {"Retry-After": str(self.s.retry_after_s)},
            )

    async def submit_video(self, request: Request, kind: str, owner: str) -> JSONResponse:
        self._check_disk()
        key = self._key(request, kind, owner)
        form = await http.read_form(request, self.s)
        fingerprint = await asyncio.to_thread(http.fingerprint, form)
        if job := await self._replay(key, fingerprint, owner):
            return self._accepted(job, replayed=True)
        method = None
        if kind == "removal":
            method = str(form.get("method") or DEFAULT_METHOD)
            options = self._options(method, form.get("options"))
        elif not self.s.detector:
            raise InputError(422, "no_detector", "this service runs no detector")
        else:
            options = _json_object(form.get("options"))
        detect = kind == "removal" and self._wants_detection(form.get("detect"))
        job_id = new_id("job")
        workdir = os.path.join(os.path.abspath(self.s.data_dir), "jobs", job_id)
        os.makedirs(workdir)
        try:
            source, name = await self._input(form, workdir)
            frames = await http.probe_video(source, self.s)
        except BaseException:
            shutil.rmtree(workdir, ignore_errors=True)
            raise
        spec = {
            "id": job_id,
            "kind": kind,
            "method": method,
            "params": self._params(options, name, detect, job_id),
            "input": source,
            "workdir": workdir,
            "frames_total": frames,
        }
        job, created = await self._admit(spec, owner, key, fingerprint)
        self.wake.set()
        return self._accepted(job, replayed=not created)

    def _store_at(self, job_id: str) -> dict:
        """Where the job's results are published: under `output-store`, when one is set."""
        return {"results_at": storage.join(self.s.output_store, job_id)} if self.s.output_store else {}

    def _wants_detection(self, value) -> bool:
        detect = _flag("detect", value)
        if detect and not self.s.detector:
            raise InputError(422, "no_detector", "this service runs no detector")
        return detect

    async def _input(self, form, workdir: str) -> tuple[str, str]:
        """The job's source: an upload, stored under the suffix of its sniffed container (never the
        client's name), or a `uri` inside the allowed roots."""
        upload, uri = form.get("file"), form.get("uri")
        if upload is not None and not isinstance(upload, str):
            path = os.path.join(workdir, "upload.partial")
            await http.save_upload(upload, path)
            family = await asyncio.to_thread(container_of, path)
            final = os.path.join(workdir, "source" + ALLOWED[family][1])
            os.replace(path, final)
            return final, os.path.basename(upload.filename or "upload")
        if uri:
            return resolve_uri(str(uri), self.s.allowed_roots), str(uri)
        raise InputError(422, "no_input", "send a file (multipart field `file`) or a `uri`")

    async def submit_batch(self, request: Request, owner: str) -> JSONResponse:
        """Every line is checked first; then the batch and all its jobs are queued in one
        transaction, or none is (a full queue, or a key replayed with another payload)."""
        self._check_disk()
        key = self._key(request, "batch", owner)
        form = await http.read_form(request, self.s)
        upload = form.get("file")
        if upload is None or isinstance(upload, str):
            raise InputError(422, "no_input", "send the JSONL as the multipart field `file`")
        fingerprint = await asyncio.to_thread(http.fingerprint, form)
        count = await asyncio.to_thread(self._count_lines, upload.file)
        if not 0 < count <= self.s.max_batch_items:
            raise InputError(422, "bad_batch", f"a batch has 1 to {self.s.max_batch_items} items, got {count}")
        if batch_id := await self._store_call(
            self.store.precheck, "batches", key, fingerprint, owner, count, self.limits
        ):
            return self._batch_answer(batch_id, owner, replayed=True)
        batch_id, items, specs, created = new_id("batch"), [], [], False
        try:
            for n, line in enumerate(self._lines(upload.file), 1):
                item, spec = await self._batch_item(n, line)
                items.append(item)
                specs += [spec] if spec else []
            batch_id, created = await self._store_call(
                self.store.admit_batch, batch_id, items, specs, owner, self.limits, key, fingerprint
            )
        finally:
            if not created:
                for spec in specs:
                    shutil.rmtree(spec["workdir"], ignore_errors=True)
        self.wake.set()
        return self._batch_answer(batch_id, owner, replayed=not created)

    def _batch_answer(self, batch_id: str, owner: str, replayed: bool) -> JSONResponse:
        headers = {"Location": f"/v1/batches/{batch_id}", **({"Idempotent-Replayed": "true"} if replayed else {})}
        return JSONResponse(self.batch(batch_id, owner), status_code=202, headers=headers)

    @staticmethod
    def _lines(binary):
        """The non-blank lines of the spooled JSONL, read as a stream (a line is at most MAX_JSONL_LINE)."""
        binary.seek(0)
        text = io.TextIOWrapper(binary, encoding="utf-8", errors="replace", newline=None)
        try:
            while line := text.readline(MAX_JSONL_LINE):
                if line.strip():
                    yield line
        finally:
            text.detach()

    def _count_lines(self, binary) -> int:
        count = 0
        for _ in self._lines(binary):
            count += 1
            if count > self.s.max_batch_items:
                break
        return count

    async def _batch_item(self, n: int, line: str) -> tuple[dict, dict | None]:
        """A line's item of the batch record, and the job it asks for (None when rejected)."""
        try:
            item = _json_object(line)
            method = str(item.get("method") or DEFAULT_METHOD)
            options = self._options(method, item.get("options"))
            detect = self._wants_detection(item.get("detect"))
            source = resolve_uri(str(item.get("uri") or ""), self.s.allowed_roots)
            frames = await http.probe_video(source, self.s)
        except InputError as exc:
            return {
                "line": n,
                "state": "rejected",
                "reason": exc.reason,
                "message": http.scrub(str(exc), self.server_paths()),
            }, None
        job_id = new_id("job")
        workdir = os.path.join(os.path.abspath(self.s.data_dir), "jobs", job_id)
        os.makedirs(workdir)
        spec = {
            "id": job_id,
            "kind": "removal",
            "method": method,
            "params": self._params(options, str(item["uri"]), detect, job_id),
            "input": source,
            "workdir": workdir,
            "frames_total": frames,
        }
        return {"line": n, "job_id": job_id, "state": "queued", "uri": item["uri"]}, spec

    async def submit_evaluation(self, request: Request, owner: str) -> JSONResponse:
        """Cases (a synthesis folder or JSONL) and a folder of `<case_id>.mp4` edits, both under the roots,
        judged by "reference" or one of the service's named judges: never a URL or variable a client names."""
        self._check_disk()
        key = self._key(request, "evaluation", owner)
        form = await http.read_form(request, self.s)
        fingerprint = await asyncio.to_thread(http.fingerprint, form)
        if job := await self._replay(key, fingerprint, owner):
            return self._accepted(job, replayed=True)
        unknown = sorted(set(form.keys()) - EVALUATION_FIELDS)
        if unknown:
            raise InputError(
                422,
                "bad_options",
                f"unknown fields {unknown}: an evaluation takes {sorted(EVALUATION_FIELDS)}"
                " (judges, with their endpoints, are configured on the server)",
            )
        judge = str(form.get("judge") or "reference")
        if judge != "reference" and judge not in self.s.judges:
            raise InputError(422, "unknown_judge", f"judge must be one of {['reference', *sorted(self.s.judges)]}")
        cases = resolve_uri(str(form.get("cases") or ""), self.s.allowed_roots)
        edited = resolve_uri(str(form.get("edited") or ""), self.s.allowed_roots)
        if not os.path.isdir(edited):
            raise InputError(422, "bad_input", "edited must be a folder of <case_id>.mp4 edits")
        try:
            n_cases = len(await asyncio.to_thread(load_cases, cases))
        except ValueError as exc:
            raise InputError(422, "bad_cases", str(exc).replace(cases, "cases")) from exc
        job_id = new_id("job")
        workdir = os.path.join(os.path.abspath(self.s.data_dir), "jobs", job_id)
        os.makedirs(workdir)
        params = {
            "cases": cases,
            "edited": edited,
            "judge": judge,
            "input_name": str(form.get("cases")),
            "n_cases": n_cases,
            **self._store_at(job_id),
        }
        spec = {
            "id": job_id,
            "kind": "evaluation",
            "method": judge,
            "params": params,
            "input": cases,
            "workdir": workdir,
        }
        job, created = await self._admit(spec, owner, key, fingerprint)
        self.wake.set()
        return self._accepted(job, replayed=not created)

    async def remove_frame(self, request: Request) -> bytes:
        form = await http.read_form(request, self.s)
        method = str(form.get("method") or DEFAULT_METHOD)
        options = server_options(self._options(method, form.get("options")), self.s.checkpoints)
        upload = form.get("file")
        if upload is None or isinstance(upload, str):
            raise InputError(422, "no_input", "send the image as the multipart field `file`")
        data = await upload.read()
        try:
            rgb = await asyncio.to_thread(read_image, data, self.s.max_frame_pixels)
        except OverflowError as exc:
            raise InputError(413, "too_large", str(exc)) from exc
        except ValueError as exc:
            raise InputError(415, "not_image", str(exc)) from exc
        handle = self.handles["gpu" if METHODS[method].gpu else "cpu"]
        try:
            return await handle.remove_frame.remote(rgb, method, options)
        except BackPressureError as exc:
            raise InputError(
                429, "busy", "the removers are busy; retry later", {"Retry-After": str(self.s.retry_after_s)}
            ) from exc
        except (RuntimeError, ValueError, OSError) as exc:
            raise InputError(422, "remove_failed", str(exc)[:2000]) from exc

    # ---- reading and canceling jobs ----------------------------------------------------------

    def job(self, job_id: str, kind: str, owner: str) -> dict:
        """The owner's job of `kind`; any other (another owner's included) is 404."""
        if not JOB_ID.match(job_id):
            raise InputError(404, "not_found", "no such job")
        job = self.store.get(job_id)
        if job is None or job["kind"] != kind or job["owner"] != owner:
            raise InputError(404, "not_found", "no such job")
        return job

    def cancel_or_delete(self, job: dict) -> dict | None:
        """DELETE: an active job is canceled (and returned); a finished one is deleted, its files
        and its record (None)."""
        if job["state"] in FINAL:
            self._delete(job)
            return None
        canceled = self.store.cancel(job["id"])
        if canceled is not None and canceled["state"] == "canceled":
            _discard_outputs(canceled)
        return canceled  # None too when the job was deleted meanwhile

    def result(self, job: dict, name: str, allowed: tuple[str, ...]):
        if name not in allowed or name not in job["result"].get("files", []) or job["state"] != "succeeded":
            raise InputError(404, "not_found", "no such result")
        rel = result_rel(job["kind"], name)
        headers = {**FILE_HEADERS, "Content-Disposition": f'attachment; filename="{name}"'}
        if job["params"].get("results_at"):  # published to the output store: streamed from there
            return StreamingResponse(
                _stream(storage.join(job["params"]["results_at"], rel)), media_type=RESULT_TYPES[name], headers=headers
            )
        return FileResponse(
            os.path.join(job["workdir"], *rel.split("/")), media_type=RESULT_TYPES[name], headers=headers
        )

    def source(self, job: dict):
        if os.path.dirname(job["input"] or "") != job["workdir"] or not os.path.exists(job["input"]):
            raise InputError(404, "not_found", "only uploaded sources are served")
        suffix = os.path.splitext(job["input"])[1]
        return FileResponse(
            job["input"],
            media_type=MEDIA_TYPES.get(suffix, "application/octet-stream"),
            headers={**FILE_HEADERS, "Content-Disposition": f'attachment; filename="source{suffix}"'},
        )

    def batch(self, batch_id: str, owner: str) -> dict:
        batch = self.store.batch(batch_id) if JOB_ID.match(batch_id) else None
        if batch is None or batch.pop("owner") != owner:
            raise InputError(404, "not_found", "no such batch")
        created = batch.pop("created")
        return {**batch, "created_at": http.rfc3339(created)}

    def list_jobs(self, kind: str, owner: str, limit: int, cursor: str | None) -> dict:
        """One page of the owner's jobs of `kind`, newest first, and the cursor of the next page."""
        jobs = self.store.list_jobs(owner, kind, limit + 1, http.read_cursor(cursor))
        page = jobs[:limit]
        more = len(jobs) > limit
        return {
            "items": [self.view(j) for j in page],
            "next_cursor": http.make_cursor(page[-1]["created"], page[-1]["id"]) if more else None,
        }

    def list_batches(self, owner: str, limit: int, cursor: str | None) -> dict:
        """One page of the owner's batches, newest first, like `list_jobs`."""
        found = self.store.list_batches(owner, limit + 1, http.read_cursor(cursor))
        page = found[:limit]
        return {
            "items": [self.batch(batch_id, owner) for _, batch_id in page],
            "next_cursor": http.make_cursor(*page[-1]) if len(found) > limit else None,
        }
