"""Fast forms of the NER gate (``detect/pii.py``) find what the forms they stand for find."""

from __future__ import annotations

import random


def test_cued_fast_matches_cued():
    """``_CUED_FAST`` (the cue's first letter as a class) finds what ``_CUED`` finds, groups too."""
    from tracepub.detect.pii import name_shape as names
    from tracepub.detect.pii import prose_names as pii

    rng = random.Random(11)
    cues = sorted(names.CUES)
    pieces = [
        *cues,
        *(c.upper() for c in cues),
        *(c.title() for c in cues),
        "Jane",
        "Doe",
        "O'Brien",
        "éva",
        "Ünal",
        "x",
        "_",
        "1",
        " ",
        "\t",
        "\n",
        ",",
        ":",
        "-",
        ".",
        "'",
        "\u0130nvite",
        "\u0131",
        "\u212a",
        "\u017f",
        "ñ",
        "athanks",
        "Thanks\u00a0Priya",
        "  ",
    ]
    for _ in range(4000):
        text = "".join(
            rng.choice(pieces) + rng.choice(("", " ", "", ", ", "\t")) for _ in range(rng.randint(1, 12))
        )
        want = [(m.span(), m.span(1)) for m in pii._CUED.finditer(text)]
        assert [(m.span(), m.span(1)) for m in pii._CUED_FAST.finditer(text)] == want, text


def _in_text_reference(ce, text: str):
    """``ContextEntropy._in_text`` as it was before its loop was inlined (``_ident_bounds``, then
    ``_assignment`` on every hit)."""
    from tracepub.detect.secrets import entropy, filters

    low = filters.lowered(text)
    if len(low) != len(text):
        return []
    spans, done, n = [], -1, len(text)
    pat = entropy._TRIGGERS.index("pat")
    for k, start, end in sorted(ce._index.find(low), key=lambda h: h[1]):
        if start <= done:
            continue
        if k == pat and (
            end < n and text[end].lower().isalpha() or start > 0 and text[start - 1].lower().isalpha()
        ):
            continue
        a, b = entropy._ident_bounds(text, start, end)
        done = b
        span = ce._assignment(text, a, b)
        if span is None and k in entropy._LABEL_HITS:  # a label then its value (``labels``)
            span = ce._label(text, start, a)
            if span is not None:
                done = max(done, span.end)
        if span is not None:
            spans.append(span)
    return spans


def test_context_entropy_loop_matches_reference():
    """The inlined hit loop of ``ContextEntropy`` (regex name end, tier memo, first-character
    test before the assignment patterns, a name then blanks then no operator straight to
    ``_nearby``) gives the spans of the original loop, on random text."""
    from tracepub.detect.secrets.entropy import ContextEntropy
    from tracepub.fakes import expand

    ce = ContextEntropy()
    rng = random.Random(7)
    names = [
        "token",
        "Token",
        "API_KEY",
        "KeyError",
        "PASSED",
        "password",
        "db.password",
        "auth",
        "PAT",
        "path",
        "GITHUB_PAT",
        "--password",
        "-token",
        "max_tokens",
        "secret",
        "client_secret",
        "apiKey",
        "self._tokens.get",
        "x" * 90 + "_token",
        "token_" + "y" * 90,
        "ñtoken",
        "\\nAPI_KEY",
        "\\ttoken",
        "pass",
        "pwd",
        "cred",
    ]
    ops = [
        "=",
        " = ",
        ": ",
        ":",
        "==",
        " is ",
        " was ",
        ", ",
        "=> ",
        ":= ",
        '"',
        "'",
        "`",
        "]",
        '\\"',
        "(",
        ".",
        " ",
        "\t",
        "\n",
        "",
        "?",
        "+= ",
        "!= ",
        ": str = ",
        " %s",
        "; ",
        "   = ",
        " \t: ",
        "  is ",
        "\t was ",
        " " * 9 + "= ",
        " " * 12 + ": ",
        " -> ",
        "  , ",
        " :: ",
        " ?= ",
        " !",
        " isn't ",
    ]
    values = [
        "{{alnum:24}}",
        "{{hex:40}}",
        "{{hex:32}}",
        "hunter2!x",
        "changeme",
        '"{{alnum:20}}"',
        "'{{b64:32}}'",
        "{{b64:48}}==",
        "abc",
        "${TOKEN}",
        "None",
        "{{alnum:8}}-{{alnum:8}}",
        "use it: {{alnum:20}}",
    ]
    fillers = [" ", "\n", ". ", "the key is here ", "x", "é", "İ", "→", "?", "&", "&api_key="]
    for _ in range(3000):
        parts = []
        for _ in range(rng.randint(1, 6)):
            parts += [
                rng.choice(fillers),
                rng.choice(names),
                rng.choice(ops),
                expand(rng.choice(values)),
                rng.choice(fillers),
            ]
        text = "".join(parts)
        assert ce._in_text(text) == _in_text_reference(ce, text), text


