"""The Avro schema of Hadoop's job-history events, in the layout Hadoop 2.6 writes.

A ``.jhist`` file embeds its schema on its second line and every event is a datum of the record
``Event {type: EventType, event: union of the event records}``. This module builds that schema
(the records of ``Events.avpr`` of Hadoop 2.6: nullable workflow fields, attempt locality, the
queue-change event) so files written by the local engine are read by the same code as a cluster's.
"""

from __future__ import annotations

from typing import Any

NAMESPACE = "org.apache.hadoop.mapreduce.jobhistory"

EVENT_TYPES = (
    "JOB_SUBMITTED", "JOB_INITED", "JOB_FINISHED", "JOB_PRIORITY_CHANGED", "JOB_STATUS_CHANGED",
    "JOB_QUEUE_CHANGED", "JOB_FAILED", "JOB_KILLED", "JOB_ERROR", "JOB_INFO_CHANGED",
    "TASK_STARTED", "TASK_FINISHED", "TASK_FAILED", "TASK_UPDATED", "NORMALIZED_RESOURCE",
    "MAP_ATTEMPT_STARTED", "MAP_ATTEMPT_FINISHED", "MAP_ATTEMPT_FAILED", "MAP_ATTEMPT_KILLED",
    "REDUCE_ATTEMPT_STARTED", "REDUCE_ATTEMPT_FINISHED", "REDUCE_ATTEMPT_FAILED",
    "REDUCE_ATTEMPT_KILLED", "SETUP_ATTEMPT_STARTED", "SETUP_ATTEMPT_FINISHED",
    "SETUP_ATTEMPT_FAILED", "SETUP_ATTEMPT_KILLED", "CLEANUP_ATTEMPT_STARTED",
    "CLEANUP_ATTEMPT_FINISHED", "CLEANUP_ATTEMPT_FAILED", "CLEANUP_ATTEMPT_KILLED", "AM_STARTED",
)

_S, _L, _I, _B = "string", "long", "int", "boolean"
_OPT_S: Any = ["null", "string"]
_INTS = {"type": "array", "items": "int"}

_JH_COUNTERS = {
    "type": "record", "name": "JhCounters", "fields": [
        {"name": "name", "type": _S},
        {"name": "groups", "type": {"type": "array", "items": {
            "type": "record", "name": "JhCounterGroup", "fields": [
                {"name": "name", "type": _S},
                {"name": "displayName", "type": _S},
                {"name": "counts", "type": {"type": "array", "items": {
                    "type": "record", "name": "JhCounter", "fields": [
                        {"name": "name", "type": _S},
                        {"name": "displayName", "type": _S},
                        {"name": "value", "type": _L}]}}}]}}}],
}

_PROGRESS_SPLITS = (("clockSplits", _INTS), ("cpuUsages", _INTS), ("vMemKbytes", _INTS),
                    ("physMemKbytes", _INTS))

