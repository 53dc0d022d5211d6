package dev.tally.filter;

import dev.tally.core.fingerprint.HmacKey;
import dev.tally.core.fingerprint.KeyRing;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Base64;
import java.util.function.Function;

/** Loads the HMAC key named by the settings; errors name the key setting, never the material. */
final class Keys {
  private Keys() {}

  static KeyRing load(FilterSettings s, Function<String, String> env) {
    String material;
    String source;
    if (s.keyFile() != null) {
      source = FilterSettings.KEY_KEYS_FILE + ": " + s.keyFile();
      try {
        material = Files.readString(s.keyFile(), StandardCharsets.US_ASCII).trim();
      } catch (IOException e) {
        throw new IllegalArgumentException(source + " (expected: a readable file)");
      }
    } else {
      source = FilterSettings.KEY_KEYS_ENV + ": " + s.keyEnv();
      material = env.apply(s.keyEnv());
      if (material == null || material.isBlank()) {
        throw new IllegalArgumentException(
            source
                + " is not set (expected: a Base64 HMAC key of at least "
                + HmacKey.MIN_BYTES
                + " bytes in that environment variable, or "
                + FilterSettings.KEY_KEYS_FILE
                + ")");
      }
      material = material.trim();
    }
    byte[] raw;
    try {
      raw = Base64.getDecoder().decode(material);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(source + " (expected: Base64 key material)");
    }
    try {
      return KeyRing.of(HmacKey.of(s.keyId(), raw));
    } finally {
      java.util.Arrays.fill(raw, (byte) 0);
    }
  }
}
