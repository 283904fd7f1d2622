"""Java, Maven and the built Hadoop module: the classpath every JVM of the mini cluster runs on.

The Maven module beside this file (``pom.xml``, ``src/``) names Apache Hadoop's artifacts and
holds jobsize's two small Java mains. :func:`classpath` builds it once per content — in a
cache directory, so an installed (read-only) jobsize builds too — offline when Maven's local
repository already holds the jars, online otherwise, and returns the module's jar followed by
every dependency jar.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from jobsize.atomic import atomic_write
from jobsize.errors import ConfigError, JobsizeError

MODULE = Path(__file__).resolve().parent
#: Hadoop 3.4 on Java 17: Guice, Jersey and Hadoop's own reflection need these packages open,
#: as Hadoop's launch scripts open them (task JVMs get them from the MRAppMaster).
JAVA_OPENS = tuple(
    f"--add-opens=java.base/{package}=ALL-UNNAMED"
    for package in ("java.lang", "java.lang.reflect", "java.util", "java.util.concurrent",
                    "java.util.regex", "java.io", "java.net", "java.nio", "java.text",
                    "java.security", "sun.nio.ch", "sun.net.util", "sun.security.util",
                    "sun.security.x509")
)


class ToolchainError(ConfigError):
    """Java or Maven is missing, or the Hadoop module does not build."""


@dataclass(frozen=True)
class Classpath:
    """The built module: its jar and the dependency jars, in classpath order."""

    jars: tuple[str, ...]

    def with_conf(self, conf_dir: str | os.PathLike[str] | None) -> str:
        """The classpath string, a cluster's configuration directory first when given."""
        return os.pathsep.join(([os.fspath(conf_dir)] if conf_dir else []) + list(self.jars))


def java() -> str:
    """The ``java`` to run (``$JAVA_HOME/bin/java`` when set, else the one on PATH)."""
    home = os.environ.get("JAVA_HOME")
    candidate = Path(home, "bin", "java") if home else None
    if candidate and candidate.is_file():
        return str(candidate)
    found = shutil.which("java")
    if not found:
        raise ToolchainError("Java 17 or newer is needed to run Hadoop and none was found "
                             "(install a JDK, or set JAVA_HOME)", source="java")
    return found


def maven() -> str:
    found = shutil.which("mvn")
    if not found:
        raise ToolchainError("Maven is needed to build the Hadoop module and none was found "
                             "(install maven, e.g. apt-get install maven)", source="mvn")
    return found


def java_available() -> str | None:
    """Why Hadoop cannot run here (no Java, no Maven), or None when it can."""
    try:
        java()
        maven()
    except ToolchainError as exc:
        return str(exc)
    return None


def _module_files() -> list[Path]:
    return [MODULE / "pom.xml", *sorted((MODULE / "src").rglob("*"))]


def _digest() -> str:
    h = hashlib.sha256()
    for path in _module_files():
        if path.is_file():
            h.update(path.relative_to(MODULE).as_posix().encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


def cache_dir() -> Path:
    """Where modules are built: ``$JOBSIZE_CACHE`` or ``~/.cache/jobsize``, then ``hadoop``."""
    base = os.environ.get("JOBSIZE_CACHE") or Path(
        os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", "jobsize")
    return Path(base) / "hadoop"


def classpath(*, log: Path | None = None) -> Classpath:
    """Build the module if this content was never built, and return its classpath."""
    build = cache_dir() / f"module-{_digest()}"
    listing = build / "target" / "classpath.txt"
    jar = build / "target" / "jobsize-hadoop.jar"
    if not (listing.is_file() and jar.is_file()):
        _build(build, log or build.parent / "build.log")
    jars = [str(jar), *listing.read_text().strip().split(os.pathsep)]
    missing = [j for j in jars if not Path(j).is_file()]
    if missing:  # Maven's local repository was emptied since the build
        shutil.rmtree(build / "target", ignore_errors=True)
        return classpath(log=log)
    return Classpath(tuple(jars))


def _build(build: Path, log: Path) -> None:
    if build.exists():
        shutil.rmtree(build)
    for path in _module_files():
        if path.is_file():
            target = build / path.relative_to(MODULE)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
    java()
    mvn = maven()
    log.parent.mkdir(parents=True, exist_ok=True)
    # Offline first: once Maven's repository holds the jars no network is needed; a first
    # build (or a new Hadoop version) downloads them from Maven Central.
    for offline in (True, False):
        command = [mvn, "-B", "-q", *(["-o"] if offline else []), "package"]
        with open(log, "ab") as out:
            done = subprocess.run(command, cwd=build, stdout=out, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, check=False)
        if done.returncode == 0:
            break
    else:
        raise ToolchainError(f"the Hadoop module did not build (mvn package exited "
                             f"{done.returncode}); Maven's output is in {log}",
                             source=build / "pom.xml")
    built = build / "target" / "jobsize-hadoop-0.1.0.jar"
    if not built.is_file():
        raise JobsizeError("mvn package made no jar", source=build / "pom.xml")
    with atomic_write(build / "target" / "jobsize-hadoop.jar") as out:
        out.write(built.read_bytes())
