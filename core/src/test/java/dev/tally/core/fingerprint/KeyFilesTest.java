package dev.tally.core.fingerprint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeyFilesTest {
  private static final InstantSource CLOCK =
      InstantSource.fixed(Instant.parse("2026-11-30T23:59:59Z"));
  private static final byte[] CANONICAL = "{\"tool\":\"t\"}".getBytes(StandardCharsets.UTF_8);

  @TempDir Path dir;

  private static byte[] bytes(int n, int fill) {
    byte[] b = new byte[n];
    Arrays.fill(b, (byte) fill);
    return b;
  }

  private static String std(byte[] b) {
    return Base64.getEncoder().encodeToString(b);
  }

  private Path write(String content) throws Exception {
    Path f = dir.resolve("keys");
    Files.writeString(f, content);
    return f;
  }

  @Test
  void firstKeyIsActiveAndLaterKeysStillMatch() throws Exception {
    Path f =
        write(
            "# rotated 2026-11-30\n\n"
                + "k2:"
                + std(bytes(32, 2))
                + "\n"
                + "  # the old one\n"
                + "k1:"
                + std(bytes(48, 1))
                + "\n");
    KeyRing ring = KeyFiles.load(f);
    assertThat(ring.active().id()).isEqualTo("k2");
    assertThat(ring.older()).extracting(HmacKey::id).containsExactly("k1");

    KeyRing oldOnly = KeyRing.of(HmacKey.of("k1", bytes(48, 1)));
    Fingerprint old = oldOnly.fingerprint(CANONICAL);
    assertThat(ring.matches(old, CANONICAL)).isTrue();
    assertThat(ring.fingerprint(CANONICAL))
        .isEqualTo(KeyRing.of(HmacKey.of("k2", bytes(32, 2))).fingerprint(CANONICAL));
  }

  @Test
  void acceptsUrlSafeBase64WithoutPaddingAndCrlf() throws Exception {
    byte[] k = new byte[33];
    for (int i = 0; i < k.length; i++) {
      k[i] = (byte) (0xfb + i);
    }
    String url = Base64.getUrlEncoder().withoutPadding().encodeToString(k);
    assertThat(url).containsAnyOf("-", "_");
    KeyRing ring = KeyFiles.load(write("a.b_c-1:" + url + "\r\n"));
    assertThat(ring.fingerprint(CANONICAL))
        .isEqualTo(KeyRing.of(HmacKey.of("a.b_c-1", k)).fingerprint(CANONICAL));
  }

  @Test
  void tooShortKeySaysByteCountAndMinimumWithoutTheKey() throws Exception {
    String material = std(bytes(16, 0x41));
    Path f = write("# header\nshort:" + material + "\n");
    assertThatThrownBy(() -> KeyFiles.load(f))
        .isInstanceOf(KeyException.class)
        .hasMessage(
            "hmac key file "
                + f
                + ", line 2: hmac key short: 16 bytes (expected at least 32 bytes of key"
                + " material)")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain(material));
  }

  @Test
  void malformedLinesNameFileAndLineButNeverTheMaterial() throws Exception {
    String secret = std(bytes(32, 9));
    List<String[]> cases =
        List.of(
            new String[] {secret, "line 1: expected <keyId>:<base64 key>"},
            new String[] {"k1:" + secret + "!", "line 1: key is not base64"},
            new String[] {"k1:" + secret.substring(1), "line 1: key is not valid base64"},
            new String[] {secret.substring(0, 10) + "+/:" + secret, "line 1: malformed key id"},
            new String[] {"k1:" + secret + "\nk1:" + secret, "line 2: key id k1 already used"},
            new String[] {"# nothing\n\n", "no keys"});
    for (String[] c : cases) {
      Path f = write(c[0]);
      assertThatThrownBy(() -> KeyFiles.load(f))
          .as(c[1])
          .isInstanceOf(KeyException.class)
          .hasMessageContaining(f.toString())
          .hasMessageContaining(c[1])
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain(secret.substring(0, 10)));
    }
  }

  @Test
  void missingFileIsAClearError() {
    Path f = dir.resolve("absent");
    assertThatThrownBy(() -> KeyFiles.load(f)).hasMessage("hmac key file " + f + ": not found");
  }

  @Test
  void parseNamesItsOrigin() {
    assertThatThrownBy(() -> KeyFiles.parse("env TALLY_HMAC_KEYS", "oops"))
        .hasMessage("env TALLY_HMAC_KEYS, line 1: expected <keyId>:<base64 key>");
  }

  @Test
  void generateCreatesAnOwnerOnlyFileWithADatedIdThatLoadsBack() throws Exception {
    Path f = dir.resolve("store/sub/hmac.keys");
    KeyRing generated = KeyFiles.generate(f, CLOCK);
    assertThat(generated.active().id()).isEqualTo("k20261130");
    KeyRing loaded = KeyFiles.load(f);
    assertThat(loaded.active().id()).isEqualTo("k20261130");
    assertThat(loaded.fingerprint(CANONICAL)).isEqualTo(generated.fingerprint(CANONICAL));
    String text = Files.readString(f);
    assertThat(text).startsWith("#").contains("\nk20261130:");
    String b64 = text.substring(text.indexOf("k20261130:") + 10).strip();
    assertThat(Base64.getDecoder().decode(b64)).hasSize(32);
    if (f.getFileSystem().supportedFileAttributeViews().contains("posix")) {
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f)))
          .isEqualTo("rw-------");
      for (Path d : List.of(dir.resolve("store"), dir.resolve("store/sub"))) {
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(d)))
            .as(d.toString())
            .isEqualTo("rwx------");
      }
    }
  }

  @Test
  void generatedKeysAreRandom() {
    KeyRing a = KeyFiles.generate(dir.resolve("a"), CLOCK);
    KeyRing b = KeyFiles.generate(dir.resolve("b"), CLOCK);
    assertThat(a.fingerprint(CANONICAL)).isNotEqualTo(b.fingerprint(CANONICAL));
  }

  @Test
  void generateNeverOverwrites() throws Exception {
    Path f = write("keep me");
    assertThatThrownBy(() -> KeyFiles.generate(f, CLOCK))
        .isInstanceOf(KeyException.class)
        .hasMessage("hmac key file " + f + ": already exists (not overwritten)");
    assertThat(Files.readString(f)).isEqualTo("keep me");
  }

  @Test
  void loadOrGenerateKeepsTheFirstKey() {
    Path f = dir.resolve("hmac.keys");
    KeyRing first = KeyFiles.loadOrGenerate(f, CLOCK);
    KeyRing second = KeyFiles.loadOrGenerate(f, CLOCK);
    assertThat(second.fingerprint(CANONICAL)).isEqualTo(first.fingerprint(CANONICAL));
  }

  @Test
  void generateReportsAnUnusableLocation() throws Exception {
    Path notADir = write("a file");
    Path f = notADir.resolve("sub/hmac.keys");
    assertThatThrownBy(() -> KeyFiles.generate(f, CLOCK))
        .isInstanceOf(KeyException.class)
        .hasMessageStartingWith("hmac key file " + f + ": cannot create its directory (");
    Path g = notADir.resolve("hmac.keys");
    assertThatThrownBy(() -> KeyFiles.generate(g, CLOCK))
        .isInstanceOf(KeyException.class)
        .hasMessageStartingWith("hmac key file " + g + ": cannot ");
  }
}
