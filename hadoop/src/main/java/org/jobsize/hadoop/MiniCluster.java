package org.jobsize.hadoop;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.v2.MiniMRYarnCluster;
import org.apache.hadoop.mapreduce.v2.hs.JobHistoryServer;
import org.apache.hadoop.service.Service;
import org.apache.hadoop.util.VersionInfo;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.MiniYARNCluster;

/**
 * Starts one half of jobsize's mini cluster on loopback, with the local file system as the
 * cluster's default, and writes its addresses to a JSON state file once it is ready.
 *
 * <ul>
 * <li>{@code --role yarn}: Hadoop's MiniMRYarnCluster — a ResourceManager and N NodeManagers
 * that launch the real MRAppMaster and task JVMs — told where the JobHistoryServer is; it also
 * writes the live configuration to {@code WORK/conf}, which clients put first on their
 * classpath.</li>
 * <li>{@code --role history}: Hadoop's JobHistoryServer over the same history directories.</li>
 * </ul>
 *
 * <p>Why two JVMs: Hadoop's web applications share Guice's static servlet pipeline, so in one
 * JVM only the web app created last answers REST (the ResourceManager's and JobHistoryServer's
 * REST APIs would answer 404). The MiniMRYarnCluster therefore runs with its embedded history
 * server and the NodeManagers' web apps off, and the history server runs beside it.
 *
 * <p>Each runs until it is sent SIGTERM (or, with {@code --watch-stdin true}, its standard input
 * closes), then stops its services and removes its state file.
 *
 * <pre>
 * MiniCluster --role history --work DIR
 * MiniCluster --role yarn --work DIR --history-address HOST:PORT --history-web HOST:PORT
 *             [--nodemanagers N] [--nm-memory-mb MB] [--nm-vcores V]
 *             [--scheduler capacity|fair|fifo] [--queues NAME:PERCENT,...]
 * </pre>
 */
public final class MiniCluster {
  private MiniCluster() {
  }

