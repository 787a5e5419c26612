"""The FastAPI ingress: routes, the job store, and the dispatcher that feeds the workers.

Requests never wait for a removal: a job is validated (method, options, size, a probe of the
video), written to the store as `queued`, and answered with 202. A dispatcher task in this
replica claims queued jobs, at most `max_running` at a time, and calls the Remover (CPU or GPU),
Detector or Judge; the outcome goes back to the store. Because the queue lives in SQLite and not
in Serve's request queues, a restart loses nothing, and a full queue is a 429, not a crash.
Run ONE replica of this deployment: it owns the store and requeues interrupted jobs at start.
"""


import asyncio
import json
import mimetypes
import os
import shutil

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse, Response, StreamingResponse
from ray import serve
from ray.serve.exceptions import BackPressureError

from g2w.io import storage
from g2w.cases.case import load_cases
from g2w.remove import DEFAULT_METHOD, METHODS
from serve import http
from serve.inputs import JOB_ID, InputError, check_method, describe_methods, method_options, resolve_uri, upload_suffix
from serve.settings import ServiceSettings
from serve.store import JobStore, new_id
from serve.work import (DETECTION, DETECTION_FILES, EDIT_FILES, EVALUATION, EVALUATION_FILES, RESULT_FILES, read_image,
                        result_rel)

STATIC = os.path.join(os.path.dirname(__file__), "static")
PAGE_FILES = {"app.js": "text/javascript", "style.css": "text/css"}
PREFIX = {"removal": "/v1/removals", "detection": "/v1/detections", "evaluation": "/v1/evaluations"}
JUDGES = ("reference", "openai")

app = FastAPI(title="g2w HUD removal", docs_url=None, redoc_url=None)


@app.exception_handler(InputError)
async def _input_error(request: Request, exc: InputError):
    headers = {"Retry-After": str(exc.retry_after)} if getattr(exc, "retry_after", None) else None
    return http.error(exc.status, exc.reason, str(exc), headers)


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


def _discard_outputs(job: dict) -> None:
    """Remove a canceled job's results, in its folder and its output store (the upload stays)."""
    workdir = job["workdir"]
    for name in EDIT_FILES:
        path = os.path.join(workdir, name)
        if os.path.exists(path):
            os.remove(path)
    for sub in (EVALUATION, DETECTION):
        shutil.rmtree(os.path.join(workdir, sub), ignore_errors=True)
    if job["params"].get("results_at"):
        names = EVALUATION_FILES if job["kind"] == EVALUATION else RESULT_FILES
        for name in names:
            storage.remove(storage.join(job["params"]["results_at"], result_rel(job["kind"], name)))


def _stream(uri: str):
    with storage.open_binary(uri) as f:
        while chunk := f.read(1 << 20):
            yield chunk


