package dev.tally.core.fingerprint;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.crypto.Mac;

/**
 * The HMAC keys Tally fingerprints with: one active key signs, older keys still match during a
 * rotation grace period. Thread-safe; each thread reuses its own {@link Mac} instances.
 */
public final class KeyRing {
  private static final HexFormat HEX = HexFormat.of();

  private final HmacKey active;
  private final Map<String, HmacKey> byId;
  private final ThreadLocal<Map<String, Mac>> macs =
      ThreadLocal.withInitial(() -> new LinkedHashMap<>(4));

  private KeyRing(HmacKey active, List<HmacKey> older) {
    this.active = active;
    Map<String, HmacKey> m = new LinkedHashMap<>();
    m.put(active.id(), active);
    for (HmacKey k : older) {
      if (m.putIfAbsent(k.id(), k) != null) {
        throw new KeyException("hmac key id " + k.id() + " appears twice in the key ring");
      }
    }
    this.byId = Collections.unmodifiableMap(m);
  }

  /** A ring whose {@code active} key signs and whose {@code older} keys only match. */
  public static KeyRing of(HmacKey active, List<HmacKey> older) {
    Objects.requireNonNull(active, "active");
    return new KeyRing(active, List.copyOf(older));
  }

  /** A ring of one key. */
  public static KeyRing of(HmacKey active) {
    return of(active, List.of());
  }

  public HmacKey active() {
    return active;
  }

  /** The older keys, most recent first. */
  public List<HmacKey> older() {
    List<HmacKey> l = new ArrayList<>(byId.values());
    l.remove(0);
    return l;
  }

  /** The fingerprint of {@code canonical} under the active key. */
  public Fingerprint fingerprint(byte[] canonical) {
    return new Fingerprint(active.id(), mac(active).doFinal(canonical));
  }

  /** The fingerprints of {@code canonical} under every older key (for look-ups during rotation). */
  public List<Fingerprint> olderFingerprints(byte[] canonical) {
    if (byId.size() == 1) {
      return List.of();
    }
    List<Fingerprint> out = new ArrayList<>(byId.size() - 1);
    for (HmacKey k : byId.values()) {
      if (k != active) {
        out.add(new Fingerprint(k.id(), mac(k).doFinal(canonical)));
      }
    }
    return out;
  }

  /** The fingerprint of {@code canonical} under {@code key} (a key of this ring). */
  public Fingerprint fingerprint(HmacKey key, byte[] canonical) {
    return new Fingerprint(key.id(), mac(member(key)).doFinal(canonical));
  }

  /**
   * Whether {@code stored} is the fingerprint of {@code canonical} under the key it names, if that
   * key is still in the ring. Constant-time over the digest.
   */
  public boolean matches(Fingerprint stored, byte[] canonical) {
    HmacKey k = byId.get(stored.keyId());
    if (k == null) {
      return false;
    }
    return MessageDigest.isEqual(mac(k).doFinal(canonical), HEX.parseHex(stored.hex()));
  }

  /**
   * A keyed reference to a secret value: {@code secret:<keyId>:<first 32 hex of HMAC>}. Equal
   * secrets give equal references under one key; the reference reveals nothing of the value.
   * Domain-separated from fingerprints so a reference is never a valid fingerprint.
   */
  public String secretReference(byte[] canonicalValue) {
    return secretReference(active, canonicalValue);
  }

  /** {@link #secretReference(byte[])} under {@code key} (a key of this ring), for matching. */
  public String secretReference(HmacKey key, byte[] canonicalValue) {
    Mac mac = mac(member(key));
    mac.update("tally-secret-ref\0".getBytes(StandardCharsets.US_ASCII));
    byte[] d = mac.doFinal(canonicalValue);
    return "secret:" + key.id() + ':' + HEX.formatHex(d, 0, 16);
  }

  /**
   * A keyed hash of an opaque credential (a bearer token) for actor resolution: {@code tok:<first
   * 32 hex>}. Uses the active key, domain-separated.
   */
  public String tokenHash(byte[] token) {
    return tokenHash(active, token);
  }

  /**
   * {@link #tokenHash(byte[])} under {@code key} (a key of this ring): the actor the same
   * credential had while {@code key} was active, so a retry across a rotation is still matched.
   */
  public String tokenHash(HmacKey key, byte[] token) {
    Mac mac = mac(member(key));
    mac.update("tally-actor-token\0".getBytes(StandardCharsets.US_ASCII));
    byte[] d = mac.doFinal(token);
    return "tok:" + HEX.formatHex(d, 0, 16);
  }

  /** The key of this ring named {@code keyId} (the active one or an older one), if any. */
  public java.util.Optional<HmacKey> key(String keyId) {
    return java.util.Optional.ofNullable(byId.get(keyId));
  }

  /**
   * A keyed tag of {@code data} under {@code key} (a key of this ring), domain-separated by {@code
   * domain} so that no tag is a valid fingerprint, reference or token hash: HMAC-SHA256 over {@code
   * domain ‖ 0x00 ‖ data}.
   */
  public byte[] tag(HmacKey key, String domain, byte[] data) {
    Mac mac = mac(member(key));
    mac.update(domain.getBytes(StandardCharsets.US_ASCII));
    mac.update((byte) 0);
    return mac.doFinal(data);
  }

  private HmacKey member(HmacKey key) {
    if (byId.get(key.id()) != key) {
      throw new KeyException("hmac key " + key.id() + " is not in this key ring");
    }
    return key;
  }

  private Mac mac(HmacKey k) {
    Map<String, Mac> m = macs.get();
    Mac mac = m.get(k.id());
    if (mac == null) {
      try {
        mac = Mac.getInstance("HmacSHA256");
        mac.init(k.spec());
      } catch (GeneralSecurityException e) {
        throw new KeyException("HmacSHA256 unavailable in this JVM", e);
      }
      m.put(k.id(), mac);
    }
    return mac;
  }

  @Override
  public String toString() {
    return "KeyRing[active=" + active.id() + ", keys=" + byId.keySet() + "]";
  }
}
