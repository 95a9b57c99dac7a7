"""House rules that keep the layers apart (see ../shared/guides/house-style-anchors.md §3)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "pi_lsp"
LSP_MODULES = ("pygls", "lsprotocol")
# Only the protocol layer may speak LSP (and the demo's headless editor, a client); the ACP SDK
# has its own rule below.
LSP_ALLOWED = ("protocol/", "demo/headless.py")

# The layers, lowest first (CONTRIBUTING.md): a package may import only packages of a lower
# rank (and itself). Plain Python at the bottom, the protocol faces above the daemon, the entry
# points on top. A new package must be given its place here.
LAYERS = {
    "__init__": 0,
    "literals": 0,
    "javascript": 0,
    "safety": 0,
    "session": 1,
    "compaction": 2,
    "prompt": 2,
    "tools": 2,
    "settings": 3,
    "edits": 3,
    "agent": 4,
    "daemon": 5,
    "protocol": 7,
    "acp": 7,
    "devtools": 7,
    "cli": 9,
    "demo": 9,
    "schemas_gen": 9,
    "__main__": 10,
}


def _imports(tree: ast.AST, *, top_level_only: bool) -> list[str]:
    nodes = tree.body if top_level_only and isinstance(tree, ast.Module) else list(ast.walk(tree))
    names: list[str] = []
    for node in nodes:
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def _modules() -> list[tuple[str, ast.AST]]:
    return [
        (path.relative_to(PACKAGE).as_posix(), ast.parse(path.read_text(), str(path)))
        for path in sorted(PACKAGE.rglob("*.py"))
    ]


def test_domain_packages_never_import_lsp() -> None:
    offenders = [
        f"{name}: {module}"
        for name, tree in _modules()
        if not name.startswith(LSP_ALLOWED)
        for module in _imports(tree, top_level_only=False)
        if module.split(".")[0] in LSP_MODULES
    ]
    assert offenders == []


def _package_of(name: str) -> str:
    """``agent/loop.py`` -> ``agent``; ``settings.py`` -> ``settings``."""
    first = name.split("/")[0]
    return first.removesuffix(".py")


def test_every_package_has_a_layer() -> None:
    assert sorted({_package_of(name) for name, _ in _modules()} - LAYERS.keys()) == []


def _upward_imports(modules: list[tuple[str, ast.AST]]) -> list[str]:
    return [
        f"{name} imports {module}"
        for name, tree in modules
        for module in _imports(tree, top_level_only=False)
        if module.startswith("pi_lsp.")
        and (target := module.split(".")[1]) != (source := _package_of(name))
        and LAYERS.get(target, 99) >= LAYERS.get(source, -1)
    ]


def test_imports_point_down_the_layers() -> None:
    assert _upward_imports(_modules()) == []


def test_litellm_is_never_imported_at_module_level() -> None:
    # litellm costs ~3 s to import: only code paths that call a model may import it, lazily.
    offenders = [
        name
        for name, tree in _modules()
        for module in _imports(tree, top_level_only=True)
        if module.split(".")[0] == "litellm"
    ]
    assert offenders == []


def test_the_architecture_check_sees_imports() -> None:
    tree = ast.parse(
        "import pygls.lsp\nfrom lsprotocol import types\ndef f():\n    import litellm\n"
    )
    assert _imports(tree, top_level_only=False) == ["pygls.lsp", "lsprotocol", "litellm"]
    assert _imports(tree, top_level_only=True) == ["pygls.lsp", "lsprotocol"]
    upward = ast.parse("def f():\n    from pi_lsp.daemon.workspaces import Workspaces\n")
    downward = ast.parse("from pi_lsp.session import SessionStore\n")
    assert _upward_imports([("agent/x.py", upward), ("agent/y.py", downward)]) == [
        "agent/x.py imports pi_lsp.daemon.workspaces"
    ]


def test_only_the_acp_face_imports_the_acp_sdk() -> None:
    # The ACP face is pi_lsp/acp/; the shared layer below it knows neither protocol.
    offenders = [
        f"{name}: {module}"
        for name, tree in _modules()
        if not name.startswith("acp/")
        for module in _imports(tree, top_level_only=False)
        if module.split(".")[0] == "acp"
    ]
    assert offenders == []
    lsp_in_acp = [
        f"{name}: {module}"
        for name, tree in _modules()
        if name.startswith("acp/")
        for module in _imports(tree, top_level_only=False)
        if module.split(".")[0] in LSP_MODULES or module.startswith("pi_lsp.protocol")
    ]
    assert lsp_in_acp == []


def _unmirrored_test_folders(tests: Path, package: Path) -> list[str]:
    """Folders under ``tests`` that name no package of ``package``."""
    folders = [p for p in tests.iterdir() if p.is_dir() and p.name != "__pycache__"]
    return sorted(f.name for f in folders if not (package / f.name / "__init__.py").is_file())


def test_every_unit_test_folder_names_a_package() -> None:
    # The unit tests mirror the package tree: tests/unit/<package>/test_<module>[_aspect].py
    # tests pi_lsp/<package>/<module>.py, so a test is found from its module and back.
    tests = Path(__file__).resolve().parent
    assert any(p.is_dir() for p in tests.iterdir())
    assert _unmirrored_test_folders(tests, PACKAGE) == []


def test_the_mirror_check_sees_a_stray_folder(tmp_path: Path) -> None:
    (tmp_path / "pkg" / "session").mkdir(parents=True)
    (tmp_path / "pkg" / "session" / "__init__.py").touch()
    (tmp_path / "tests" / "session").mkdir(parents=True)
    (tmp_path / "tests" / "agent_loop").mkdir()
    assert _unmirrored_test_folders(tmp_path / "tests", tmp_path / "pkg") == ["agent_loop"]
