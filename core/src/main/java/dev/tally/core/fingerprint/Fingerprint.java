package dev.tally.core.fingerprint;

import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Objects;

/**
 * An HMAC-SHA256 fingerprint of a canonical action record, rendered {@code
 * hmac-sha256:<keyId>:<hex>}. {@link #equals} is constant-time over the digest.
 */
public final class Fingerprint {
  public static final String SCHEME = "hmac-sha256";
  private static final HexFormat HEX = HexFormat.of();

  private final String keyId;
  private final byte[] digest;

  Fingerprint(String keyId, byte[] digest) {
    this.keyId = keyId;
    this.digest = digest;
  }

  /** Parses a rendered fingerprint; throws {@link IllegalArgumentException} if malformed. */
  public static Fingerprint parse(String rendered) {
    Objects.requireNonNull(rendered, "rendered");
    int a = rendered.indexOf(':');
    int b = rendered.lastIndexOf(':');
    if (a < 0 || a == b || !rendered.substring(0, a).equals(SCHEME)) {
      throw new IllegalArgumentException("fingerprint: expected hmac-sha256:<keyId>:<hex>");
    }
    String hex = rendered.substring(b + 1);
    if (hex.length() != 64) {
      throw new IllegalArgumentException("fingerprint: expected 64 hex digits");
    }
    try {
      return new Fingerprint(rendered.substring(a + 1, b), HEX.parseHex(hex));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("fingerprint: expected 64 hex digits", e);
    }
  }

  public String keyId() {
    return keyId;
  }

  /** The digest as lowercase hex. */
  public String hex() {
    return HEX.formatHex(digest);
  }

  /** {@code hmac-sha256:<keyId>:<hex>}. */
  public String render() {
    return SCHEME + ':' + keyId + ':' + hex();
  }

  /** Constant-time comparison of key id and digest. */
  public boolean matches(Fingerprint other) {
    return other != null
        && keyId.equals(other.keyId)
        && MessageDigest.isEqual(digest, other.digest);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Fingerprint f && matches(f);
  }

  @Override
  public int hashCode() {
    return keyId.hashCode() * 31
        + (digest[0] << 24 | (digest[1] & 0xff) << 16 | (digest[2] & 0xff) << 8 | digest[3] & 0xff);
  }

  @Override
  public String toString() {
    return render();
  }
}
