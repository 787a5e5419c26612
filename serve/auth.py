"""Who is calling: the one FastAPI dependency every route but /healthz goes through.

A caller is an owner, known by one of:
- `Authorization: Bearer <key>`: a key made by `g2w serve-keys create` (stored hashed, with its
  owner, in the job store), or the operator's token from G2W_SERVE_TOKEN (owner `default`);
- the page's session cookie: a random server-side session id, never a key. It is HttpOnly,
  SameSite=Strict, Secure when the request came over TLS, and expires; a state-changing request
  riding on it must come from this origin (`Origin` equal to the service's own).
Keys and session ids are compared as SHA-256 digests. A route declares nothing itself: its router
carries `Depends(require_caller)`, so a new route is protected by being added to one.
"""

import hmac

from fastapi import Request

from g2w.io import api_keys
from serve.inputs import InputError
from serve.settings import token_digest

OWNER = "default"  # the owner of the operator's token
SESSION_COOKIE = "g2w_session"
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
_SERVING: dict = {}  # the one Api replica of this process (Serve runs each replica in its own actor)


def serving(api) -> None:
    """Called by the Api replica when it starts: the routes reach it through `current_api`."""
    _SERVING["api"] = api


def current_api():
    """The Api replica serving this request. (Serve serves a copy of the FastAPI app, so the
    replica cannot hang itself on the module's app object.)"""
    return _SERVING["api"]


def bearer(request: Request) -> str:
    header = request.headers.get("authorization", "")
    return header[7:].strip() if header[:7].lower() == "bearer " else ""


def owner_of_key(key: str, api) -> "str | None":
    if api.s.token_sha256 and hmac.compare_digest(token_digest(key), api.s.token_sha256):
        return OWNER
    return api_keys.owner_of(api.s.store_path, key) if key.startswith(api_keys.PREFIX) else None


def over_tls(request: Request) -> bool:
    return request.url.scheme == "https" or request.headers.get("x-forwarded-proto", "") == "https"


def _same_origin(request: Request) -> bool:
    origin = request.headers.get("origin")
    return origin is not None and origin == f"{request.url.scheme}://{request.headers.get('host', '')}"


def signed_in(request: Request) -> "str | None":
    """The caller's owner, or None without a valid credential. InputError(403) for a session
    cookie on a state-changing request from another origin."""
    api = current_api()
    if api.s.insecure_no_auth:
        return OWNER
    key = bearer(request)
    if key:
        return owner_of_key(key, api)
    session = request.cookies.get(SESSION_COOKIE)
    owner = api.store.session_owner(session) if session else None
    if owner and request.method not in SAFE_METHODS and not _same_origin(request):
        raise InputError(403, "cross_origin", "a session may only change state from this service's own page")
    return owner


def require_caller(request: Request) -> str:
    owner = signed_in(request)
    if owner is None:
        raise InputError(401, "unauthorized", "send Authorization: Bearer <key>", {"WWW-Authenticate": "Bearer"})
    return owner
