package dev.tally.core.fingerprint;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads and creates HMAC key files (format in {@code config/README.md}): UTF-8 text, one key per
 * line as {@code <keyId>:<base64>} (standard or URL-safe alphabet, padding optional, at least
 * {@link HmacKey#MIN_BYTES} bytes decoded). The first key is active, later ones still match during
 * a rotation. Blank lines and lines starting with {@code #} are ignored. Messages name the file and
 * line, never key material.
 */
public final class KeyFiles {
  /** Larger key files are refused. */
  public static final int MAX_FILE_BYTES = 64 * 1024;

  /** Bytes of key material in a generated key. */
  public static final int GENERATED_KEY_BYTES = 32;

  private static final Pattern KEY_ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");
  private static final Pattern STANDARD = Pattern.compile("[A-Za-z0-9+/]+={0,2}");
  private static final Pattern URL_SAFE = Pattern.compile("[A-Za-z0-9_-]+={0,2}");
  private static final DateTimeFormatter ID_DATE =
      DateTimeFormatter.ofPattern("yyyyMMdd").withZone(ZoneOffset.UTC);
  private static final SecureRandom RANDOM = new SecureRandom();

  private KeyFiles() {}

  /**
   * Reads the key ring in {@code file}.
   *
   * @throws KeyException if the file is missing, unreadable or malformed
   */
  public static KeyRing load(Path file) {
    Objects.requireNonNull(file, "file");
    byte[] bytes;
    try {
      if (Files.size(file) > MAX_FILE_BYTES) {
        throw new KeyException(
            "hmac key file " + file + ": larger than " + MAX_FILE_BYTES + " bytes");
      }
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new KeyException("hmac key file " + file + ": not found");
    } catch (IOException e) {
      throw new KeyException(
          "hmac key file " + file + ": cannot be read (" + e.getClass().getSimpleName() + ")");
    }
    try {
      String text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(bytes))
              .toString();
      return parse("hmac key file " + file, text);
    } catch (CharacterCodingException e) {
      throw new KeyException("hmac key file " + file + ": not UTF-8 text");
    } finally {
      Arrays.fill(bytes, (byte) 0);
    }
  }

  /**
   * Parses key-file text from {@code origin} (a file, an environment variable), named in messages.
   *
   * @throws KeyException if the text is malformed
   */
  public static KeyRing parse(String origin, String text) {
    Map<String, Integer> lineOf = new LinkedHashMap<>();
    List<HmacKey> keys = new ArrayList<>();
    String[] lines = text.split("\r?\n|\r", -1);
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].strip();
      int lineNo = i + 1;
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String where = origin + ", line " + lineNo;
      int colon = line.indexOf(':');
      if (colon < 0) {
        throw new KeyException(where + ": expected <keyId>:<base64 key>");
      }
      String id = line.substring(0, colon).strip();
      if (!KEY_ID.matcher(id).matches()) {
        throw new KeyException(
            where + ": malformed key id (expected 1-64 characters of A-Z a-z 0-9 . _ -)");
      }
      Integer first = lineOf.putIfAbsent(id, lineNo);
      if (first != null) {
        throw new KeyException(where + ": key id " + id + " already used on line " + first);
      }
      byte[] material = decode(line.substring(colon + 1).strip(), where);
      try {
        keys.add(HmacKey.of(id, material));
      } catch (KeyException e) {
        throw new KeyException(where + ": " + e.getMessage());
      } finally {
        Arrays.fill(material, (byte) 0);
      }
    }
    if (keys.isEmpty()) {
      throw new KeyException(
          origin + ": no keys (expected at least one <keyId>:<base64 key> line)");
    }
    return KeyRing.of(keys.get(0), keys.subList(1, keys.size()));
  }

  private static byte[] decode(String b64, String where) {
    Base64.Decoder decoder;
    if (STANDARD.matcher(b64).matches()) {
      decoder = Base64.getDecoder();
    } else if (URL_SAFE.matcher(b64).matches()) {
      decoder = Base64.getUrlDecoder();
    } else {
      throw new KeyException(where + ": key is not base64 (expected standard or URL-safe base64)");
    }
    try {
      return decoder.decode(b64);
    } catch (IllegalArgumentException e) {
      throw new KeyException(where + ": key is not valid base64 (wrong length or padding)");
    }
  }

  /**
   * Creates {@code file} holding one new random key ({@value #GENERATED_KEY_BYTES} bytes from
   * {@link SecureRandom}) with id {@code k<yyyyMMdd>} (UTC, from {@code clock}), readable by the
   * owner only where the file system has POSIX permissions. Creates missing parent directories
   * (owner-only as well). Never overwrites: an existing file is an error.
   *
   * @return the ring of the new key
   * @throws KeyException if the file exists or cannot be written
   */
  public static KeyRing generate(Path file, InstantSource clock) {
    Objects.requireNonNull(file, "file");
    String id = "k" + ID_DATE.format(clock.instant());
    byte[] material = new byte[GENERATED_KEY_BYTES];
    RANDOM.nextBytes(material);
    byte[] content = null;
    try {
      HmacKey key = HmacKey.of(id, material);
      content =
          ("# Tally HMAC keys: <keyId>:<base64>. The first key is active; older keys below it\n"
                  + "# still match during a rotation. Keep this file secret.\n"
                  + id
                  + ':'
                  + Base64.getEncoder().encodeToString(material)
                  + '\n')
              .getBytes(StandardCharsets.US_ASCII);
      write(file, content);
      return KeyRing.of(key);
    } finally {
      Arrays.fill(material, (byte) 0);
      if (content != null) {
        Arrays.fill(content, (byte) 0);
      }
    }
  }

  /**
   * A fresh random key kept only in memory (for a store that keeps nothing across restarts either).
   */
  public static KeyRing ephemeral(InstantSource clock) {
    byte[] material = new byte[GENERATED_KEY_BYTES];
    RANDOM.nextBytes(material);
    try {
      return KeyRing.of(HmacKey.of("k" + ID_DATE.format(clock.instant()), material));
    } finally {
      Arrays.fill(material, (byte) 0);
    }
  }

  /**
   * Loads {@code file} if it exists, else {@link #generate generates} it. Safe against a concurrent
   * generator: whoever loses the creation race loads the winner's key.
   */
  public static KeyRing loadOrGenerate(Path file, InstantSource clock) {
    if (Files.exists(file)) {
      return load(file);
    }
    try {
      return generate(file, clock);
    } catch (KeyException e) {
      if (e.getCause() instanceof FileAlreadyExistsException) {
        return load(file);
      }
      throw e;
    }
  }

  private static void write(Path file, byte[] content) {
    boolean posix = supportsPosix(file);
    Path parent = file.toAbsolutePath().getParent();
    try {
      if (parent != null && !Files.isDirectory(parent)) {
        if (posix) {
          Files.createDirectories(parent, perms("rwx------"));
        } else {
          Files.createDirectories(parent);
        }
      }
    } catch (IOException e) {
      throw new KeyException(
          "hmac key file "
              + file
              + ": cannot create its directory ("
              + e.getClass().getSimpleName()
              + ")",
          e);
    }
    Set<OpenOption> options = Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    FileAttribute<?>[] attrs =
        posix ? new FileAttribute<?>[] {perms("rw-------")} : new FileAttribute<?>[0];
    try {
      try (FileChannel ch = FileChannel.open(file, options, attrs)) {
        ByteBuffer buf = ByteBuffer.wrap(content);
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        ch.force(true);
      } catch (IOException e) {
        if (!(e instanceof FileAlreadyExistsException)) {
          Files.deleteIfExists(file);
        }
        throw e;
      }
    } catch (FileAlreadyExistsException e) {
      throw new KeyException("hmac key file " + file + ": already exists (not overwritten)", e);
    } catch (IOException e) {
      throw new KeyException(
          "hmac key file " + file + ": cannot be created (" + e.getClass().getSimpleName() + ")",
          e);
    }
  }

  private static FileAttribute<Set<PosixFilePermission>> perms(String spec) {
    return PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(spec));
  }

  private static boolean supportsPosix(Path file) {
    return file.getFileSystem().supportedFileAttributeViews().contains("posix");
  }
}
