package org.jobsize.hadoop;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Counter;
import org.apache.hadoop.mapreduce.CounterGroup;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.jobhistory.JobHistoryParser;
import org.apache.hadoop.mapreduce.jobhistory.JobHistoryParser.JobInfo;
import org.apache.hadoop.mapreduce.jobhistory.JobHistoryParser.TaskAttemptInfo;
import org.apache.hadoop.mapreduce.jobhistory.JobHistoryParser.TaskInfo;

/**
 * Prints what Hadoop's own {@code JobHistoryParser} reads from job history files, as JSON: the
 * reference that jobsize's {@code .jhist} reader is compared with.
 *
 * <p>One JSON object per file, one per line, in the order given: the job's fields (id, name,
 * user, queue, status, submit, launch and finish times, task counts, uber mode, counters total,
 * map and reduce side as {@code {group: {counter: value}}}), every task (id, type, status,
 * start and finish, counters) and, inside each task, every attempt (id, status, start and
 * finish, shuffle, sort and map finish, counters, container, host). Times are epoch ms as the
 * parser holds them; a value the parser never set is printed as it holds it (-1, 0 or null).
 *
 * <pre>
 * HistoryDump --jhist FILE[:FILE...]
 * </pre>
 *
 * <p>A file that cannot be opened or is not a history file stops it with one line on standard
 * error naming the file, and exit status 2; damage further in is the parser's
 * {@code parse_error}, with what it read before it.
 */
public final class HistoryDump {
  private HistoryDump() {
  }

  public static void main(String[] argv) throws IOException {
    Map<String, String> args = Args.parse(argv, "--jhist");
    String files = Args.required(args, "--jhist");
    FileSystem local = FileSystem.getLocal(new Configuration());
    PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
    for (String file : files.split(File.pathSeparator)) {
      if (file.isEmpty()) {
        continue;
      }
      JobHistoryParser parser;
      JobInfo job;
      try {
        parser = new JobHistoryParser(local, new Path(new File(file).toURI()));
        job = parser.parse();
      } catch (IOException e) {
        // a file that cannot be opened, or does not start as a history file does: one line
        String why = String.valueOf(e.getMessage()).replaceAll("\\s+", " ");
        System.err.println(file + ": " + e.getClass().getSimpleName() + ": " + why);
        System.exit(2);
        return;
      }
      Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("file", file);
      IOException problem = parser.getParseException();
      doc.put("parse_error", problem == null ? null : problem.toString());
      doc.put("job", job(job));
      List<TaskInfo> tasks = new ArrayList<>(job.getAllTasks().values());
      tasks.sort(Comparator.comparing(t -> t.getTaskId().toString()));
      List<Object> taskDocs = new ArrayList<>();
      for (TaskInfo task : tasks) {
        taskDocs.add(task(task));
      }
      doc.put("tasks", taskDocs);
      out.println(Json.object(doc));
    }
    out.flush();
  }

  private static Map<String, Object> job(JobInfo job) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("id", job.getJobId() == null ? null : job.getJobId().toString());
    out.put("name", job.getJobname());
    out.put("user", job.getUsername());
    out.put("queue", job.getJobQueueName());
    out.put("status", job.getJobStatus());
    out.put("submit_time", job.getSubmitTime());
    out.put("launch_time", job.getLaunchTime());
    out.put("finish_time", job.getFinishTime());
    out.put("total_maps", job.getTotalMaps());
    out.put("total_reduces", job.getTotalReduces());
    out.put("succeeded_maps", job.getSucceededMaps());
    out.put("succeeded_reduces", job.getSucceededReduces());
    out.put("failed_maps", job.getFailedMaps());
    out.put("failed_reduces", job.getFailedReduces());
    out.put("killed_maps", job.getKilledMaps());
    out.put("killed_reduces", job.getKilledReduces());
    out.put("uberized", job.getUberized());
    out.put("error", job.getErrorInfo());
    Map<String, Object> counters = new LinkedHashMap<>();
    counters.put("total", counters(job.getTotalCounters()));
    counters.put("map", counters(job.getMapCounters()));
    counters.put("reduce", counters(job.getReduceCounters()));
    out.put("counters", counters);
    return out;
  }

  private static Map<String, Object> task(TaskInfo task) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("id", task.getTaskId().toString());
    out.put("type", task.getTaskType() == null ? null : task.getTaskType().name());
    out.put("status", task.getTaskStatus());
    out.put("start_time", task.getStartTime());
    out.put("finish_time", task.getFinishTime());
    out.put("successful_attempt", task.getSuccessfulAttemptId() == null ? null
        : task.getSuccessfulAttemptId().toString());
    out.put("error", task.getError());
    out.put("counters", counters(task.getCounters()));
    List<TaskAttemptInfo> attempts = new ArrayList<>(task.getAllTaskAttempts().values());
    attempts.sort(Comparator.comparing(a -> a.getAttemptId().toString()));
    List<Object> attemptDocs = new ArrayList<>();
    for (TaskAttemptInfo attempt : attempts) {
      attemptDocs.add(attempt(attempt));
    }
    out.put("attempts", attemptDocs);
    return out;
  }

  private static Map<String, Object> attempt(TaskAttemptInfo attempt) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("id", attempt.getAttemptId().toString());
    out.put("type", attempt.getTaskType() == null ? null : attempt.getTaskType().name());
    out.put("status", attempt.getTaskStatus());
    out.put("state", attempt.getState());
    out.put("start_time", attempt.getStartTime());
    out.put("finish_time", attempt.getFinishTime());
    out.put("shuffle_finish_time", attempt.getShuffleFinishTime());
    out.put("sort_finish_time", attempt.getSortFinishTime());
    out.put("map_finish_time", attempt.getMapFinishTime());
    out.put("container", attempt.getContainerId() == null ? null
        : attempt.getContainerId().toString());
    out.put("host", attempt.getHostname());
    out.put("port", attempt.getPort());
    out.put("rack", attempt.getRackname());
    out.put("tracker", attempt.getTrackerName());
    out.put("http_port", attempt.getHttpPort());
    out.put("shuffle_port", attempt.getShufflePort());
    out.put("error", attempt.getError());
    out.put("counters", counters(attempt.getCounters()));
    return out;
  }

  /** {@code {group: {counter: value}}} in name order; null when the parser holds none. */
  private static Map<String, Object> counters(Counters counters) {
    if (counters == null) {
      return null;
    }
    Map<String, Object> groups = new TreeMap<>();
    for (CounterGroup group : counters) {
      Map<String, Object> values = new TreeMap<>();
      for (Counter counter : group) {
        values.put(counter.getName(), counter.getValue());
      }
      groups.put(group.getName(), values);
    }
    return groups;
  }
}
