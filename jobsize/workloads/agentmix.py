"""Browser and platform mix per page of an access log: an expensive combiner.

``map`` emits ``page\\t<user agent>`` per request (a cheap split of the log line);
``combine`` classifies every user-agent string against a bank of regular expressions (browser
family, engine, platform, device class, robot) and emits ``page\\tclass=count;...`` per page;
``reduce`` merges the counts — classifying any raw agent strings too, since Hadoop may run the
combiner any number of times, including none — and writes ``page\\ttotal\\tclass=count;...``
with classes in name order. The map is cheap and its output is no larger than usual; the CPU
goes into the combiner, once per record.
"""

from __future__ import annotations

import collections
import re
import sys
from collections.abc import Iterable, Sequence

from jobsize.workloads.streaming import count, grouped, records, run

#: Handset makers whose model tokens a device rule looks for, as user-agent parsers do (each
#: maker is one rule; an agent that names none is tested against all of them).
MAKERS = ("Samsung", "SM", "GT", "Huawei", "HUAWEI", "Honor", "Xiaomi", "Redmi", "POCO", "Mi",
          "OnePlus", "OPPO", "CPH", "vivo", "V\\d{4}", "realme", "RMX", "Motorola", "moto",
          "XT", "Nokia", "TA", "LG", "LM", "Sony", "SO", "Xperia", "HTC", "ZTE", "Blade",
          "Alcatel", "TCL", "Lenovo", "Asus", "ASUS_", "ZenFone", "Google", "Pixel", "Nexus",
          "Meizu", "Infinix", "TECNO", "itel", "Micromax", "Lava", "Karbonn", "BlackBerry",
          "BBB100", "Kindle", "KF[A-Z]{2,4}", "Nook", "Archos", "Acer", "Prestigio", "Wiko",
          "Cubot", "Doogee", "Ulefone", "Oukitel", "Blackview", "Umidigi", "Fairphone",
          "Sharp", "SH-", "Kyocera", "Fujitsu", "Panasonic", "NEC", "Casio", "BQ", "Hisense",
          "Coolpad", "Gionee", "LeEco", "Letv", "Sugar", "Vertu", "Yota", "Elephone")

#: (class, pattern) in order of precedence within each dimension; the first match names it.
DIMENSIONS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("robot", (
        ("googlebot", r"Googlebot/(\d+)\.(\d+)"), ("bingbot", r"bingbot/(\d+)"),
        ("crawler", r"(?i)\b(?:crawler|spider|slurp|archiver)\b"),
        ("tool", r"^(?:curl|Wget|python-requests|Go-http-client|okhttp)/([\d.]+)"),
        ("none", r""),
    )),
    ("browser", (
        ("edge", r"Edg(?:e|A|iOS)?/(\d+)"), ("opera", r"(?:OPR|Opera)/(\d+)"),
        ("samsung", r"SamsungBrowser/(\d+)"), ("chrome", r"(?:Chrome|CriOS)/(\d+)\.[\d.]+"),
        ("firefox", r"(?:Firefox|FxiOS)/(\d+)\.(\d+)"),
        ("safari", r"Version/(\d+)[\d.]* (?:Mobile/\w+ )?Safari/"),
        ("webkit", r"AppleWebKit/(\d+)"), ("ie", r"(?:MSIE |Trident/.*rv:)(\d+)"),
        ("other", r""),
    )),
    ("engine", (
        ("blink", r"AppleWebKit/537\.36.*Chrome/"), ("webkit", r"AppleWebKit/(\d+)"),
        ("gecko", r"Gecko/(\d{8})"), ("trident", r"Trident/(\d+)"), ("other", r""),
    )),
    ("platform", (
        ("ios", r"\b(?:iPhone|iPad|iPod)\b.*OS (\d+)_(\d+)"), ("android", r"Android (\d+)"),
        ("windows", r"Windows NT (\d+)\.(\d+)"), ("macos", r"Mac OS X (\d+)[_.](\d+)"),
        ("chromeos", r"CrOS \w+ (\d+)"), ("linux", r"\b(?:Linux|X11)\b"), ("other", r""),
    )),
    ("maker", (
        *((f"maker{i:02d}", rf"(?i)\b{m}[ _-]?([A-Za-z]*\d[\w-]*)(?: Build|[;)])")
          for i, m in enumerate(MAKERS)),
        ("unknown", r""),
    )),
    ("device", (
        ("tablet", r"(?i)\b(?:iPad|tablet|Nexus (?:7|9|10))\b"),
        ("phone", r"(?i)\b(?:iPhone|Mobile|Android.*Mobile|Windows Phone)\b"),
        ("tv", r"(?i)\b(?:SmartTV|AppleTV|GoogleTV|Tizen)\b"),
        ("bot", r"(?i)(?:bot|crawler|spider|curl|wget)"), ("desktop", r""),
    )),
)

_BANK = tuple((dim, tuple((name, re.compile(p)) for name, p in rules))
              for dim, rules in DIMENSIONS)


def classify(agent: str) -> str:
    """The agent's class, ``robot/browser/engine/platform/maker/device`` (one name per
    dimension)."""
    names = []
    for _, rules in _BANK:
        for name, pattern in rules:
            if pattern.search(agent):
                names.append(name)
                break
    return "/".join(names)


def mapper(args: Sequence[str]) -> None:
    write = sys.stdout.write
    malformed = 0
    for line in records():
        # ... "GET /page HTTP/1.1" 200 512 "-" "agent"
        parts = line.split('"')
        if len(parts) < 7:
            malformed += 1
            continue
        request = parts[1].split(" ")
        if len(request) < 2:
            malformed += 1
            continue
        write(f"{request[1]}\t{parts[5]}\n")
    count("MALFORMED_RECORDS", malformed)


def _counts(values: Iterable[str]) -> collections.Counter[str]:
    counts: collections.Counter[str] = collections.Counter()
    for value in values:
        if value.startswith("="):  # already classified: =class=n;class=n
            for item in value[1:].split(";"):
                name, _, n = item.rpartition("=")
                counts[name] += int(n)
        else:
            counts[classify(value)] += 1
    return counts


def _encode(counts: collections.Counter[str]) -> str:
    return ";".join(f"{name}={n}" for name, n in sorted(counts.items()))


def combiner(args: Sequence[str]) -> None:
    write = sys.stdout.write
    for page, values in grouped():
        write(f"{page}\t={_encode(_counts(values))}\n")


def reducer(args: Sequence[str]) -> None:
    write = sys.stdout.write
    for page, values in grouped():
        counts = _counts(values)
        write(f"{page}\t{sum(counts.values())}\t{_encode(counts)}\n")


if __name__ == "__main__":
    run({"map": mapper, "combine": combiner, "reduce": reducer})
