package dev.tally.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.core.fingerprint.KeyRing;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeySourceTest {
  private static final byte[] CANONICAL = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);

  @TempDir Path dir;
  private final List<String> log = new ArrayList<>();

  private KeyRing resolve(String yaml) {
    return KeySource.resolve(TallyConfig.parse(yaml, Map.of()), InstantSource.system(), log::add);
  }

  @Test
  void theJournalStoreGeneratesAKeyOnceBesideItAndReusesIt() {
    String yaml = "store: journal:" + dir.resolve("j") + "\n";
    KeyRing first = resolve(yaml);
    KeyRing again = resolve(yaml);
    assertThat(again.fingerprint(CANONICAL)).isEqualTo(first.fingerprint(CANONICAL));
    assertThat(dir.resolve("j").resolve("hmac.keys")).isRegularFile();
    assertThat(log.get(0)).contains("generated an HMAC key in");
    assertThat(log.get(1)).contains("using the HMAC key kept in");
  }

  @Test
  void theMemoryStoreUsesAKeyInMemoryAndWritesNothing() throws Exception {
    KeyRing a = resolve("store: memory\n");
    KeyRing b = resolve("store: memory\n");
    assertThat(a.fingerprint(CANONICAL)).isNotEqualTo(b.fingerprint(CANONICAL));
    assertThat(log).allSatisfy(l -> assertThat(l).contains("generated in memory"));
    assertThat(Path.of(".tally", "hmac.keys")).doesNotExist();
  }

  @Test
  void thePostgresStoreRequiresAKeyFileItsReplicasShare() throws Exception {
    assertThatThrownBy(() -> resolve("store: postgres://tally@db:5432/tally\n"))
        .isInstanceOf(ConfigException.class)
        .satisfies(
            e ->
                assertThat(((ConfigException) e).problems())
                    .singleElement()
                    .asString()
                    .startsWith("hmac.keyFile: missing while store is postgres"));
    assertThat(log).isEmpty();
    Path keys = dir.resolve("shared.keys");
    Files.writeString(keys, "k1:" + "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWY=" + "\n");
    KeyRing ring =
        resolve("store: postgres://tally@db:5432/tally\nhmac:\n  keyFile: " + keys + "\n");
    assertThat(ring.fingerprint(CANONICAL).render()).startsWith("hmac-sha256:k1:");
  }
}
