package org.jobsize.hadoop;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Set;

import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.MapReduceBase;
import org.apache.hadoop.mapred.Mapper;
import org.apache.hadoop.mapred.OutputCollector;
import org.apache.hadoop.mapred.Reducer;
import org.apache.hadoop.mapred.Reporter;

/**
 * A drawn kind of job written in Java: the map, combine and reduce of
 * {@code jobsize.workloads.costshape} as old-API classes that Hadoop Streaming runs inside the
 * task's JVM ({@code -mapper org.jobsize.hadoop.CostShape$Map}), with no process or pipe.
 *
 * <p>Each role reads its {@code NAME=VALUE} arguments from {@code jobsize.task.<role>.args}
 * (role: mapper, combiner, reducer), the same names and meanings as the Python program's: work
 * in units of one SHA-256 of a 32-byte digest, {@code start} units before the first record,
 * {@code rec} per record, {@code byte} per byte (line terminator counted), {@code key} per
 * distinct key, {@code sl}·n^{@code p} per reduce group of n records; the map's fan-out
 * {@code fan}, its {@code keys} keys under a power law of exponent {@code zipf}, {@code val}
 * filler bytes; or a framework-bound map ({@code piece}, {@code alpha}). Records hash to keys
 * by FNV-1a and SplitMix64 (the Python program uses BLAKE2b): the same laws, other keys.
 *
 * <p>Each role reports what the streaming timing wrapper reports for a program, under the same
 * counters: its time from {@code configure} to {@code close} (the function's life in the task,
 * reading its records included, as a streaming program's life is), its start-up (the time
 * {@code configure} took, what the role pays whatever its input), the combiner's runs, and the
 * units of work done. A role that met no record has no {@link Reporter} and reports nothing.
 */
public final class CostShape {
  /** The counter group of function times (jobsize.schema.FUNCTION_TIME_GROUP). */
  static final String GROUP = "jobsize";
  /** The counter group of the workloads' own counters (jobsize.workloads.streaming). */
  static final String WORKLOADS = "jobsize.workloads";
  /** Units owed before they are paid. */
  static final int BATCH = 256;
  private static final byte[] LETTERS = "abcdefghijklmnopqrstuvwxyz".getBytes(
      StandardCharsets.US_ASCII);
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private CostShape() {
  }

  /** The configuration key of a role's arguments. */
  public static String argsKey(String role) {
    return "jobsize.task." + role + ".args";
  }

  /** {@code NAME=VALUE} words over {@code defaults}: non-negative numbers of known names. */
  static LinkedHashMap<String, Double> parameters(String text, String role, String... defaults) {
    LinkedHashMap<String, Double> out = new LinkedHashMap<>();
    for (int i = 0; i < defaults.length; i += 2) {
      out.put(defaults[i], Double.valueOf(defaults[i + 1]));
    }
    for (String word : text.trim().split("\\s+")) {
      if (word.isEmpty()) {
        continue;
      }
      int eq = word.indexOf('=');
      String name = eq < 0 ? word : word.substring(0, eq);
      if (eq < 0 || !out.containsKey(name)) {
        throw new IllegalArgumentException(argsKey(role) + ": expected NAME=VALUE with NAME one of "
            + String.join(", ", out.keySet()) + ", got '" + word + "'");
      }
      double value;
      try {
        value = Double.parseDouble(word.substring(eq + 1));
      } catch (NumberFormatException e) {
        value = Double.NaN;
      }
      if (!(value >= 0) || Double.isInfinite(value)) {
        throw new IllegalArgumentException(argsKey(role) + ": " + name
            + " must be a non-negative number, got '" + word.substring(eq + 1) + "'");
      }
      out.put(name, value);
    }
    return out;
  }

  /** SplitMix64: the next well-mixed 64-bit value after {@code x}. */
  static long mix(long x) {
    x += 0x9E3779B97F4A7C15L;
    x = (x ^ (x >>> 30)) * 0xBF58476D1CE4E5B9L;
    x = (x ^ (x >>> 27)) * 0x94D049BB133111EBL;
    return x ^ (x >>> 31);
  }

  /** A uniform double in [0, 1) from the top 53 bits of {@code x}. */
  static double unit(long x) {
    return (x >>> 11) * 0x1.0p-53;
  }

