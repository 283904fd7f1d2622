package org.jobsize.hadoop;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;

/**
 * Replays a workload on the cluster: submits each job of a plan at its time after the first
 * (as SWIM's replay does, without waiting for earlier jobs), then waits for all of them.
 *
 * <p>The plan is a tab-separated file, one job a line after a header: {@code name submit_s
 * queue reduces shuffle_ratio output_ratio input output}. Each job is a {@link SwimWork} job.
 * The client prints {@code Running job: ID} as each is submitted (what Hadoop's own client
 * prints, and what jobsize reads the ids from) and {@code Job ID STATE} as each ends; it exits
 * with 1 when a job did not succeed, 2 when the plan is wrong. Hadoop's generic {@code -D}
 * options before {@code --plan} apply to every job.
 *
 * <pre>
 * Replay [-D key=value ...] --plan FILE
 * </pre>
 */
public final class Replay {
  private Replay() {
  }

  /** One line of the plan. */
  record Planned(String name, double submitS, String queue, int reduces, double shuffleRatio,
      double outputRatio, String input, String output) {
    static Planned parse(String line, int number) {
      String[] f = line.split("\t", -1);
      if (f.length != 8) {
        throw new IllegalArgumentException("plan line " + number + ": expected 8 fields, found "
            + f.length);
      }
      try {
        return new Planned(f[0], Double.parseDouble(f[1]), f[2], Integer.parseInt(f[3]),
            Double.parseDouble(f[4]), Double.parseDouble(f[5]), f[6], f[7]);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("plan line " + number + ": " + e.getMessage());
      }
    }
  }

  public static void main(String[] argv) throws Exception {
    Configuration conf = new Configuration();
    List<String> rest = new ArrayList<>();
    for (int i = 0; i < argv.length; i++) {
      if (argv[i].equals("-D") && i + 1 < argv.length) {
        String[] kv = argv[++i].split("=", 2);
        conf.set(kv[0], kv.length > 1 ? kv[1] : "");
      } else {
        rest.add(argv[i]);
      }
    }
    List<Planned> plan;
    try {
      String file = Args.required(Args.parse(rest.toArray(new String[0]), "--plan"), "--plan");
      plan = read(file);
    } catch (IllegalArgumentException | IOException e) {
      System.err.println("Replay: " + e.getMessage());
      System.exit(2);
      return;
    }
    System.exit(run(conf, plan) ? 0 : 1);
  }

  static List<Planned> read(String file) throws IOException {
    List<String> lines = Files.readAllLines(java.nio.file.Path.of(file), StandardCharsets.UTF_8);
    List<Planned> plan = new ArrayList<>();
    for (int i = 1; i < lines.size(); i++) {
      if (!lines.get(i).isBlank()) {
        plan.add(Planned.parse(lines.get(i), i + 1));
      }
    }
    return plan;
  }

  static boolean run(Configuration conf, List<Planned> plan) throws Exception {
    long start = System.nanoTime();
    List<Job> jobs = new ArrayList<>();
    for (Planned p : plan) {
      long due = start + (long) (p.submitS() * 1e9);
      long wait = (due - System.nanoTime()) / 1_000_000L;
      if (wait > 0) {
        Thread.sleep(wait);
      }
      Job job = job(conf, p);
      job.submit();
      System.out.println("Running job: " + job.getJobID());
      System.out.flush();
      jobs.add(job);
    }
    boolean ok = true;
    for (Job job : jobs) {
      while (!job.isComplete()) {
        Thread.sleep(500);
      }
      System.out.println("Job " + job.getJobID() + " " + job.getJobState());
      ok &= job.isSuccessful();
    }
    System.out.flush();
    return ok;
  }

  static Job job(Configuration base, Planned p) throws IOException {
    Configuration conf = new Configuration(base);
    conf.setDouble(SwimWork.SHUFFLE_RATIO, p.reduces() > 0 ? p.shuffleRatio()
        : p.shuffleRatio() * p.outputRatio());
    conf.setDouble(SwimWork.OUTPUT_RATIO, p.outputRatio());
    conf.set("mapreduce.job.queuename", p.queue());
    Job job = Job.getInstance(conf, p.name());
    job.setJarByClass(SwimWork.class);
    job.setMapperClass(SwimWork.Map.class);
    job.setReducerClass(SwimWork.Reduce.class);
    job.setNumReduceTasks(p.reduces());
    job.setOutputKeyClass(Text.class);
    job.setOutputValueClass(Text.class);
    FileInputFormat.addInputPath(job, new Path(p.input()));
    FileOutputFormat.setOutputPath(job, new Path(p.output()));
    return job;
  }
}
