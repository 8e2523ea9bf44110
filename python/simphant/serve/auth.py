"""Bearer-token authentication (docs/service.md, "Tokens").

`current_token` is the FastAPI dependency of every job route and of the web pages: it
reads `Authorization: Bearer <token>` (or, for pages opened in a browser, the cookie
`simphant_token`), looks the token up in the config's tokens and returns its TokenInfo;
401 with `WWW-Authenticate: Bearer` otherwise.
"""
from __future__ import annotations

import hmac

from fastapi import HTTPException, Request

from .config import TokenInfo

#: The cookie a browser page may carry instead of the Authorization header.
TOKEN_COOKIE = "simphant_token"


def lookup_token(tokens: dict, token: str):
    """The TokenInfo of `token` in `tokens`, compared in constant time; None when unknown."""
    found = None
    for known, info in tokens.items():
        if hmac.compare_digest(known.encode(), token.encode()):
            found = info
    return found


def current_token(request: Request) -> TokenInfo:
    """The caller's TokenInfo; raises HTTPException 401 when the token is missing or unknown."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if not header:
        token = request.cookies.get(TOKEN_COOKIE, "")
    elif scheme.lower() != "bearer":
        token = ""
    token = token.strip()
    info = lookup_token(request.app.state.config.tokens, token) if token else None
    if info is None:
        raise HTTPException(status_code=401,
                            detail="missing or unknown bearer token (Authorization: Bearer <token>)",
                            headers={"WWW-Authenticate": "Bearer"})
    return info