  public static void main(String[] argv) throws Exception {
    Map<String, String> args = Args.parse(argv, "--role", "--work", "--nodemanagers",
        "--nm-memory-mb", "--nm-vcores", "--history-address", "--history-web",
        "--watch-stdin", "--scheduler", "--queues");
    String role = Args.required(args, "--role");
    File work = new File(Args.required(args, "--work")).getAbsoluteFile();
    Configuration conf = configuration(work);
    Service service;
    Map<String, Object> fields = new LinkedHashMap<>();
    switch (role) {
      case "history" -> {
        for (String key : new String[] {"mapreduce.jobhistory.address",
            "mapreduce.jobhistory.admin.address", "mapreduce.jobhistory.webapp.address"}) {
          conf.set(key, "localhost:0");
        }
        service = new JobHistoryServer();
      }
      case "yarn" -> {
        int memoryMb = Integer.parseInt(args.getOrDefault("--nm-memory-mb", "4096"));
        int vcores = Integer.parseInt(args.getOrDefault("--nm-vcores", "4"));
        conf.set("mapreduce.jobhistory.address", Args.required(args, "--history-address"));
        conf.set("mapreduce.jobhistory.webapp.address", Args.required(args, "--history-web"));
        conf.setBoolean("mapreduce.jobhistory.minicluster.enabled", false);
        conf.setInt(YarnConfiguration.NM_PMEM_MB, memoryMb);
        conf.setInt(YarnConfiguration.NM_VCORES, vcores);
        conf.setInt(YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB, memoryMb);
        conf.setInt(YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES, vcores);
        conf.set(YarnConfiguration.RM_SCHEDULER,
            scheduler(args.getOrDefault("--scheduler", "capacity")));
        queues(conf, args.getOrDefault("--queues", DEFAULT_QUEUES));
        int nodeManagers = Integer.parseInt(args.getOrDefault("--nodemanagers", "2"));
        MiniMRYarnCluster cluster = new MiniMRYarnCluster("jobsize", nodeManagers);
        disableNodeManagerWebApps(cluster);
        service = cluster;
        fields.put("nodemanagers", nodeManagers);
        fields.put("nm_memory_mb", memoryMb);
        fields.put("nm_vcores", vcores);
      }
      default -> throw new IllegalArgumentException("--role is yarn or history, not " + role);
    }
    File state = new File(work, role + ".json");
    Files.deleteIfExists(state.toPath());
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        Files.deleteIfExists(state.toPath());
      } catch (IOException e) {
        // whoever started it removes a stale state file by the pid it names
      }
      service.stop();
      stopped.countDown();
    }));
    service.init(conf);
    service.start();

    Configuration live = service.getConfig();
    fields.put("pid", ProcessHandle.current().pid());
    fields.put("hadoop_version", VersionInfo.getVersion());
    if (role.equals("yarn")) {
      File confDir = new File(work, "conf");
      writeConfiguration(live, confDir);
      fields.put("rm_web", "http://" + live.get(YarnConfiguration.RM_WEBAPP_ADDRESS));
      fields.put("rm_address", live.get(YarnConfiguration.RM_ADDRESS));
      fields.put("conf_dir", confDir.getPath());
      fields.put("staging_dir", live.get("yarn.app.mapreduce.am.staging-dir"));
    } else {
      // The services write the ports they bound back into the configuration.
      fields.put("history_address", live.get("mapreduce.jobhistory.address"));
      fields.put("history_web", live.get("mapreduce.jobhistory.webapp.address"));
      fields.put("history_admin", live.get("mapreduce.jobhistory.admin.address"));
    }
    fields.put("default_fs", live.get("fs.defaultFS"));
    fields.put("done_dir", live.get("mapreduce.jobhistory.done-dir"));
    fields.put("intermediate_done_dir", live.get("mapreduce.jobhistory.intermediate-done-dir"));
    writeAtomically(state.toPath(), Json.object(fields) + "\n");
    System.out.println("jobsize mini cluster " + role + " ready: " + state);
    System.out.flush();

    if (Boolean.parseBoolean(args.getOrDefault("--watch-stdin", "false"))) {
      while (System.in.read() != -1) {
        // a closed stdin means whoever started the cluster is gone
      }
      System.exit(0);
    }
    stopped.await();
  }

  /**
   * MiniYARNCluster starts a web app in every NodeManager unless told otherwise, and
   * MiniMRYarnCluster has no constructor that tells it; the flag is a private field.
   */
  private static void disableNodeManagerWebApps(MiniYARNCluster cluster) throws Exception {
    Field flag = MiniYARNCluster.class.getDeclaredField("isNMWebEnabled");
    flag.setAccessible(true);
    flag.setBoolean(cluster, false);
  }

  /** FSPY's two queues: {@code default} for production jobs, {@code probing} for probes. */
  static final String DEFAULT_QUEUES = "default:80,probing:20";

  /** The ResourceManager's scheduler class for {@code capacity}, {@code fair} or {@code fifo}. */
  static String scheduler(String name) {
    String pkg = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.";
    return switch (name) {
      case "capacity" -> pkg + "capacity.CapacityScheduler";
      case "fair" -> pkg + "fair.FairScheduler";
      case "fifo" -> pkg + "fifo.FifoScheduler";
      default -> throw new IllegalArgumentException(
          "--scheduler is capacity, fair or fifo, not " + name);
    };
  }

  /**
   * The CapacityScheduler's queues under root, {@code NAME:PERCENT} each (the percentages sum
   * to 100); each may borrow the whole cluster when the others are idle. jobsize submits its
   * probes to {@code probing}.
   */
  static void queues(Configuration conf, String spec) {
    String root = "yarn.scheduler.capacity.root";
    List<String> names = new ArrayList<>();
    for (String part : spec.split(",")) {
      String[] f = part.split(":");
      if (f.length != 2) {
        throw new IllegalArgumentException("--queues: expected NAME:PERCENT, found " + part);
      }
      names.add(f[0]);
      conf.set(root + "." + f[0] + ".capacity", f[1]);
      conf.set(root + "." + f[0] + ".maximum-capacity", "100");
    }
    conf.set(root + ".queues", String.join(",", names));
    // The CapacityScheduler's default lets ApplicationMasters hold a tenth of the cluster: on
    // two small NodeManagers that is one job at a time. Half lets a few run together, as on a
    // shared cluster, and still leaves their tasks room.
    conf.set("yarn.scheduler.capacity.maximum-am-resource-percent", "0.5");
  }

  /** The settings both halves share: loopback, the local file system, short history moves. */
  static Configuration configuration(File work) {
    Configuration conf = new YarnConfiguration();
    // The local file system is the cluster's: every process of the cluster runs on this
    // machine, the done directory is a plain directory `jobsize collect jhist` reads, and no
    // NameNode or DataNode has to start.
    conf.set("fs.defaultFS", "file:///");
    conf.set("hadoop.tmp.dir", new File(work, "tmp").getPath());
    conf.set("yarn.app.mapreduce.am.staging-dir", new File(work, "staging").getPath());
    conf.set("mapreduce.jobhistory.intermediate-done-dir",
        new File(work, "history/intermediate").getPath());
    conf.set("mapreduce.jobhistory.done-dir", new File(work, "history/done").getPath());
    // Move finished jobs' history to the done directory within a second, not three minutes.
    conf.setLong("mapreduce.jobhistory.move.interval-ms", 1000L);
    // The machine's disk is shared; a fuller disk must not take the NodeManagers offline.
    conf.setFloat(YarnConfiguration.NM_MAX_PER_DISK_UTILIZATION_PERCENTAGE, 99.5f);
    // Finished applications' logs stay in the NodeManagers' local directories.
    conf.setBoolean(YarnConfiguration.LOG_AGGREGATION_ENABLED, false);
    return conf;
  }

  static void writeConfiguration(Configuration live, File confDir) throws IOException {
    Files.createDirectories(confDir.toPath());
    // Clients read core-site.xml, yarn-site.xml and mapred-site.xml from their classpath; each
    // holds the whole live configuration, so whichever a client loads it sees the cluster.
    for (String name : new String[] {"core-site.xml", "yarn-site.xml", "mapred-site.xml"}) {
      Path target = new File(confDir, name).toPath();
      Path tmp = new File(confDir, "." + name + ".tmp").toPath();
      try (OutputStream out = new FileOutputStream(tmp.toFile())) {
        live.writeXml(out);
      }
      Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING,
          StandardCopyOption.ATOMIC_MOVE);
    }
  }

  static void writeAtomically(Path target, String text) throws IOException {
    Path tmp = target.resolveSibling("." + target.getFileName() + ".tmp");
    Files.write(tmp, text.getBytes(StandardCharsets.UTF_8));
    Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