@serve.deployment(ray_actor_options={"num_cpus": 0}, num_replicas=1)
@serve.ingress(app)
class Api:
    def __init__(self, settings: ServiceSettings, cpu_remover, gpu_remover=None, detector=None, judge=None):
        self.s = settings
        self.handles = {"cpu": cpu_remover, "gpu": gpu_remover, "detection": detector, "evaluation": judge}
        os.makedirs(os.path.join(settings.data_dir, "jobs"), exist_ok=True)
        self.store = JobStore(settings.store_path)
        self.recovered = self.store.recover()
        self.slots = {"removal": settings.max_running, "detection": settings.max_running, "evaluation": 1}
        self.running = dict.fromkeys(self.slots, 0)
        self.wake = asyncio.Event()
        self.dispatcher = asyncio.get_event_loop().create_task(self._dispatch()) if settings.dispatch else None

    # ---- dispatching --------------------------------------------------------------------------

    async def _dispatch(self) -> None:
        while True:
            self.wake.clear()
            for kind, limit in self.slots.items():
                while self.running[kind] < limit:
                    job = await asyncio.to_thread(self.store.claim_next, (kind,))
                    if job is None:
                        break
                    self.running[kind] += 1
                    asyncio.get_event_loop().create_task(self._run(job))
            try:
                await asyncio.wait_for(self.wake.wait(), timeout=1.0)
            except asyncio.TimeoutError:
                pass

    def _call(self, job: dict):
        if job["kind"] == "evaluation":
            return self.handles["evaluation"].evaluate.remote(job)
        if job["kind"] == "detection":
            return self.handles["detection"].detect.remote(job)
        return self.handles["gpu" if METHODS[job["method"]].gpu else "cpu"].remove.remote(job)

    async def _detect_after(self, job: dict, out: dict) -> dict:
        """A removal asked with `detect`: the Detector on the same source adds mask, annotation, preview.
        A failed detection is an error item of a job that still succeeded with its edit."""
        if self.handles["detection"] is None:  # accepted before a restart that turned detection off
            return {**out, "errors": [{"item": "detection", "reason": "no_detector", "message": "detection is off"}]}
        found = await self.handles["detection"].detect.remote({**job, "progress_fixed": out.get("frames", 0)})
        if found["state"] == "canceled":
            return {**found, "frames": out.get("frames", 0)}
        if found["state"] == "failed":
            return {**out, "errors": [{"item": "detection", "reason": found["reason"], "message": found.get("message", "")}]}
        return {**out, "files": out["files"] + found["files"]}

    async def _run(self, job: dict) -> None:
        try:
            out = await self._call(job)
            if job["kind"] == "removal" and out["state"] == "succeeded" and job["params"].get("detect"):
                out = await self._detect_after(job, out)
        except Exception as exc:  # a replica died or the call failed: the job fails with the reason, never vanishes
            out = {"state": "failed", "reason": "worker_error", "message": f"{type(exc).__name__}: {exc}"[:2000]}
        finally:
            self.running[job["kind"]] -= 1
            self.wake.set()
        errors = out.get("errors") or ([{"item": job["params"].get("input_name"), "reason": out["reason"],
                                         "message": out.get("message", "")}] if out["state"] == "failed" else [])
        result = {k: out[k] for k in ("files", "summary", "seconds") if k in out}
        finished = await asyncio.to_thread(self.store.finish, job["id"], out["state"], out.get("reason", ""),
                                           out.get("message", ""), result, errors, out.get("frames"))
        if not finished:  # canceled while it ran: its outputs are not results
            await asyncio.to_thread(_discard_outputs, job)
            if out["state"] == "canceled":
                await asyncio.to_thread(self.store.stopped, job["id"], out.get("frames", 0))

    async def report_progress(self, job_id: str, frames_done: int) -> bool:
        """Called by the workers (not HTTP) while a job runs: records its frames; True = stop, it was canceled."""
        return await asyncio.to_thread(self.store.progress, job_id, frames_done)

    # ---- auth, page, health --------------------------------------------------------------------

    @app.get("/healthz")
    async def healthz(self):
        return {"ok": True, "recovered": self.recovered, "running": self.running}

    @app.get("/")
    async def page(self, request: Request):
        if not http.authorized(request, self.s):
            return FileResponse(os.path.join(STATIC, "login.html"), status_code=401, media_type="text/html")
        return FileResponse(os.path.join(STATIC, "index.html"), media_type="text/html")

    @app.get("/static/{name}")
    async def static(self, name: str, request: Request):
        if not http.authorized(request, self.s):
            return http.unauthorized()
        if name not in PAGE_FILES:
            return http.error(404, "not_found", "no such file")
        return FileResponse(os.path.join(STATIC, name), media_type=PAGE_FILES[name])

    @app.post("/v1/session")
    async def session(self, request: Request):
        """Trade the bearer token for an HttpOnly cookie, so the page's <video> tags can load results."""
        if not http.authorized(request, self.s):
            return http.unauthorized()
        resp = Response(status_code=204)
        token = request.headers.get("authorization", "")[7:].strip()
        resp.set_cookie(http.SESSION_COOKIE, token, httponly=True, samesite="strict", path="/")
        return resp

    @app.get("/v1/methods")
    async def methods(self, request: Request):
        if not http.authorized(request, self.s):
            return http.unauthorized()
        return {"methods": describe_methods(self.s.gpu_replicas > 0), "detector": bool(self.s.detector)}

    # ---- submitting ----------------------------------------------------------------------------

    def _check_room(self, adding: int) -> None:
        if self.store.count_active() + adding > self.s.max_active_jobs:
            exc = InputError(429, "queue_full", f"{self.s.max_active_jobs} jobs are queued or running; retry later")
            exc.retry_after = self.s.retry_after_s
            raise exc

    def _key(self, request: Request, kind: str) -> str | None:
        key = request.headers.get("idempotency-key")
        if key is not None and not 0 < len(key) <= 200:
            raise InputError(422, "bad_idempotency_key", "Idempotency-Key must be 1-200 characters")
        return f"{kind}:{key}" if key else None

    def _accepted(self, job: dict, replayed: bool = False) -> JSONResponse:
        prefix = PREFIX[job["kind"]]
        headers = {"Location": f"{prefix}/{job['id']}", **({"Idempotent-Replayed": "true"} if replayed else {})}
        return JSONResponse(http.job_view(job, prefix), status_code=202, headers=headers)

    async def _submit_video(self, request: Request, kind: str) -> JSONResponse:
        if not http.authorized(request, self.s):
            return http.unauthorized()
        key = self._key(request, kind)
        if key and (job := await asyncio.to_thread(self.store.by_key, key)):
            return self._accepted(job, replayed=True)
        await asyncio.to_thread(self._check_room, 1)
        form = await http.read_form(request, self.s)
        method = None
        if kind == "removal":
            method = str(form.get("method") or DEFAULT_METHOD)
            check_method(method, has_ground_truth=False, gpu_available=self.s.gpu_replicas > 0)
        elif not self.s.detector:
            raise InputError(422, "no_detector", "this service runs no detector")
        options = method_options(method, form.get("options")) if method else _json_object(form.get("options"))
        detect = kind == "removal" and self._wants_detection(form.get("detect"))
        job_id = new_id("job")
        workdir = os.path.join(os.path.abspath(self.s.data_dir), "jobs", job_id)
        os.makedirs(workdir)
        try:
            source, name = await self._input(form, workdir)
            frames = await http.probe_video(source)
            params = {"options": options, "input_name": name, "detect": detect, **self._store_at(job_id)}
            job, created = await asyncio.to_thread(
                self.store.create, kind, method, params, source, workdir, key, None, frames, job_id)
        except BaseException:
            shutil.rmtree(workdir, ignore_errors=True)
            raise
        if not created:
            shutil.rmtree(workdir, ignore_errors=True)
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
        upload, uri = form.get("file"), form.get("uri")
        if upload is not None and not isinstance(upload, str):
            path = os.path.join(workdir, "source" + upload_suffix(upload.filename))
            await http.save_upload(upload, path)
            return path, os.path.basename(upload.filename or "upload")
        if uri:
            return resolve_uri(str(uri), self.s.allowed_roots), str(uri)
        raise InputError(422, "no_input", "send a file (multipart field `file`) or a `uri`")

    @app.post("/v1/removals")
    async def create_removal(self, request: Request):
        return await self._submit_video(request, "removal")

    @app.post("/v1/detections")
    async def create_detection(self, request: Request):
        return await self._submit_video(request, "detection")

    @app.post("/v1/batches")
    async def create_batch(self, request: Request):
        """A JSONL of {"uri", "method", "options"}: one job per valid line, a rejection per bad one."""
        if not http.authorized(request, self.s):
            return http.unauthorized()
        key = self._key(request, "batch")
        if key and (batch := await asyncio.to_thread(self.store.batch_by_key, key)):
            return JSONResponse(batch, status_code=202, headers={"Idempotent-Replayed": "true"})
        form = await http.read_form(request, self.s)
        upload = form.get("file")
        if upload is None or isinstance(upload, str):
            raise InputError(422, "no_input", "send the JSONL as the multipart field `file`")
        lines = [ln for ln in (await upload.read()).decode("utf-8", "replace").splitlines() if ln.strip()]
        if not 0 < len(lines) <= self.s.max_batch_items:
            raise InputError(422, "bad_batch", f"a batch has 1 to {self.s.max_batch_items} items, got {len(lines)}")
        await asyncio.to_thread(self._check_room, len(lines))
        batch_id, items, jobs_dir = new_id("batch"), [], os.path.join(os.path.abspath(self.s.data_dir), "jobs")
        for n, line in enumerate(lines, 1):
            items.append(await self._batch_item(n, line, batch_id, jobs_dir))
        await asyncio.to_thread(self.store.create_batch, batch_id, items, key)
        self.wake.set()
        return JSONResponse(await asyncio.to_thread(self.store.batch, batch_id), status_code=202,
                            headers={"Location": f"/v1/batches/{batch_id}"})

    async def _batch_item(self, n: int, line: str, batch_id: str, jobs_dir: str) -> dict:
        try:
            item = _json_object(line)
            method = str(item.get("method") or DEFAULT_METHOD)
            check_method(method, has_ground_truth=False, gpu_available=self.s.gpu_replicas > 0)
            options = method_options(method, item.get("options"))
            detect = self._wants_detection(item.get("detect"))
            source = resolve_uri(str(item.get("uri") or ""), self.s.allowed_roots)
            frames = await http.probe_video(source)
        except InputError as exc:
            return {"line": n, "state": "rejected", "reason": exc.reason, "message": str(exc)}
        job_id = new_id("job")
        os.makedirs(os.path.join(jobs_dir, job_id))
        await asyncio.to_thread(self.store.create, "removal", method,
                                {"options": options, "input_name": item["uri"], "detect": detect,
                                 **self._store_at(job_id)},
                                source, os.path.join(jobs_dir, job_id), None, batch_id, frames, job_id)
        return {"line": n, "job_id": job_id, "state": "queued", "uri": item["uri"]}

    @app.post("/v1/evaluations")
    async def create_evaluation(self, request: Request):
        """Cases (a synthesis folder or JSONL) and a folder of `<case_id>.mp4` edits, both under the roots."""
        if not http.authorized(request, self.s):
            return http.unauthorized()
        key = self._key(request, "evaluation")
        if key and (job := await asyncio.to_thread(self.store.by_key, key)):
            return self._accepted(job, replayed=True)
        await asyncio.to_thread(self._check_room, 1)
        form = await http.read_form(request, self.s)
        cases = resolve_uri(str(form.get("cases") or ""), self.s.allowed_roots)
        edited = resolve_uri(str(form.get("edited") or ""), self.s.allowed_roots)
        judge = str(form.get("judge") or "reference")
        params = {"cases": cases, "edited": edited, "judge": judge, "input_name": str(form.get("cases")),
                  **{k: str(form[k]) for k in ("endpoint", "model", "api_key_env") if form.get(k)}}
        if judge not in JUDGES:
            raise InputError(422, "bad_options", f"judge must be one of {JUDGES}")
        if judge == "openai" and not (params.get("endpoint") and params.get("model")):
            raise InputError(422, "bad_options", "the openai judge needs endpoint and model")
        if not os.path.isdir(edited):
            raise InputError(422, "bad_input", "edited must be a folder of <case_id>.mp4 edits")
        try:
            n_cases = len(await asyncio.to_thread(load_cases, cases))
        except ValueError as exc:
            raise InputError(422, "bad_cases", str(exc).replace(cases, "cases")) from exc
        job_id = new_id("job")
        workdir = os.path.join(os.path.abspath(self.s.data_dir), "jobs", job_id)
        os.makedirs(workdir)
        params = {**params, "n_cases": n_cases, **self._store_at(job_id)}
        job, created = await asyncio.to_thread(self.store.create, "evaluation", judge, params,
                                               cases, workdir, key, None, 0, job_id)
        self.wake.set()
        return self._accepted(job, replayed=not created)

    @app.post("/v1/remove-frame")
    async def remove_frame(self, request: Request):
        """Synchronous: one image in, the method's edit of it out as PNG."""
        if not http.authorized(request, self.s):
            return http.unauthorized()
        form = await http.read_form(request, self.s)
        method = str(form.get("method") or DEFAULT_METHOD)
        check_method(method, has_ground_truth=False, gpu_available=self.s.gpu_replicas > 0)
        options = method_options(method, form.get("options"))
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
            png = await handle.remove_frame.remote(rgb, method, options)
        except BackPressureError as exc:
            err = InputError(429, "busy", "the removers are busy; retry later")
            err.retry_after = self.s.retry_after_s
            raise err from exc
        except (RuntimeError, ValueError, OSError) as exc:
            raise InputError(422, "remove_failed", str(exc)[:2000]) from exc
        return Response(png, media_type="image/png")

    # ---- reading and canceling jobs ----------------------------------------------------------

    def _job(self, request: Request, job_id: str, kind: str) -> dict:
        if not JOB_ID.match(job_id):
            raise InputError(404, "not_found", "no such job")
        job = self.store.get(job_id)
        if job is None or job["kind"] != kind:
            raise InputError(404, "not_found", "no such job")
        return job

    def _status(self, request: Request, job_id: str, kind: str):
        if not http.authorized(request, self.s):
            return http.unauthorized()
        return http.job_view(self._job(request, job_id, kind), PREFIX[kind])

    def _cancel(self, request: Request, job_id: str, kind: str):
        if not http.authorized(request, self.s):
            return http.unauthorized()
        job = self._job(request, job_id, kind)
        job = self.store.cancel(job_id)
        if job["state"] == "canceled":
            _discard_outputs(job)
        return http.job_view(job, PREFIX[kind])

    def _result(self, request: Request, job_id: str, kind: str, name: str, allowed: tuple[str, ...]):
        if not http.authorized(request, self.s):
            return http.unauthorized()
        job = self._job(request, job_id, kind)
        if name not in allowed or name not in job["result"].get("files", []) or job["state"] != "succeeded":
            raise InputError(404, "not_found", f"{name}: no such result")
        rel = result_rel(kind, name)
        if job["params"].get("results_at"):  # published to the output store: streamed from there
            return StreamingResponse(_stream(storage.join(job["params"]["results_at"], rel)),
                                     media_type=mimetypes.guess_type(name)[0] or "application/octet-stream",
                                     headers={"Content-Disposition": f'attachment; filename="{name}"'})
        return FileResponse(os.path.join(job["workdir"], *rel.split("/")), filename=name)

    @app.get("/v1/removals/{job_id}")
    def removal_status(self, request: Request, job_id: str):
        return self._status(request, job_id, "removal")

    @app.delete("/v1/removals/{job_id}")
    def removal_cancel(self, request: Request, job_id: str):
        return self._cancel(request, job_id, "removal")

    @app.get("/v1/removals/{job_id}/result/{name}")
    def removal_result(self, request: Request, job_id: str, name: str):
        return self._result(request, job_id, "removal", name, RESULT_FILES)

    @app.get("/v1/removals/{job_id}/source")
    def removal_source(self, request: Request, job_id: str):
        """The uploaded clip (for the page's side-by-side view); URI inputs are not served back."""
        if not http.authorized(request, self.s):
            return http.unauthorized()
        job = self._job(request, job_id, "removal")
        if os.path.dirname(job["input"] or "") != job["workdir"] or not os.path.exists(job["input"]):
            raise InputError(404, "not_found", "only uploaded sources are served")
        return FileResponse(job["input"])

    @app.get("/v1/detections/{job_id}")
    def detection_status(self, request: Request, job_id: str):
        return self._status(request, job_id, "detection")

    @app.delete("/v1/detections/{job_id}")
    def detection_cancel(self, request: Request, job_id: str):
        return self._cancel(request, job_id, "detection")

    @app.get("/v1/detections/{job_id}/result/{name}")
    def detection_result(self, request: Request, job_id: str, name: str):
        return self._result(request, job_id, "detection", name, DETECTION_FILES)

    @app.get("/v1/batches/{batch_id}")
    def batch_status(self, request: Request, batch_id: str):
        if not http.authorized(request, self.s):
            return http.unauthorized()
        batch = self.store.batch(batch_id) if JOB_ID.match(batch_id) else None
        if batch is None:
            raise InputError(404, "not_found", "no such batch")
        return batch

    @app.get("/v1/evaluations/{job_id}")
    def evaluation_status(self, request: Request, job_id: str):
        return self._status(request, job_id, "evaluation")

    @app.delete("/v1/evaluations/{job_id}")
    def evaluation_cancel(self, request: Request, job_id: str):
        return self._cancel(request, job_id, "evaluation")

    @app.get("/v1/evaluations/{job_id}/result/{name}")
    def evaluation_result(self, request: Request, job_id: str, name: str):
        return self._result(request, job_id, "evaluation", name, EVALUATION_FILES)

