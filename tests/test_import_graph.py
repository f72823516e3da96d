"""The package's import graph, read from the source with `ast`: no cycles, layers in pipeline order, and imports
inside functions only for optional dependencies.

An import inside a function hides a cycle from Python until the function runs; keeping every package-internal import
at module level makes the graph below the whole truth.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = "simdist"

# Imports allowed inside a function: dependencies that are optional or only exist on some machines.
OPTIONAL_IMPORTS = {
    "rsl_rl": "the `rl` extra (rsl-rl-lib): only the quadruped's PPO expert training needs it",
    "simdist.tasks.quadruped.train_expert": "imports rsl_rl at module level (the `rl` extra)",
    "mujoco.egl": "offscreen rendering backend: needs EGL, present on some machines only",
    "mujoco.osmesa": "offscreen rendering backend: needs OSMesa, present on some machines only",
    "mujoco.glfw": "windowed rendering backend: needs a display",
    "ray": "the `ray` extra: only `simdist generate --ray` needs it",
}

# Pipeline order: a module may import its own layer and the layers before it, never a later one. The longest
# matching prefix decides a module's layer; "=name" matches that module alone (a package's own __init__).
LAYERS = [
    ("foundation", ("simdist", "simdist.config", "simdist.progress", "simdist.overrides", "simdist.precision")),
    ("network blocks", ("=simdist.model", "simdist.model.layers")),  # the MLPs experts' critics are built from
    ("experts", ("simdist.experts",)),
    ("tasks", ("simdist.tasks",)),
    ("data", ("simdist.data",)),
    ("rollouts", ("simdist.rollout",)),  # an agent in a task domain: what every later layer evaluates with
    ("model", ("simdist.model",)),
    ("training", ("simdist.training",)),
    ("baselines", ("simdist.baselines",)),
    ("planning", ("simdist.planning",)),
    ("adaptation", ("simdist.adaptation",)),
    ("evaluation", ("simdist.eval",)),
    ("experiments", ("simdist.experiments",)),
    ("cli", ("simdist.cli",)),
]


def modules() -> dict[str, Path]:
    out = {}
    for path in sorted((SRC / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def imports(name: str, path: Path, known: set[str]) -> list[tuple[str, bool, int]]:
    """(imported module, inside a function, line) for every import of `name`: `from a import b` names module a.b
    where b is a module, else a."""
    tree = ast.parse(path.read_text(), str(path))
    top = {id(n) for n in tree.body}
    for node in tree.body:  # `if TYPE_CHECKING:` / try blocks at module level count as module level
        if isinstance(node, (ast.If, ast.Try)):
            top |= {id(n) for n in ast.walk(node)}
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        out += [(t, id(node) not in top, node.lineno) for t in targets]
    return out


def graph() -> dict[str, set[str]]:
    """Package-internal edges, module to module. Importing a.b.c from outside a.b also runs a.b's __init__."""
    mods = modules()
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        for target, _, _ in imports(name, path, set(mods)):
            if target not in mods:
                continue
            edges[name].add(target)
            parts = target.split(".")
            for k in range(2, len(parts)):
                parent = ".".join(parts[:k])
                if parent in mods and not (name == parent or name.startswith(parent + ".")):
                    edges[name].add(parent)
    for name in edges:
        edges[name].discard(name)
    return edges


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as [a, b, ..., a], or None (iterative depth-first search)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: finished
    for root in sorted(edges):
        if root in state:
            continue
        stack = [(root, iter(sorted(edges[root])))]
        path, state[root] = [root], 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                path.pop()
                state[node] = 2
            elif state.get(child) == 1:
                return path[path.index(child) :] + [child]
            elif child not in state:
                state[child] = 1
                path.append(child)
                stack.append((child, iter(sorted(edges.get(child, ())))))
    return None


def layer_of(module: str) -> int:
    best, layer = -1, None
    for i, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if prefix.startswith("="):
                if module == prefix[1:]:
                    return i
            elif (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, layer = len(prefix), i
    assert layer is not None, f"{module} belongs to no layer: add it to LAYERS"
    return layer


def test_no_import_cycles():
    cycle = find_cycle(graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_find_cycle_sees_a_cycle():
    """The check itself: a cycle planted in the real graph is found."""
    edges = graph()
    edges["simdist.data.episodes"].add("simdist.adaptation.adapt")
    cycle = find_cycle(edges)
    assert cycle is not None and cycle[0] == cycle[-1]
    assert "simdist.data.episodes" in cycle and "simdist.adaptation.adapt" in cycle


def test_layers_follow_the_pipeline():
    bad = [
        f"{a} ({LAYERS[layer_of(a)][0]}) imports {b} ({LAYERS[layer_of(b)][0]})"
        for a, targets in graph().items()
        for b in sorted(targets)
        if layer_of(b) > layer_of(a)
    ]
    assert not bad, "a lower layer imports a higher one:\n" + "\n".join(bad)


def test_function_level_imports_are_for_optional_dependencies():
    mods = modules()
    bad = []
    for name, path in mods.items():
        for target, inside, line in imports(name, path, set(mods)):
            if inside and not any(target == o or target.startswith(o + ".") for o in OPTIONAL_IMPORTS):
                bad.append(f"{path.relative_to(SRC)}:{line} imports {target}")
    assert not bad, (
        "imports inside functions that are not optional dependencies (move them to module level, or "
        "add the dependency to OPTIONAL_IMPORTS with the reason):\n" + "\n".join(bad)
    )


def test_no_module_outgrows_400_lines():
    long = {str(p.relative_to(SRC)): n for p in modules().values() if (n := len(p.read_text().splitlines())) > 400}
    assert not long, long


def test_every_module_has_a_layer():
    assert [layer_of(m) for m in modules()]


def test_layer_check_sees_a_lower_layer_importing_a_higher_one():
    """The check itself: the edges that once ran back up a layer are refused."""
    for low, high in (
        ("simdist.tasks.quadruped.batch_env", "simdist.data.generate"),
        ("simdist.planning.refine", "simdist.eval.report"),
        ("simdist.adaptation.adapt", "simdist.eval.report"),
    ):
        assert layer_of(high) > layer_of(low), (low, high)


def test_command_line_parsers_live_in_cli():
    """Every `simdist` subcommand's parser is built in simdist.cli (`python -m` entry points of single modules may
    keep their own ArgumentParser)."""
    bad = [
        str(path.relative_to(SRC))
        for name, path in modules().items()
        if not name.startswith("simdist.cli")
        and ("add_parser(" in (text := path.read_text()) or "_SubParsersAction" in text)
    ]
    assert not bad, bad


def test_no_cli_function_outgrows_60_lines():
    long = []
    for name, path in modules().items():
        if name.startswith("simdist.cli"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.FunctionDef) and node.end_lineno - node.lineno + 1 > 60:
                    long.append(f"{path.relative_to(SRC)}:{node.lineno} {node.name}")
    assert not long, long
