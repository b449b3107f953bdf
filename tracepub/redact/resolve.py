"""Overlap resolution: one replacement per stretch of text.

Recall comes first, so overlapping spans are merged into one that covers them all (never
leaving a piece of a secret behind). The merged span takes the type of the member covering the
most sensitive kind (identity > secret > pii), then of the member covering the most text, then
confidence: a finding's value is shown in clear only for PII, so a merged span holding the
user's identity or a secret must carry that type. It is flagged for review only when every
member was.
"""

from __future__ import annotations

from operator import attrgetter

from tracepub.detect.base import priority
from tracepub.model import REDACTED, REVIEW, Span

_START = attrgetter("start")
_END = attrgetter("end")


def resolve(spans: list[Span]) -> list[Span]:
    if len(spans) <= 1:
        return spans
    # Ordered by (start, -end), ties as given: two stable sorts with C keys (a long tool output
    # has thousands of spans; a tuple key per span cost three times as much).
    ordered = sorted(spans, key=_END, reverse=True)  # reverse keeps ties in their order
    ordered.sort(key=_START)
    out: list[Span] = []
    cur = ordered[0]
    cluster: list[Span] | None = None  # None: ``cur`` alone so far
    end = cur.end
    for k in range(1, len(ordered)):
        s = ordered[k]
        if s.start < end:
            if cluster is None:
                cluster = [cur]
            cluster.append(s)
            if s.end > end:
                end = s.end
        else:
            out.append(cur if cluster is None else _merge(cluster, end))
            cur, cluster, end = s, None, s.end
    out.append(cur if cluster is None else _merge(cluster, end))
    return out


_RANK: dict[str, int] = {}  # span type -> priority(type): a few dozen types


def _rank(type_: str) -> int:
    p = _RANK.get(type_)
    if p is None:
        p = priority(type_)
        if len(_RANK) < 10_000:
            _RANK[type_] = p
    return p


def shadows(s: Span, type_: str, confidence: float) -> bool:
    """Whether a span of ``type_`` and ``confidence`` over exactly ``s``'s text can be left out
    of ``resolve``'s input when ``s`` is in it, the output the same (the engine drops it
    before resolve: a home-path username the exact values found too).

    Why this suffices: a non-empty span sorts beside ``s`` (same start and end) and joins the
    cluster ``s`` is in, overlapping exactly what ``s`` overlaps, so the clusters and their
    stretches are the same without it. In that cluster it never wins ``_merge`` (same length;
    ``s`` ranks higher, or the same and is more confident), so the winner is the same first
    maximum; the stretch starts where it did (``s`` starts there too); and with ``s`` marked
    redacted the cluster is not "review" either way and ``s`` alone is returned as it is."""
    return (
        s.end > s.start
        and s.action == REDACTED
        and (_rank(s.type), s.confidence) > (_rank(type_), confidence)
    )


def _merge(cluster: list[Span], end: int) -> Span:
    """The cluster's span: the first member with the highest (priority, length, confidence),
    as ``max`` picks it, over the whole stretch."""
    if len(cluster) == 1:
        return cluster[0]
    rank = _RANK
    best = cluster[0]
    best_key = None
    review = True
    for s in cluster:
        p = rank.get(s.type)
        if p is None:
            p = _rank(s.type)
        key = (p, s.end - s.start, s.confidence)
        if best_key is None or key > best_key:
            best, best_key = s, key
        if s.action != REVIEW:
            review = False
    action = REVIEW if review else REDACTED
    start = cluster[0].start  # the cluster is in start order
    if best.start == start and best.end == end and best.action == action:
        return best
    return Span(start, end, best.type, best.detector, best.confidence, action)