def test_context_entropy_cheap_tests_skip_only_what_cannot_match():
    """The character tests before ``ContextEntropy``'s costly regexes (``_operator_after`` before
    ``_ASSIGN`` after a blank; a blank before ``_HANDED_BEFORE``; a blank, ``/`` or ``:`` and a
    command word before ``_SET_BEFORE``) say no only where the regex cannot match."""
    from tracepub.detect.secrets import entropy

    rng = random.Random(5)
    pieces = [
        "token",
        " ",
        "\t",
        "\t\t",
        " " * 9,
        "=",
        "==",
        ":",
        "is",
        "was",
        "island",
        "-",
        "'",
        '"',
        "value=",
        "var apiKey string",
        "x" * 31,
        "set",
        "git config --global",
        "aws configure set",
        "npm config set //r.example.com/:",
        "here's my",
        "use the new",
        "sent you",
        "Here Is",
        ".",
        "\n",
        "ſet",
        "K",
        "é",
    ]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 14)))
        for b, c in enumerate(text):
            if c in " \t" and not entropy._operator_after(text, b):
                assert entropy._ASSIGN.match(text, b) is None, (text, b)
        for a in range(len(text) + 1):
            want = a > 0 and entropy._HANDED_BEFORE.search(text, max(0, a - 60), a) is not None
            assert entropy._handed_before(text, a) == want, (text, a)
            if entropy._SET_BEFORE.search(text, max(0, a - 80), a):
                before = text[max(0, a - 80) : a]
                assert before[-1] in " \t/:" and any(w in before for w in ("set", "add", "put", "config"))


def test_one_blas_thread_before_numpy_loads(monkeypatch):
    """``cli.main`` sets ``BLAS_THREADS`` (OpenBLAS reads it when numpy loads), and importing the
    command line loads no numpy: the setting is in place in time. A value the user set stays."""
    import os
    import subprocess
    import sys

    import tracepub.cli as cli

    code = "import sys, tracepub.cli; print('numpy' in sys.modules)"
    assert (
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "False"
    )
    monkeypatch.setattr(cli, "cli", lambda: None)
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    cli.main()
    assert os.environ["OPENBLAS_NUM_THREADS"] == "1"
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "4")
    cli.main()
    assert os.environ["OPENBLAS_NUM_THREADS"] == "4"


_NER_PROSE = [
    "Thanks Priya, the fix from Raman Iyer works.",
    "Yesterday Maria Gonzalez and Lukas Becker met Amara Okafor in Berlin about the Kestrel launch.",
    "I asked Jean-Luc O'Brien; he said Beatriz Kuznetsov owns the migration.",
    "cc: Chen Wei, Sofia Rossi. Meeting moved to Tuesday at Acme Corp.",
]


def test_ner_on_numpy_blas_finds_what_blis_finds():
    """``presidio._load_ner`` sets the model's layers to numpy's BLAS: the same entities, alone
    and batched, as thinc's default (blis) ops give."""
    from thinc.api import NumpyOps

    from tracepub.detect.pii.presidio import _load_ner
    from tracepub.detect.pii.prose_names import ner_model_name

    model = ner_model_name()
    assert model is not None
    nlp = _load_ner(model)
    layers = list(nlp.get_pipe("ner").model.walk())
    assert {layer.ops.use_blis for layer in layers} == {False}
    before = [layer.ops for layer in layers]

    def ents() -> list:
        alone = [[(e.start_char, e.end_char, e.label_) for e in nlp(t).ents] for t in _NER_PROSE]
        batched = [[(e.start_char, e.end_char, e.label_) for e in d.ents] for d in nlp.pipe(_NER_PROSE)]
        assert alone == batched
        return alone

    fast = ents()
    blis = NumpyOps(use_blis=True)
    try:
        for layer in layers:
            layer.ops = blis
        assert ents() == fast
    finally:
        for layer, ops in zip(layers, before, strict=True):
            layer.ops = ops
    assert any(label == "PERSON" for found in fast for _, _, label in found)


def test_ner_results_shared_by_the_engines_of_a_process():
    """Two ``ProseNames`` of one model and threshold share their results by window (the second
    pass reads the windows the first read); another threshold has its own."""
    from tracepub.detect.pii.presidio import Presidio
    from tracepub.detect.pii.prose_names import ProseNames
    from tracepub.model import Leaf

    a, b = ProseNames(Presidio(ner=True)), ProseNames(Presidio(ner=True))
    other = ProseNames(Presidio(ner=True, ner_threshold=0.5))
    text = _NER_PROSE[1]
    a.prefetch([text])
    (window,) = [text[s:e] for s, e in a.windows(text)]
    assert window in b._done and b._done is a._done and other._done is not a._done
    leaf = Leaf("test", prose=True)
    assert b.scan(text, leaf) == a.scan(text, leaf) != []
