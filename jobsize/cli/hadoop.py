"""``jobsize hadoop``: a real Hadoop cluster on this machine — start it, show it, stop it.

    jobsize hadoop up [--dir DIR] [--nodemanagers N] [--nm-memory-mb MB] [--nm-vcores V]
                      [--scheduler capacity|fair|fifo] [--queues NAME:PERCENT,...]
    jobsize hadoop status [--dir DIR]
    jobsize hadoop down [--dir DIR]
    jobsize hadoop build
    jobsize hadoop replay -o DIR [...]   (see jobsize.cli.hadoop_replay)

``build`` only builds the Maven module (fetching Hadoop's jars from Maven Central the first
time) and prints its classpath, so that later ``up``s need no network.

``up`` builds the Maven module once (offline when Maven's cache holds the jars), starts Apache
Hadoop's MiniMRYarnCluster and a JobHistoryServer on loopback, and prints the cluster's state
(RM and JHS REST addresses, the history done directory, the client configuration directory) as
JSON; ``cluster.json`` in DIR holds the same, and the commands that use the cluster
(``run --engine hadoop``, ``probe --hadoop``, ``bench-trace --engine hadoop``) read it. DIR is
``$JOBSIZE_HADOOP_DIR``, else ``~/.cache/jobsize/hadoop/cluster``.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

from jobsize.cli import hadoop_replay
from jobsize.cli._options import count
from jobsize.hadoop.cluster import DEFAULT_QUEUES, SCHEDULERS


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "hadoop", help="start, show or stop a real Hadoop mini cluster on this machine",
        description="A real Apache Hadoop cluster on this machine (MiniMRYarnCluster with a "
        "JobHistoryServer, on loopback), for running jobs with --engine hadoop and probing "
        "them with probe --hadoop. Needs Java 17 and Maven.")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    up = actions.add_parser("up", help="start the cluster (or show the one running)")
    up.add_argument("--nodemanagers", type=count(1), default=2, metavar="N",
                    help="NodeManagers (default 2)")
    up.add_argument("--nm-memory-mb", type=count(512), default=4096, metavar="MB",
                    help="memory each NodeManager offers containers (default 4096)")
    up.add_argument("--nm-vcores", type=count(1), default=4, metavar="V",
                    help="vcores each NodeManager offers (default 4)")
    up.add_argument("--scheduler", choices=SCHEDULERS, default="capacity",
                    help="the ResourceManager's scheduler (default capacity)")
    up.add_argument("--queues", default=DEFAULT_QUEUES, metavar="NAME:PERCENT,...",
                    help="the CapacityScheduler's queues, capacities summing to 100 (default "
                    f"{DEFAULT_QUEUES}: jobsize submits probes to 'probing')")
    actions.add_parser("status", help="print the running cluster's state as JSON")
    actions.add_parser("down", help="stop the cluster and every container it started")
    for sub in actions.choices.values():
        sub.add_argument("--dir", default=None, metavar="DIR",
                         help="the cluster's directory (default $JOBSIZE_HADOOP_DIR, else "
                         "~/.cache/jobsize/hadoop/cluster)")
    actions.add_parser("build", help="build the Maven module (fetching Hadoop's jars once) "
                       "and print its classpath")
    hadoop_replay.add_arguments(actions)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from jobsize.hadoop import down, find, up

    if args.action == "replay":
        return hadoop_replay.run(args)
    if args.action == "build":
        from jobsize.hadoop.toolchain import classpath
        from jobsize.progress import progress_bar

        with progress_bar("building the Hadoop module"):
            jars = classpath().jars
        print("\n".join(jars))
        return 0
    if args.action == "down":
        stopped = down(args.dir)
        print("stopped" if stopped else "no cluster was running", file=sys.stderr)
        return 0
    if args.action == "status":
        cluster = find(args.dir)
    else:
        from jobsize.progress import progress_bar

        with progress_bar("starting Hadoop"):
            cluster = up(args.dir, nodemanagers=args.nodemanagers,
                         nm_memory_mb=args.nm_memory_mb, nm_vcores=args.nm_vcores,
                         scheduler=args.scheduler, queues=args.queues)
    state = asdict(cluster)
    state.pop("classpath")
    json.dump(state, sys.stdout, indent=2)
    print()
    return 0
