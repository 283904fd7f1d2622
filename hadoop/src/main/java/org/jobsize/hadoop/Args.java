package org.jobsize.hadoop;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** `--name value` options of the mains, refused with one line when unknown or incomplete. */
final class Args {
  private Args() {
  }

  static Map<String, String> parse(String[] argv, String... known) {
    List<String> names = Arrays.asList(known);
    Map<String, String> out = new HashMap<>();
    for (int i = 0; i < argv.length; i += 2) {
      if (!names.contains(argv[i])) {
        throw fail("unknown option " + argv[i] + " (known: " + String.join(", ", known) + ")");
      }
      if (i + 1 >= argv.length) {
        throw fail("option " + argv[i] + " needs a value");
      }
      out.put(argv[i], argv[i + 1]);
    }
    return out;
  }

  static String required(Map<String, String> args, String name) {
    String value = args.get(name);
    if (value == null) {
      throw fail("option " + name + " is required");
    }
    return value;
  }

  private static IllegalArgumentException fail(String message) {
    return new IllegalArgumentException(message);
  }
}
