package dev.tally.sidecar.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Without {@code --hmac-key-file}, {@code serve} generates a key once, keeps it beside the store
 * (owner-only), says so in one log line that never holds the key, and reuses it on the next start.
 */
class HmacKeyIT {
  @TempDir Path dir;

  @Test
  void aKeyIsGeneratedOnceBesideTheStoreSaidInOneLineAndReused() throws Exception {
    CountingUpstream upstream = CountingUpstream.start();
    try {
      List<String> first = new CopyOnWriteArrayList<>();
      try (InJvmTally tally = InJvmTally.start(dir, upstream.url(), "", first::add)) {
        assertThat(tally.mcp).isNotNull();
      }
      Path keyFile = dir.resolve("journal").resolve("hmac.keys");
      assertThat(keyFile).isRegularFile();
      String key = Files.readString(keyFile).strip();
      String material = key.substring(key.indexOf(':') + 1);
      assertThat(material).hasSizeGreaterThanOrEqualTo(43); // 32 bytes in Base64
      assertThat(Files.getPosixFilePermissions(keyFile))
          .containsExactlyInAnyOrder(
              PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
      assertThat(matching(first, "HMAC key"))
          .singleElement()
          .asString()
          .contains("generated an HMAC key in " + keyFile)
          .contains("never printed");
      assertThat(String.join("\n", first)).doesNotContain(material);

      List<String> second = new CopyOnWriteArrayList<>();
      try (InJvmTally tally = InJvmTally.start(dir, upstream.url(), "", second::add)) {
        assertThat(tally.mcp).isNotNull();
      }
      assertThat(matching(second, "HMAC key"))
          .singleElement()
          .asString()
          .contains("using the HMAC key kept in " + keyFile);
      assertThat(Files.readString(keyFile).strip()).as("the same key on restart").isEqualTo(key);
      assertThat(String.join("\n", second)).doesNotContain(material);
    } finally {
      upstream.close();
    }
  }

  private static List<String> matching(List<String> lines, String needle) {
    List<String> out = new ArrayList<>();
    for (String l : lines) {
      if (l.contains(needle)) {
        out.add(l);
      }
    }
    return out;
  }
}
