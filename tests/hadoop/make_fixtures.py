"""Write tests/fixtures/hadoop-3.4.2 anew: real job histories of the mini cluster, with what
Hadoop's JobHistoryParser reads from them.

    python tests/hadoop/make_fixtures.py [OUT_DIR]

Starts a mini cluster in a temporary directory, runs five jobs of the parity plan
(:mod:`parity_jobs`: map-only, combiner, a reduce retried, a failed job, a killed job), and
copies each job's ``.jhist`` as the history server filed it, its ``_conf.xml`` gzipped, and
HistoryDump's JSON of the ``.jhist`` (``<job id>.parser.json``, ``file`` cut to its name).
The cluster is stopped at the end, whatever happens.
"""

from __future__ import annotations

import gzip
import json
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

from history_dump import dump  # noqa: E402
from jobsize.hadoop import down, up  # noqa: E402
from jobsize.hadoop.client import HadoopClient  # noqa: E402
from parity_jobs import run_jobs  # noqa: E402

NAMES = ("streaming map-only", "streaming combiner", "streaming reduce retried",
         "streaming failed", "streaming killed")


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="jobsize-fixtures-") as tmp:
        where = Path(tmp) / "cluster"
        try:
            cluster = up(where)
            ran = run_jobs(HadoopClient(cluster), Path(tmp) / "work", names=NAMES)
            jobs = [job for name in NAMES for job in ran[name]]
            for job, doc in zip(jobs, dump(cluster, [j.history_path for j in jobs]), strict=True):
                shutil.copyfile(job.history_path, out / job.history_path.name)
                with open(job.conf_path, "rb") as src, gzip.GzipFile(
                        out / f"{job.job_id}_conf.xml.gz", "wb", mtime=0) as dst:
                    shutil.copyfileobj(src, dst)
                doc["file"] = job.history_path.name
                (out / f"{job.job_id}.parser.json").write_text(json.dumps(doc, indent=1) + "\n")
                print(job.job_id, job.state, job.history_path.name)
        finally:
            down(where)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parent / "fixtures" / "hadoop-3.4.2")
