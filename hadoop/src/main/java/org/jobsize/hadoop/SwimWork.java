package org.jobsize.hadoop;

import java.io.IOException;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;

/**
 * The work of one SWIM job: a map that turns its input into shuffle data at the job's
 * shuffle/input byte ratio, and a reduce that turns the shuffle into output at the
 * output/shuffle ratio — the three sizes a SWIM trace records for each job, reproduced in
 * bytes, as SWIM's own replay does. A map-only job's map writes output at output/input.
 *
 * <p>Bytes are owed and paid in records of {@link #RECORD} bytes: a ratio of 0.001 writes one
 * record per 100 KB read, a ratio of 3 three records per 100 bytes. Keys are spread over the
 * reduces by a hash of where the bytes came from, so reduces get equal shares.
 */
public final class SwimWork {
  /** Shuffle bytes per input byte (a map-only job: output bytes per input byte). */
  public static final String SHUFFLE_RATIO = "jobsize.swim.shuffle.ratio";
  /** Output bytes per shuffle byte. */
  public static final String OUTPUT_RATIO = "jobsize.swim.output.ratio";
  /** Bytes of one written record, key and value and the line's tab and newline. */
  static final int RECORD = 100;
  private static final int KEY = 16;

  private SwimWork() {
  }

  /** Writes records worth {@code owed} bytes; returns what is still owed (under a record). */
  static double pay(double owed, long seed, Text key, Text value, Emitter emit)
      throws IOException, InterruptedException {
    while (owed >= RECORD) {
      seed = seed * 6364136223846793005L + 1442695040888963407L;
      key.set(String.format("%016x", seed));
      emit.write(key, value);
      owed -= RECORD;
    }
    return owed;
  }

  static Text filler() {
    return new Text("x".repeat(RECORD - KEY - 2));
  }

  /** Where written records go: the map's or the reduce's context. */
  interface Emitter {
    void write(Text key, Text value) throws IOException, InterruptedException;
  }

  /** Reads lines; writes shuffle (or output) bytes at the job's ratio. */
  public static final class Map extends Mapper<LongWritable, Text, Text, Text> {
    private double ratio;
    private double owed;
    private final Text key = new Text();
    private final Text value = filler();

    @Override
    protected void setup(Context context) {
      Configuration conf = context.getConfiguration();
      ratio = conf.getDouble(SHUFFLE_RATIO, 1.0);
    }

    @Override
    protected void map(LongWritable offset, Text line, Context context)
        throws IOException, InterruptedException {
      owed += (line.getLength() + 1) * ratio;
      owed = pay(owed, offset.get(), key, value, context::write);
    }
  }

  /** Reads shuffled records; writes output bytes at the job's output/shuffle ratio. */
  public static final class Reduce extends Reducer<Text, Text, Text, Text> {
    private double ratio;
    private double owed;
    private final Text key = new Text();
    private final Text value = filler();

    @Override
    protected void setup(Context context) {
      ratio = context.getConfiguration().getDouble(OUTPUT_RATIO, 1.0);
    }

    @Override
    protected void reduce(Text k, Iterable<Text> values, Context context)
        throws IOException, InterruptedException {
      long seed = k.hashCode();
      for (Text v : values) {
        owed += (k.getLength() + v.getLength() + 2) * ratio;
        owed = pay(owed, seed++, key, value, context::write);
      }
    }
  }
}
