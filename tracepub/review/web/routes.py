"""The pages and the JSON API of the review page.

Pages are rendered on the server (Jinja2, autoescaped) with one page of a filtered list each:
the browser never holds 100k values. The API does the changes (``state.Review``) and returns
small JSON objects, or HTML fragments rendered here when the page shows a result (a preview,
the counts after Apply, the plan before signing), so that the page's script inserts markup it
did not build from data. Blocking work runs in Starlette's thread pool.

A change is a POST with a JSON body; it is refused unless its Content-Type is JSON (a form on
another site cannot send one without a preflight) and its Origin, when sent, is this server's.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

import jinja2
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from tracepub import __version__
from tracepub.review import interactive as rv
from tracepub.review.web import conversation, preview
from tracepub.review.web import index as ix
from tracepub.review.web.render import marked, snippet, state_class
from tracepub.review.web.state import ActionError, Review

PER_PAGE = 50
SESSIONS_PER_PAGE = 100
TURNS_PER_PAGE = 200
MAX_BODY = 1 << 20
FILES_SHOWN = 300
LOADING_WAIT = 1.0  # seconds a page waits for the index before it says it is being read


def _env() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("tracepub.review.web", "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["num"] = lambda n: f"{n:,}"
    env.filters["size"] = _size
    env.filters["when"] = lambda s: (s or "").replace("T", " ")[:16] or "–"
    return env


def _size(n: float) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1000
    return str(n)


def _int(request: Request, name: str, default: int = 1) -> int:
    try:
        return int(request.query_params.get(name, default))
    except ValueError:
        return default


def _masked(g: ix.VRow) -> str:
    """What the page may show of a value: the findings hold secrets, identity and added texts
    masked already; this only makes sure (a value of those families never leaves in clear)."""
    if g.family in ix.MASKED_FAMILIES and "…" not in g.value:
        return g.value[:2] + "…"
    return g.value


def _mask_text(text: str) -> str:
    """An added text as the report shows it (it may be a client's name: not in clear)."""
    return text[:2] + "…" + text[-1:] if len(text) > 4 else text[:1] + "…"


class Pages:
    def __init__(self, review: Review, base: str, origin: str) -> None:
        self.r = review
        self.base = base  # "/t/<token>/": every link and request of the page starts with it
        self.origin = origin
        self.env = _env()

    def routes(self) -> list[Route]:
        return [
            Route("/", self.home),
            Route("/values", self.values),
            Route("/sessions", self.sessions),
            Route("/session", self.session),
            Route("/add", self.add),
            Route("/apply", self.apply),
            Route("/approve", self.approve),
            Route("/api/decide", self.api_decide, methods=["POST"]),
            Route("/api/value", self.api_value),
            Route("/api/session", self.api_session, methods=["POST"]),
            Route("/api/preview", self.api_preview),
            Route("/api/add", self.api_add, methods=["POST"]),
            Route("/api/apply", self.api_apply, methods=["GET", "POST"]),
            Route("/api/plan", self.api_plan),
            Route("/api/approve", self.api_approve, methods=["POST"]),
        ]

    # -- helpers ---------------------------------------------------------------------------------------
    def _page(self, name: str, **ctx: Any) -> HTMLResponse:
        ctx.update(
            base=self.base,
            out=self.r.shown_dir,
            reviewer=self.r.shown_reviewer,
            version=__version__,
            pending=self.r.pending(),
            job=self.r.job.to_json(),
            page_name=name,
        )
        return HTMLResponse(self.env.get_template(f"{name}.html.j2").render(**ctx))

    def _fragment(self, name: str, **ctx: Any) -> str:
        ctx.setdefault("base", self.base)
        return self.env.get_template(f"{name}.html.j2").render(**ctx)

    async def _body(self, request: Request) -> dict[str, Any]:
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            raise ActionError("a change must be sent as JSON", 415)
        origin = request.headers.get("origin")
        if origin is not None and origin != self.origin:
            raise ActionError("a change must come from this page", 403)
        raw = await request.body()
        if len(raw) > MAX_BODY:
            raise ActionError("request too large", 413)
        try:
            data = json.loads(raw or b"{}")
        except ValueError:
            raise ActionError("the request is not valid JSON", 400) from None
        if not isinstance(data, dict):
            raise ActionError("the request is not a JSON object", 400)
        return data

    def _loading(self) -> HTMLResponse:
        """While the index is being built: a page that reloads itself (a meta refresh, no script)."""
        try:
            size = self.r.out.findings.stat().st_size
        except OSError:
            size = 0
        return self._bare("loading", size=size)

    def _bare(self, name: str, **ctx: Any) -> HTMLResponse:
        return HTMLResponse(self._fragment(name, version=__version__, **ctx))

    @staticmethod
    def _error(exc: ActionError) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=exc.status)

    # -- pages -------------------------------------------------------------------------------------------
    async def home(self, request: Request) -> Response:
        return RedirectResponse(self.base + "values", status_code=303)

    def _value_row(self, g: ix.VRow, idx: ix.Index, keep: set[str]) -> dict[str, Any]:
        now, wanted = ix.value_state(g, keep)
        value = _masked(g)
        return {
            "vid": g.value_id,
            "type": g.type,
            "family": g.family,
            "value": value,
            "placeholder": g.placeholder,
            "count": g.count,
            "n_files": g.n_files,
            "flagged": g.flagged,
            "now": now,
            "wanted": wanted,
            "cls": state_class(g, keep),
            "can_keep": g.family != "custom",
            "detectors": g.detectors[:3],
            "conf": (g.conf_min, g.conf_max),
            "warn": (
                "a high-confidence secret: publish refuses while it is in clear"
                if g.blocks
                else "your own identity: kept, it is published in clear"
                if g.family == "identity"
                else ""
            )
            if wanted == "kept"
            else "",
            "keep_note": "a high-confidence secret: publish refuses while it is in clear" if g.blocks else "",
            "files": [(f, idx.dest_session.get(f)) for f in g.files],
            "snippets": [
                (snippet(s["before"], value, s["after"], idx, keep), s["file"], s["where"])
                for s in g.snippets
            ],
        }

    async def values(self, request: Request) -> Response:
        def work() -> HTMLResponse:
            idx, keep = self.r.index(timeout=LOADING_WAIT), self.r.keep_ids()
            if idx is None:
                return self._loading()
            flt = ix.ValueFilter.from_params(request.query_params)
            items = ix.select_values(idx, flt, keep)
            shown, page, pages = ix.page_of(items, _int(request, "page"), PER_PAGE)
            return self._page(
                "values",
                rows=[self._value_row(g, idx, keep) for g in shown],
                n=len(items),
                page=page,
                pages=pages,
                flt=flt,
                query=urlencode(flt.params()),
                filter_json=json.dumps(flt.params()),
                types=sorted(idx.types.items()),
                families=[
                    (f, ix.FAMILY_TITLES.get(f, f), idx.families[f])
                    for f in sorted(idx.families, key=lambda f: ix.FAMILY_ORDER.get(f, 9))
                ],
                total_values=len(idx.groups),
                flagged=idx.flagged_values,
                findings=idx.total,
            )

        return await run_in_threadpool(work)

    def _session_row(self, s: ix.SessionRow, idx: ix.Index) -> dict[str, Any]:
        facts = self.r.facts.facts(idx, s) if s.dests else ix.Facts()
        return {"row": s, "facts": facts}

    async def sessions(self, request: Request) -> Response:
        def work() -> HTMLResponse:
            idx = self.r.index(timeout=LOADING_WAIT)
            if idx is None:
                return self._loading()
            q = request.query_params
            harness, state, text, sort = (
                str(q.get(k) or "")[:200] for k in ("harness", "state", "q", "sort")
            )
            rows = ix.select_sessions(idx, self.r.facts, harness, state, text, sort)
            shown, page, pages = ix.page_of(rows, _int(request, "page"), SESSIONS_PER_PAGE)
            params = {
                k: v for k, v in (("harness", harness), ("state", state), ("q", text), ("sort", sort)) if v
            }
            return self._page(
                "sessions",
                rows=[self._session_row(s, idx) for s in shown],
                n=len(rows),
                page=page,
                pages=pages,
                query=urlencode(params),
                harness=harness,
                state=state,
                q=text,
                sort=sort,
                harnesses=sorted({s.harness for s in idx.sessions if s.harness}),
                total=len(idx.sessions),
            )

        return await run_in_threadpool(work)

    async def session(self, request: Request) -> Response:
        def work() -> Response:
            idx, keep = self.r.index(timeout=LOADING_WAIT), self.r.keep_ids()
            if idx is None:
                return self._loading()
            sid = request.query_params.get("id", "")
            s = idx.by_session.get(sid)
            if s is None:
                return self._page(
                    "missing",
                    what=f"No session {sid!r} in this folder (it may have been renamed by the last run).",
                )
            n = min(max(0, _int(request, "file", 0)), max(0, len(s.dests) - 1))
            turns: list[dict[str, Any]] = []
            more = False
            start = (max(1, _int(request, "page")) - 1) * TURNS_PER_PAGE
            if s.dests:
                dest = s.dests[n]
                path = idx.out.dropped_output(dest) if s.dropped else idx.out.output(dest)
                try:
                    got, more = conversation.page(path, dest, s.kinds[n], start, TURNS_PER_PAGE)
                except (OSError, ValueError):
                    got = []
                turns = [{"t": t, "html": marked(t.text, idx, keep)} for t in got]
            return self._page(
                "session",
                s=s,
                facts=self._session_row(s, idx)["facts"],
                file_n=n,
                turns=turns,
                more=more,
                page=start // TURNS_PER_PAGE + 1,
                sid_q=urlencode({"id": sid}),
            )

        return await run_in_threadpool(work)

    async def add(self, request: Request) -> Response:
        def work() -> HTMLResponse:
            d = self.r.folded()
            return self._page(
                "add",
                added=[_mask_text(v) for v in d.add_values],
                regexes=d.add_regexes,
                pending_adds=self.r.pending_adds,
            )

        return await run_in_threadpool(work)

    async def apply(self, request: Request) -> Response:
        return await run_in_threadpool(lambda: self._page("apply", counts=self.r.ready().counts()))

    async def approve(self, request: Request) -> Response:
        def work() -> HTMLResponse:
            return self._page("approve", approver=self.r.approver, signed=self.r.signed())

        return await run_in_threadpool(work)

    # -- API -----------------------------------------------------------------------------------------------
    async def api_decide(self, request: Request) -> Response:
        try:
            body = await self._body(request)
            action = str(body.get("action", ""))
            if isinstance(body.get("filter"), dict):
                flt = ix.ValueFilter.from_params(body["filter"])
                if not flt.active():
                    raise ActionError(
                        "choose a filter first: a decision for every value at once is not offered", 400
                    )
                vids = [g.value_id for g in ix.select_values(self.r.ready(), flt, self.r.keep_ids())]
            else:
                vids = [str(v) for v in body.get("ids", []) if isinstance(v, str)]
            result = await run_in_threadpool(self.r.decide, action, vids)
        except ActionError as exc:
            return self._error(exc)
        result["pending"] = await run_in_threadpool(self.r.pending)
        result["states"] = {}
        keep = self.r.keep_ids()
        idx = self.r.ready()
        for vid in vids[:PER_PAGE]:
            g = idx.by_id.get(vid)
            if g is not None:
                now, wanted = ix.value_state(g, keep)
                result["states"][vid] = {"now": now, "wanted": wanted, "cls": state_class(g, keep)}
        return JSONResponse(result)

    async def api_value(self, request: Request) -> Response:
        idx, keep = self.r.ready(), self.r.keep_ids()
        g = idx.by_id.get(request.query_params.get("id", ""))
        if g is None:
            return JSONResponse({"error": "no such value (reload the page)"}, status_code=404)
        now, wanted = ix.value_state(g, keep)
        return JSONResponse(
            {
                "id": g.value_id,
                "type": g.type,
                "value": _masked(g),
                "placeholder": g.placeholder,
                "masked": g.family in ix.MASKED_FAMILIES,
                "count": g.count,
                "now": now,
                "wanted": wanted,
                "flagged": g.flagged,
                "can_keep": g.family != "custom",
            }
        )

    async def api_session(self, request: Request) -> Response:
        try:
            body = await self._body(request)
            result = await run_in_threadpool(
                self.r.session, str(body.get("action", "")), str(body.get("id", ""))
            )
        except ActionError as exc:
            return self._error(exc)
        return JSONResponse(result)

    @staticmethod
    def _query(text: str, is_regex: bool) -> str:
        try:
            return rv.validate_regex(text) if is_regex else rv.validate_add(text)
        except ValueError as exc:
            raise ActionError(
                str(exc).replace("--add-regex", "the regex").replace("--add", "a text"), 400
            ) from None

    async def api_preview(self, request: Request) -> Response:
        q = request.query_params
        is_regex = q.get("regex") in ("1", "true", "on")
        try:
            text = self._query(q.get("text", ""), is_regex)
        except ActionError as exc:
            return self._error(exc)

        def work() -> dict[str, Any]:
            idx, keep = self.r.ready(), self.r.keep_ids()
            res = preview.run(idx, text, is_regex)
            examples = [
                (marked(b, idx, keep, 200), m, marked(a, idx, keep, 200), f, idx.dest_session.get(f))
                for b, m, a, f in res.examples
            ]
            sessions = {idx.dest_session.get(f) for f in res.files}
            html = self._fragment("preview", res=res, examples=examples, sessions=len(sessions))
            return {"hits": res.hits, "files": len(res.files), "complete": res.complete, "html": html}

        return JSONResponse(await run_in_threadpool(work))

    async def api_add(self, request: Request) -> Response:
        try:
            body = await self._body(request)
            is_regex = bool(body.get("regex"))
            text = self._query(str(body.get("text", "")), is_regex)
            result = await run_in_threadpool(self.r.add, text, is_regex)
        except ActionError as exc:
            return self._error(exc)
        result["pending"] = await run_in_threadpool(self.r.pending)
        return JSONResponse(result)

    async def api_apply(self, request: Request) -> Response:
        if request.method == "POST":
            try:
                await self._body(request)
            except ActionError as exc:
                return self._error(exc)
            await run_in_threadpool(self.r.start_apply)
        job = self.r.job
        data = job.to_json()
        if job.state == "done":
            data["html"] = self._fragment(
                "counts", before=job.before, after=job.after, invalidated=job.signoff_invalidated
            )
            data["pending"] = await run_in_threadpool(self.r.pending)
        return JSONResponse(data)

    async def api_plan(self, request: Request) -> Response:
        q = request.query_params

        def work() -> dict[str, Any]:
            got = self.r.plan(
                q.get("license", "").strip()[:64],
                q.get("title", "").strip()[:200],
                q.get("reviewer", "").strip()[:200],
            )
            plan = got["plan"]
            files = sorted(plan.files.items())
            return {
                "html": self._fragment(
                    "plan",
                    plan=plan,
                    files=files[:FILES_SHOWN],
                    more_files=max(0, len(files) - FILES_SHOWN),
                    card=got["card"],
                    signed=got["signed"],
                    pending=self.r.pending(),
                ),
                "license": plan.card["license"],
                "title": plan.card["title"],
            }

        try:
            return JSONResponse(await run_in_threadpool(work))
        except ActionError as exc:
            return self._error(exc)

    async def api_approve(self, request: Request) -> Response:
        try:
            body = await self._body(request)
            signed = await run_in_threadpool(
                self.r.approve,
                str(body.get("reviewer", ""))[:200],
                str(body.get("license", "")).strip()[:64] or None,
                str(body.get("title", "")).strip()[:200] or None,
            )
        except ActionError as exc:
            return self._error(exc)
        return JSONResponse(
            {"signoff": signed, "html": self._fragment("signed", signed=signed, out=self.r.shown_dir)}
        )
