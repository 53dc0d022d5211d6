package dev.tally.bench.load;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where a sidecar's CPU went, from a JFR recording ({@code -XX:StartFlightRecording}): the share of
 * execution samples per thread and per library of the top frame, the hottest methods by self time,
 * and the hottest Tally methods by inclusive time. Prints Markdown.
 *
 * <p>Usage: {@code java -cp tally-bench.jar dev.tally.bench.load.JfrTop recording.jfr [top]}
 */
public final class JfrTop {
  private JfrTop() {}

  public static void main(String[] args) throws IOException {
    Path file = Path.of(args[0]);
    int top = args.length > 1 ? Integer.parseInt(args[1]) : 15;
    Map<String, Integer> self = new HashMap<>();
    Map<String, Integer> bucket = new HashMap<>();
    Map<String, Integer> tallyInclusive = new HashMap<>();
    Map<String, Integer> threads = new HashMap<>();
    int samples = 0;
    try (RecordingFile rf = new RecordingFile(file)) {
      while (rf.hasMoreEvents()) {
        RecordedEvent e = rf.readEvent();
        if (!e.getEventType().getName().equals("jdk.ExecutionSample")) {
          continue;
        }
        RecordedStackTrace st = e.getStackTrace();
        if (st == null || st.getFrames().isEmpty()) {
          continue;
        }
        samples++;
        threads.merge(threadName(e), 1, Integer::sum);
        List<RecordedFrame> frames = st.getFrames();
        String leaf = name(frames.get(0).getMethod());
        self.merge(leaf, 1, Integer::sum);
        bucket.merge(library(frames), 1, Integer::sum);
        Set<String> seen = new HashSet<>();
        for (RecordedFrame f : frames) {
          String m = name(f.getMethod());
          if (m.startsWith("dev.tally.") && seen.add(m)) {
            tallyInclusive.merge(m, 1, Integer::sum);
          }
        }
      }
    }
    System.out.printf(Locale.ROOT, "JFR %s: %d execution samples%n%n", file.getFileName(), samples);
    print("Samples by thread (Java code only: no GC, JIT or kernel time)", threads, samples, top);
    print("Top frame by library (self time)", bucket, samples, top);
    print("Hottest methods (self time)", self, samples, top);
    print("Tally methods (inclusive time)", tallyInclusive, samples, top);
  }

  private static void print(String title, Map<String, Integer> counts, int total, int top) {
    System.out.println(title + ":\n");
    counts.entrySet().stream()
        .sorted((a, b) -> Integer.compare(b.getValue(), a.getValue()))
        .limit(top)
        .forEach(
            e ->
                System.out.printf(
                    Locale.ROOT,
                    "- %5.1f%% %s%n",
                    100.0 * e.getValue() / Math.max(1, total),
                    e.getKey()));
    System.out.println();
  }

  /** The sampled thread's name without its number, so a pool's threads count as one. */
  private static String threadName(RecordedEvent e) {
    RecordedThread t = e.getThread("sampledThread");
    String n = t == null ? null : t.getJavaName();
    return n == null ? "(unknown)" : n.replaceAll("[-#]?\\d+$", "");
  }

  /** The library the sample's time is spent in: its top frame's, attributed by package. */
  private static String library(List<RecordedFrame> frames) {
    String t = frames.get(0).getMethod().getType().getName();
    if (t.startsWith("io.netty.")) {
      return "netty (" + t.split("\\.")[2] + ")";
    }
    if (t.startsWith("io.vertx.")) {
      return "vert.x";
    }
    if (t.startsWith("com.fasterxml.jackson.")) {
      return "jackson";
    }
    if (t.startsWith("dev.tally.")) {
      return "tally (" + t.split("\\.")[2] + ")";
    }
    if (t.startsWith("java.") || t.startsWith("jdk.") || t.startsWith("sun.")) {
      return "jdk (" + t.substring(0, t.lastIndexOf('.')) + ")";
    }
    return t.substring(0, Math.max(0, t.lastIndexOf('.')));
  }

  private static String name(RecordedMethod m) {
    return m.getType().getName() + "." + m.getName();
  }
}
