"""The local server of ``tracepub review DIR --web``: 127.0.0.1 only, a token on every request.

What protects the page (it shows personal data and can re-run and sign a dataset):

- **Loopback only.** The socket is bound to 127.0.0.1; nothing on the network reaches it.
- **A random token in every URL** (``/t/<token>/...``, 256 bits from ``secrets``), printed once.
  A request without it is refused (403), static files included. The token is in the path, not
  in a cookie: cookies are shared by every port of 127.0.0.1, so another local user's server on
  another port would receive it from the browser; a path is sent only to this server. Pages
  send no Referer (``Referrer-Policy: no-referrer``), so the token does not leave in one either.
- **The Host header is checked** (``127.0.0.1:PORT`` or ``localhost:PORT``): a web page whose
  name is made to resolve to 127.0.0.1 (DNS rebinding) sends its own name, and is refused.
- **Changes are JSON POSTs** whose Origin, when sent, must be this server's (``routes``).
- **A strict Content-Security-Policy**: scripts and styles only from this server, as files (no
  inline script), no network access of any other origin, no framing.
- **Secrets and identity are never sent in clear**: the findings hold them masked, and the
  pages read values only from the findings and text only from dataset/ (already redacted).
"""

from __future__ import annotations

import contextlib
import hmac
import secrets
import socket
import sys
import threading
import time
import webbrowser
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from importlib import resources
from pathlib import Path
from typing import Any

from tracepub.errors import Refusal

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
]
STATIC = {
    "app.js": "text/javascript; charset=utf-8",
    "app.css": "text/css; charset=utf-8",
    "favicon.svg": "image/svg+xml",
}


class Guard:
    """ASGI middleware: the Host check and the token, before anything else runs; the security
    headers on every response, refusals included."""

    def __init__(self, app: Callable[..., Awaitable[None]], token: str, port: int) -> None:
        self.app = app
        self.token = token
        self.hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":  # no websockets
            return
        host = dict(scope.get("headers") or []).get(b"host", b"").decode("latin-1")
        if host not in self.hosts:
            await _refuse(
                send,
                403,
                "Refused: this page answers only to the address tracepub printed "
                "(http://127.0.0.1:PORT/t/TOKEN/).",
            )
            return
        path: str = scope.get("path", "")
        parts = path.split("/", 3)  # "", "t", token, rest
        if (
            len(parts) < 3
            or parts[1] != "t"
            or not hmac.compare_digest(parts[2].encode(), self.token.encode())
        ):
            await _refuse(
                send,
                403,
                "Refused: missing or wrong token. Open the address `tracepub review --web` "
                "printed (it changes every time it starts).",
            )
            return

        async def send_with_headers(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *HEADERS]
            await send(message)

        await self.app(scope, receive, send_with_headers)


async def _refuse(send: Send, status: int, text: str) -> None:
    body = (text + "\n").encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                *HEADERS,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _static(name: str) -> tuple[bytes, str] | None:
    if name not in STATIC:
        return None
    return (resources.files("tracepub.review.web") / "static" / name).read_bytes(), STATIC[name]


def create_app(
    out: Path,
    token: str,
    port: int,
    reviewer: str | None = None,
    secret_values: tuple[str, ...] = (),
    secrets_files: tuple[Path, ...] = (),
) -> Any:
    """The ASGI app for DIR ``out``, answering at ``http://127.0.0.1:<port>/t/<token>/``."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import PlainTextResponse, Response
    from starlette.routing import Mount, Route

    from tracepub.review.web.routes import Pages
    from tracepub.review.web.state import ActionError, Review

    review = Review(out, reviewer, secret_values, secrets_files)
    base = f"/t/{token}/"
    pages = Pages(review, base, f"http://127.0.0.1:{port}")

    async def static(request: Request) -> Response:
        got = _static(request.path_params["name"])
        if got is None:
            return PlainTextResponse("not found", status_code=404)
        return Response(got[0], media_type=got[1])

    async def refused(request: Request, exc: Exception) -> Response:
        status = exc.status if isinstance(exc, ActionError) else 500
        return PlainTextResponse(f"Refused: {exc}", status_code=status)

    app = Starlette(
        routes=[Mount(f"/t/{token}", routes=[Route("/static/{name}", static), *pages.routes()])],
        exception_handlers={ActionError: refused},
    )
    app.state.review = review
    return Guard(app, token, port)


def bind(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1 (``port`` 0: any free one)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        if port:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        sock.listen(64)
    except OSError as exc:
        sock.close()
        raise Refusal(
            f"cannot listen on 127.0.0.1:{port} ({exc.strerror or exc}): choose another --port, or "
            "leave it out to take a free one"
        ) from None
    sock.set_inheritable(False)
    return sock


@contextlib.contextmanager
def running(out: Path, reviewer: str | None = None, port: int = 0) -> Iterator[str]:
    """The server in a thread of this process, for the browser tests and the screenshots:
    yields the page's address and stops the server on exit."""
    import uvicorn

    sock = bind(port)
    port = sock.getsockname()[1]
    token = secrets.token_urlsafe(32)
    app = create_app(out, token, port, reviewer)
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off", ws="none")
    )
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}/t/{token}/"
    finally:
        server.should_exit = True
        thread.join(10)
        app.app.state.review.close()
        sock.close()


def serve(
    out: Path,
    port: int = 0,
    open_browser: bool = True,
    reviewer: str | None = None,
    secret_values: tuple[str, ...] = (),
    secrets_files: tuple[Path, ...] = (),
    echo: Callable[[str], None] | None = None,
) -> None:
    """Serve the review of DIR until interrupted (Ctrl-C)."""
    try:
        import starlette  # noqa: F401
        import uvicorn
    except ImportError:
        raise Refusal(
            "the browser review needs starlette and uvicorn, which tracepub depends on: "
            "install tracepub again, or pip install starlette uvicorn"
        ) from None
    from tracepub.review.interactive import check_dir

    check_dir(out)
    sock = bind(port)
    port = sock.getsockname()[1]
    token = secrets.token_urlsafe(32)
    app = create_app(out, token, port, reviewer, secret_values, secrets_files)
    url = f"http://127.0.0.1:{port}/t/{token}/"
    say = echo or (lambda s: print(s, file=sys.stderr, flush=True))
    say(f"Review {out} in the browser: {url}")
    say("Only this address works (it holds a one-time token). Stop with Ctrl-C.")
    if open_browser:
        threading.Timer(0.3, webbrowser.open, args=(url,)).start()
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off", ws="none")
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    finally:
        app.app.state.review.close()
        sock.close()