  /** The rank in [0, keys) of {@code u} in [0, 1) under the power law x^-zipf on [1, keys+1). */
  static int rank(double u, int keys, double zipf) {
    double top = keys + 1.0;
    double x = Math.abs(1.0 - zipf) < 1e-9 ? Math.exp(u * Math.log(top))
        : Math.pow(1.0 + u * (Math.pow(top, 1.0 - zipf) - 1.0), 1.0 / (1.0 - zipf));
    return (int) Math.max(0, Math.min(keys - 1, (long) x - 1));
  }

  /** Busy work owed in (fractional) units and paid in whole ones. */
  static final class Work {
    private final MessageDigest sha;
    private byte[] digest = new byte[32];
    private double owed;
    long done;

    Work() {
      try {
        sha = MessageDigest.getInstance("SHA-256");
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
    }

    void owe(double units) {
      owed += units;
      if (owed >= BATCH) {
        pay();
      }
    }

    void pay() {
      long whole = (long) owed;
      owed -= whole;
      done += whole;
      for (long i = 0; i < whole; i++) {
        digest = sha.digest(digest);
      }
    }
  }

  /** What every role shares: its arguments, its work, its start-up and its counters. */
  abstract static class Role extends MapReduceBase {
    final Work work = new Work();
    LinkedHashMap<String, Double> p;
    Reporter reporter;
    private long started;
    private long startupNanos;

    abstract String role();

    abstract String[] defaults(String args);

    String counterPrefix() {
      return role().equals("mapper") ? "MAP" : role().equals("combiner") ? "COMBINE" : "REDUCE";
    }

    @Override
    public void configure(JobConf conf) {
      started = System.nanoTime();
      String args = conf.get(argsKey(role()), "");
      p = parameters(args, role(), defaults(args));
      setUp();
      work.owe(p.getOrDefault("start", 0.0));
      work.pay();  // start-up is done before the first record, as a task loading its tables
      startupNanos = System.nanoTime() - started;
    }

    void setUp() {
    }

    @Override
    public void close() {
      work.pay();
      if (reporter == null) {
        return;
      }
      String prefix = counterPrefix();
      reporter.incrCounter(GROUP, prefix + "_FUNCTION_MILLIS",
          (System.nanoTime() - started) / 1_000_000L);
      reporter.incrCounter(GROUP, prefix + "_FUNCTION_STARTUP_MILLIS", startupNanos / 1_000_000L);
      reporter.incrCounter(WORKLOADS, "WORK_UNITS", work.done);
      if (prefix.equals("COMBINE")) {
        reporter.incrCounter(GROUP, "COMBINE_RUNS", 1);
      }
    }
  }

  /** The map: busy work per record, byte and new key, and its fanned-out keyed records. */
  public static final class Map extends Role implements Mapper<Object, Text, Text, Text> {
    private final Text key = new Text();
    private final Text value = new Text();
    private final Text empty = new Text();
    private final byte[] hex = new byte[6];
    private final Set<Integer> seen = new HashSet<>();
    private boolean framework;
    private double rec;
    private double perByte;
    private double perKey;
    private int whole;
    private double fraction;
    private int keys;
    private double zipf;
    private long salt;
    private byte[] alphabet;
    private int piece;

    @Override
    String role() {
      return "mapper";
    }

    @Override
    String[] defaults(String args) {
      if ((" " + args).contains(" piece=")) {
        return new String[] {"piece", "4", "alpha", "26", "start", "0"};
      }
      return new String[] {"rec", "0", "byte", "0", "key", "0", "fan", "1", "keys", "1000",
          "zipf", "0", "val", "0", "start", "0", "salt", "0"};
    }

    @Override
    void setUp() {
      framework = p.containsKey("piece");
      if (framework) {
        piece = Math.max(1, p.get("piece").intValue());
        alphabet = java.util.Arrays.copyOf(LETTERS,
            Math.max(1, Math.min(LETTERS.length, p.get("alpha").intValue())));
        return;
      }
      rec = p.get("rec");
      perByte = p.get("byte");
      perKey = p.get("key");
      double fan = p.get("fan");
      whole = (int) fan;
      fraction = fan - whole;
      keys = Math.max(1, (int) Math.min(Integer.MAX_VALUE, p.get("keys")));
      zipf = p.get("zipf");
      salt = mix(p.get("salt").longValue());
      int filler = p.get("val").intValue();
      value.set(filler > 0 ? "1 " + ".".repeat(filler) : "1");
    }