# (record name, fields); a field is (name, type) or (name, type, default)
_RECORDS: tuple[tuple[str, tuple], ...] = (
    ("JobFinished", (("jobid", _S), ("finishTime", _L), ("finishedMaps", _I),
                     ("finishedReduces", _I), ("failedMaps", _I), ("failedReduces", _I),
                     ("totalCounters", _JH_COUNTERS), ("mapCounters", "JhCounters"),
                     ("reduceCounters", "JhCounters"))),
    ("JobInfoChange", (("jobid", _S), ("submitTime", _L), ("launchTime", _L))),
    ("JobInited", (("jobid", _S), ("launchTime", _L), ("totalMaps", _I), ("totalReduces", _I),
                   ("jobStatus", _S), ("uberized", _B))),
    ("AMStarted", (("applicationAttemptId", _S), ("startTime", _L), ("containerId", _S),
                   ("nodeManagerHost", _S), ("nodeManagerPort", _I),
                   ("nodeManagerHttpPort", _I))),
    ("JobPriorityChange", (("jobid", _S), ("priority", _S))),
    ("JobQueueChange", (("jobid", _S), ("jobQueueName", _S))),
    ("JobStatusChanged", (("jobid", _S), ("jobStatus", _S))),
    ("JobSubmitted", (("jobid", _S), ("jobName", _S), ("userName", _S), ("submitTime", _L),
                      ("jobConfPath", _S), ("acls", {"type": "map", "values": "string"}),
                      ("jobQueueName", _S), ("workflowId", _OPT_S, None),
                      ("workflowName", _OPT_S, None), ("workflowNodeName", _OPT_S, None),
                      ("workflowAdjacencies", _OPT_S, None), ("workflowTags", _OPT_S, None))),
    ("JobUnsuccessfulCompletion", (("jobid", _S), ("finishTime", _L), ("finishedMaps", _I),
                                   ("finishedReduces", _I), ("jobStatus", _S),
                                   ("diagnostics", _OPT_S, None))),
    ("MapAttemptFinished", (("taskid", _S), ("attemptId", _S), ("taskType", _S),
                            ("taskStatus", _S), ("mapFinishTime", _L), ("finishTime", _L),
                            ("hostname", _S), ("port", _I), ("rackname", _S), ("state", _S),
                            ("counters", "JhCounters"), *_PROGRESS_SPLITS)),
    ("ReduceAttemptFinished", (("taskid", _S), ("attemptId", _S), ("taskType", _S),
                               ("taskStatus", _S), ("shuffleFinishTime", _L),
                               ("sortFinishTime", _L), ("finishTime", _L), ("hostname", _S),
                               ("port", _I), ("rackname", _S), ("state", _S),
                               ("counters", "JhCounters"), *_PROGRESS_SPLITS)),
    ("TaskAttemptFinished", (("taskid", _S), ("attemptId", _S), ("taskType", _S),
                             ("taskStatus", _S), ("finishTime", _L), ("rackname", _S),
                             ("hostname", _S), ("state", _S), ("counters", "JhCounters"))),
    ("TaskAttemptStarted", (("taskid", _S), ("taskType", _S), ("attemptId", _S),
                            ("startTime", _L), ("trackerName", _S), ("httpPort", _I),
                            ("shufflePort", _I), ("containerId", _S),
                            ("locality", _OPT_S, None), ("avataar", _OPT_S, None))),
    ("TaskAttemptUnsuccessfulCompletion", (("taskid", _S), ("taskType", _S), ("attemptId", _S),
                                           ("finishTime", _L), ("hostname", _S), ("port", _I),
                                           ("rackname", _S), ("status", _S), ("error", _S),
                                           ("counters", ["null", "JhCounters"], None),
                                           *_PROGRESS_SPLITS)),
    ("TaskFailed", (("taskid", _S), ("taskType", _S), ("finishTime", _L), ("error", _S),
                    ("failedDueToAttempt", _OPT_S), ("status", _S),
                    ("counters", ["null", "JhCounters"], None))),
    ("TaskFinished", (("taskid", _S), ("taskType", _S), ("finishTime", _L), ("status", _S),
                      ("counters", "JhCounters"), ("successfulAttemptId", _OPT_S, None))),
    ("TaskStarted", (("taskid", _S), ("taskType", _S), ("startTime", _L),
                     ("splitLocations", _S))),
    ("TaskUpdated", (("taskid", _S), ("finishTime", _L))),
)


def _field(spec: tuple) -> dict[str, Any]:
    field: dict[str, Any] = {"name": spec[0], "type": spec[1]}
    if len(spec) == 3:
        field["default"] = spec[2]
    return field


def schema() -> dict[str, Any]:
    """The ``Event`` schema written on line 2 of every .jhist file."""
    records = [{"type": "record", "name": name, "fields": [_field(f) for f in fields]}
               for name, fields in _RECORDS]
    return {
        "type": "record", "name": "Event", "namespace": NAMESPACE,
        "fields": [
            {"name": "type", "type": {"type": "enum", "name": "EventType",
                                      "symbols": list(EVENT_TYPES)}},
            {"name": "event", "type": records},
        ],
    }


def full_name(record: str) -> str:
    """The union branch name of an event record, as the JSON encoding writes it."""
    return f"{NAMESPACE}.{record}"
