package org.jobsize.hadoop;

import java.util.Collection;
import java.util.Iterator;
import java.util.Map;

/** A JSON writer for maps, lists, strings, numbers, booleans and null: all the mains print. */
final class Json {
  private Json() {
  }

  static String object(Map<String, ?> fields) {
    StringBuilder out = new StringBuilder();
    write(out, fields);
    return out.toString();
  }

  static void write(StringBuilder out, Object value) {
    if (value == null) {
      out.append("null");
    } else if (value instanceof Map<?, ?> map) {
      out.append('{');
      Iterator<? extends Map.Entry<?, ?>> it = map.entrySet().iterator();
      while (it.hasNext()) {
        Map.Entry<?, ?> e = it.next();
        string(out, String.valueOf(e.getKey()));
        out.append(':');
        write(out, e.getValue());
        if (it.hasNext()) {
          out.append(',');
        }
      }
      out.append('}');
    } else if (value instanceof Collection<?> list) {
      out.append('[');
      Iterator<?> it = list.iterator();
      while (it.hasNext()) {
        write(out, it.next());
        if (it.hasNext()) {
          out.append(',');
        }
      }
      out.append(']');
    } else if (value instanceof Number || value instanceof Boolean) {
      out.append(value);
    } else {
      string(out, value.toString());
    }
  }

  private static void string(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