    @Override
    public void map(Object offset, Text line, OutputCollector<Text, Text> out, Reporter r)
        throws IOException {
      reporter = r;
      if (framework) {
        pieces(line, out);
        return;
      }
      long x = mix(fnv(line) ^ salt);
      double cost = rec + perByte * (line.getLength() + 1);
      int emits = whole + (unit(x) < fraction ? 1 : 0);
      for (int i = 0; i < emits; i++) {
        x = mix(x);
        int k = rank(unit(x), keys, zipf);
        if (perKey > 0 && seen.add(k)) {
          cost += perKey;
        }
        for (int d = 5; d >= 0; d--) {
          hex[d] = (byte) HEX[(k >>> (4 * (5 - d))) & 0xf];
        }
        key.set(hex);
        out.collect(key, value);
      }
      work.owe(cost);
    }

    /** A framework-bound map: letters and digits folded onto the alphabet, each run of them
     *  cut into pieces of at most {@code piece} bytes, one record each with no value. */
    private void pieces(Text line, OutputCollector<Text, Text> out) throws IOException {
      byte[] bytes = line.getBytes();
      byte[] run = new byte[piece];
      int length = 0;
      for (int i = 0; i < line.getLength(); i++) {
        int folded = fold(bytes[i]);
        if (folded < 0) {
          length = emit(run, length, out);
          continue;
        }
        run[length++] = alphabet[folded % alphabet.length];
        if (length == piece) {
          length = emit(run, length, out);
        }
      }
      emit(run, length, out);
    }

    private int emit(byte[] run, int length, OutputCollector<Text, Text> out) throws IOException {
      if (length > 0) {
        key.set(run, 0, length);
        out.collect(key, empty);
      }
      return 0;
    }

    /** The index of a letter or digit among 0-9, A-Z, a-z; -1 for any other byte. */
    private static int fold(byte b) {
      if (b >= '0' && b <= '9') {
        return b - '0';
      }
      if (b >= 'A' && b <= 'Z') {
        return 10 + b - 'A';
      }
      if (b >= 'a' && b <= 'z') {
        return 36 + b - 'a';
      }
      return -1;
    }

    /** FNV-1a over the line's bytes. */
    private static long fnv(Text line) {
      long h = 0xcbf29ce484222325L;
      byte[] bytes = line.getBytes();
      for (int i = 0; i < line.getLength(); i++) {
        h = (h ^ (bytes[i] & 0xff)) * 0x100000001b3L;
      }
      return h;
    }
  }

  /** Combine and reduce: busy work per record, byte and group (and superlinear per group);
   *  writes each key with the sum of its records' counts. */
  abstract static class Groups extends Role implements Reducer<Text, Text, Text, Text> {
    private final Text total = new Text();
    private final String role;
    private final String[] defaults;

    Groups(String role, String... defaults) {
      this.role = role;
      this.defaults = defaults;
    }

    @Override
    String role() {
      return role;
    }

    @Override
    String[] defaults(String args) {
      return defaults;
    }

    @Override
    public void reduce(Text key, Iterator<Text> values, OutputCollector<Text, Text> out,
        Reporter r) throws IOException {
      reporter = r;
      long n = 0;
      long size = 0;
      long sum = 0;
      while (values.hasNext()) {
        Text v = values.next();
        n++;
        size += key.getLength() + v.getLength() + 2;  // key<TAB>value<NEWLINE>
        sum += count(v);
      }
      double sl = p.getOrDefault("sl", 0.0);
      work.owe(p.get("rec") * n + p.get("byte") * size + p.get("key")
          + (sl > 0 ? sl * Math.pow(n, p.getOrDefault("p", 1.0)) : 0.0));
      total.set(Long.toString(sum));
      out.collect(key, total);
    }

    /** The count a value carries: its first word, or 1 for an empty value. */
    static long count(Text value) {
      String text = value.toString();
      int space = text.indexOf(' ');
      String head = space < 0 ? text : text.substring(0, space);
      return head.isEmpty() ? 1 : Long.parseLong(head);
    }
  }

  /** The combiner (Hadoop makes one per run, so each run reports its own start-up). */
  public static final class Combine extends Groups {
    public Combine() {
      super("combiner", "rec", "0", "byte", "0", "key", "0");
    }
  }

  /** The reducer. */
  public static final class Reduce extends Groups {
    public Reduce() {
      super("reducer", "rec", "0", "byte", "0", "key", "0", "sl", "0", "p", "1", "start", "0");
    }
  }
}
