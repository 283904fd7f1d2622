"""The install adds one top-level import package: jobsize (models, sampler, collectors inside)."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Packages that hold data only (no __init__.py): datasets/ installs as jobsize/datasets.
DATA_PACKAGES = {"jobsize.datasets"}


def _setuptools() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def _installed_name(folder: Path, package_dir: dict[str, str]) -> str:
    rel = folder.relative_to(ROOT).as_posix()
    # The longest source folder that contains this one names its package.
    for name, src in sorted(package_dir.items(), key=lambda kv: -len(kv[1])):
        if rel == src or rel.startswith(src + "/"):
            rest = rel[len(src):].strip("/")
            return ".".join([name, *rest.split("/")]) if rest else name
    raise AssertionError(f"{rel} is not under any package-dir source folder")


def test_every_source_package_is_installed_under_jobsize() -> None:
    cfg = _setuptools()
    package_dir = cfg["package-dir"]
    folders = {p.parent for top in ("jobsize", "models", "sampler", "collectors", "hadoop")
               for p in (ROOT / top).rglob("__init__.py")}
    expected = {_installed_name(f, package_dir) for f in folders} | DATA_PACKAGES
    assert expected == set(cfg["packages"])
    assert {name.split(".")[0] for name in cfg["packages"]} == {"jobsize"}


def test_the_old_top_level_names_do_not_import() -> None:
    import importlib.util

    for name in ("models", "sampler", "collectors", "hadoop"):
        spec = importlib.util.find_spec(name)
        assert spec is None or "jobsize" not in (spec.origin or ""), name


def test_every_bundled_data_file_is_package_data() -> None:
    """What jobsize.bundled finds in a checkout is also in a wheel (jobsize/datasets/...)."""
    from fnmatch import fnmatch

    patterns = _setuptools()["package-data"]["jobsize.datasets"]
    files = [p.relative_to(ROOT / "datasets").as_posix()
             for p in (ROOT / "datasets").rglob("*") if p.is_file()]
    assert "swim/FB-2009_samples_24_times_1hr_0.tsv" in files
    assert "swim/LICENSE" in files
    missing = [f for f in files if not any(fnmatch(f, pattern) for pattern in patterns)]
    assert not missing, f"not shipped in a wheel: {missing}"


def test_the_hadoop_module_is_package_data() -> None:
    """An installed jobsize builds the Maven module from its own copy: pom.xml and every
    source and resource file under hadoop/src ship in a wheel."""
    from fnmatch import fnmatch

    patterns = _setuptools()["package-data"]["jobsize.hadoop"]
    files = [p.relative_to(ROOT / "hadoop").as_posix()
             for p in [ROOT / "hadoop" / "pom.xml", *(ROOT / "hadoop" / "src").rglob("*")]
             if p.is_file()]
    assert "pom.xml" in files and any(f.endswith("MiniCluster.java") for f in files)
    missing = [f for f in files if not any(fnmatch(f, pattern) for pattern in patterns)]
    assert not missing, f"not shipped in a wheel: {missing}"
