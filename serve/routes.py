"""The HTTP routes, as routers over the Api replica (`request.app.state.api`, serve/api.py).

Every router but `public` carries the one auth dependency (serve/auth.py). The routes of a job
kind (create, status, cancel, result, and the source for removals) come from `job_router`, one
call per kind, so the kinds cannot drift apart.
"""

import os
import secrets

from fastapi import APIRouter, Depends, Query, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, JSONResponse, Response

from serve import http
from serve.auth import SESSION_COOKIE, current_api, over_tls, require_caller, signed_in
from serve.inputs import describe_methods
from serve.work import DETECTION_FILES, EVALUATION_FILES, RESULT_FILES

STATIC = os.path.join(os.path.dirname(__file__), "static")
PAGE_FILES = {"app.js": "text/javascript", "style.css": "text/css"}
PREFIX = {"removal": "/v1/removals", "detection": "/v1/detections", "evaluation": "/v1/evaluations"}
PROTECTED = [Depends(require_caller)]
PAGE_LIMIT = Query(20, ge=1, le=100, description="items per page")
CURSOR = Query(None, max_length=200, description="`next_cursor` of the previous page")

public = APIRouter()
account = APIRouter(dependencies=PROTECTED)


@public.get("/healthz")
async def healthz(api=Depends(current_api)):
    health = await api.health()
    return JSONResponse(health, status_code=200 if health["ok"] else 503)


@public.get("/", include_in_schema=False)
async def page(request: Request):
    """The page, or its sign-in form for a caller without a session."""
    if signed_in(request) is None:
        return FileResponse(os.path.join(STATIC, "login.html"), status_code=401, media_type="text/html")
    return FileResponse(os.path.join(STATIC, "index.html"), media_type="text/html")


@account.get("/static/{name}", include_in_schema=False)
async def static(name: str):
    if name not in PAGE_FILES:
        return http.error(404, "not_found", "no such file")
    return FileResponse(os.path.join(STATIC, name), media_type=PAGE_FILES[name])


@account.get("/openapi.json", include_in_schema=False)
async def openapi(request: Request):
    return JSONResponse(request.app.openapi())


@account.get("/docs", include_in_schema=False)
async def docs():
    return get_swagger_ui_html(openapi_url="/openapi.json", title="g2w HUD removal")


@account.post("/v1/session")
def session(request: Request, owner: str = Depends(require_caller), api=Depends(current_api)):
    """Trade a bearer key for a session cookie (a random server-side id), so the page's <video>
    tags can load results; it expires after `session-ttl-s`."""
    session_id = secrets.token_urlsafe(32)
    api.store.create_session(session_id, owner, api.s.session_ttl_s)
    resp = Response(status_code=204)
    resp.set_cookie(
        SESSION_COOKIE,
        session_id,
        max_age=int(api.s.session_ttl_s),
        httponly=True,
        secure=over_tls(request),
        samesite="strict",
        path="/",
    )
    return resp


@account.delete("/v1/session")
def logout(request: Request, api=Depends(current_api)):
    """Sign out: the session ends on the server, and the cookie is cleared."""
    if request.cookies.get(SESSION_COOKIE):
        api.store.end_session(request.cookies[SESSION_COOKIE])
    resp = Response(status_code=204)
    resp.delete_cookie(SESSION_COOKIE, path="/", httponly=True, secure=over_tls(request), samesite="strict")
    return resp


@account.get("/v1/methods")
async def methods(api=Depends(current_api)):
    return {
        "methods": describe_methods(api.s.gpu_replicas > 0),
        "detector": bool(api.s.detector),
        "judges": ["reference", *sorted(api.s.judges)],
        "checkpoints": sorted(api.s.checkpoints),
    }


@account.post("/v1/remove-frame")
async def remove_frame(request: Request, api=Depends(current_api)):
    """Synchronous: one image in, the method's edit of it out as PNG."""
    return Response(await api.remove_frame(request), media_type="image/png")


@account.post("/v1/batches", status_code=202)
async def create_batch(request: Request, owner: str = Depends(require_caller), api=Depends(current_api)):
    """A JSONL of {"uri", "method", "options"}: one job per valid line, a rejection per bad one."""
    return await api.submit_batch(request, owner)


@account.get("/v1/batches")
def list_batches(
    owner: str = Depends(require_caller), api=Depends(current_api), limit: int = PAGE_LIMIT, cursor: str | None = CURSOR
):
    """The caller's batches, newest first; `next_cursor` (null on the last page) fetches the next page."""
    return api.list_batches(owner, limit, cursor)


@account.get("/v1/batches/{batch_id}")
def batch_status(batch_id: str, owner: str = Depends(require_caller), api=Depends(current_api)):
    return api.batch(batch_id, owner)


def job_router(kind: str, create, files: tuple[str, ...], source: bool = False) -> APIRouter:
    """The routes of one job kind under its prefix: `create(api, request, owner)` answers the POST.
    A job of another owner is answered as one that does not exist."""
    router = APIRouter(prefix=PREFIX[kind], dependencies=PROTECTED, tags=[kind])

    @router.post("", status_code=202, name=f"create_{kind}")
    async def create_job(request: Request, owner: str = Depends(require_caller), api=Depends(current_api)):
        return await create(api, request, owner)

    @router.get("", name=f"list_{kind}s")
    def list_jobs(
        owner: str = Depends(require_caller),
        api=Depends(current_api),
        limit: int = PAGE_LIMIT,
        cursor: str | None = CURSOR,
    ):
        """The caller's jobs of this kind, newest first; `next_cursor` (null on the last page) fetches the next page."""
        return api.list_jobs(kind, owner, limit, cursor)

    @router.get("/{job_id}", name=f"{kind}_status")
    def status(job_id: str, owner: str = Depends(require_caller), api=Depends(current_api)):
        return api.view(api.job(job_id, kind, owner))

    @router.delete("/{job_id}", name=f"{kind}_delete")
    def delete(job_id: str, owner: str = Depends(require_caller), api=Depends(current_api)):
        """A queued or running job is canceled (answered with its state: canceled, or cancelling
        until its worker stops); a finished one is deleted with its files (204)."""
        job = api.cancel_or_delete(api.job(job_id, kind, owner))
        return Response(status_code=204) if job is None else api.view(job)

    @router.get("/{job_id}/result/{name}", name=f"{kind}_result")
    def result(job_id: str, name: str, owner: str = Depends(require_caller), api=Depends(current_api)):
        return api.result(api.job(job_id, kind, owner), name, files)

    if source:

        @router.get("/{job_id}/source", name=f"{kind}_source")
        def job_source(job_id: str, owner: str = Depends(require_caller), api=Depends(current_api)):
            """The uploaded clip (for the page's side-by-side view); URI inputs are not served back."""
            return api.source(api.job(job_id, kind, owner))

    return router


ROUTERS = [
    public,
    account,
    job_router(
        "removal", lambda api, request, owner: api.submit_video(request, "removal", owner), RESULT_FILES, source=True
    ),
    job_router("detection", lambda api, request, owner: api.submit_video(request, "detection", owner), DETECTION_FILES),
    job_router("evaluation", lambda api, request, owner: api.submit_evaluation(request, owner), EVALUATION_FILES),
]
