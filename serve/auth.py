"""Who is calling: the one FastAPI dependency every route but /healthz goes through.

The caller is known by `Authorization: Bearer <token>` or by the page's session cookie
(serve/http.py). A route declares nothing itself: its router carries `Depends(require_caller)`,
so a new route is protected by being added to one.
"""


from fastapi import Request

from serve import http
from serve.inputs import InputError

OWNER = "default"  # the owner of every job while the service has one shared token


_SERVING: dict = {}  # the one Api replica of this process (Serve runs each replica in its own actor)


def serving(api) -> None:
    """Called by the Api replica when it starts: the routes reach it through `current_api`."""
    _SERVING["api"] = api


def current_api():
    """The Api replica serving this request. (Serve serves a copy of the FastAPI app, so the
    replica cannot hang itself on the module's app object.)"""
    return _SERVING["api"]


def signed_in(request: Request) -> "str | None":
    """The caller's owner name, or None when the request carries no valid credential."""
    return OWNER if http.authorized(request, current_api().s) else None


def require_caller(request: Request) -> str:
    owner = signed_in(request)
    if owner is None:
        raise InputError(401, "unauthorized", "send Authorization: Bearer <token>", {"WWW-Authenticate": "Bearer"})
    return owner
