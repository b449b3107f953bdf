"""Overlap resolution: one replacement per stretch of text.

Recall comes first, so overlapping spans are merged into one that covers them all (never
leaving a piece of a secret behind). The merged span takes the type of the member covering the
most sensitive kind (identity > secret > pii), then of the member covering the most text, then
confidence: a finding's value is shown in clear only for PII, so a merged span holding the
user's identity or a secret must carry that type. It is flagged for review only when every
member was.
"""

from __future__ import annotations

from tracepub.detect.base import priority
from tracepub.model import REDACTED, REVIEW, Span


def resolve(spans: list[Span]) -> list[Span]:
    if not spans:
        return spans
    if len(spans) == 1:
        return spans
    ordered = sorted(spans, key=lambda s: (s.start, -s.end))
    out: list[Span] = []
    cluster: list[Span] = [ordered[0]]
    end = ordered[0].end
    for s in ordered[1:]:
        if s.start < end:
            cluster.append(s)
            end = max(end, s.end)
        else:
            out.append(_merge(cluster, end))
            cluster, end = [s], s.end
    out.append(_merge(cluster, end))
    return out


def _merge(cluster: list[Span], end: int) -> Span:
    if len(cluster) == 1:
        return cluster[0]
    best = max(cluster, key=lambda s: (priority(s.type), s.end - s.start, s.confidence))
    action = REVIEW if all(s.action == REVIEW for s in cluster) else REDACTED
    start = min(s.start for s in cluster)
    if best.start == start and best.end == end and best.action == action:
        return best
    return Span(start, end, best.type, best.detector, best.confidence, action)
