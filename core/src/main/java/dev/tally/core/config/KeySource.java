package dev.tally.core.config;

import dev.tally.core.fingerprint.KeyFiles;
import dev.tally.core.fingerprint.KeyRing;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.function.Consumer;

/**
 * Where an adapter's fingerprint keys come from (config/README.md, "hmac"): the configured key
 * file; else, on the journal store, a key generated once beside it; on the memory store, a key held
 * in memory only; the postgres store requires a key file, since its replicas must share one key (a
 * key per replica would make a retry that reaches another replica a new action).
 */
public final class KeySource {
  /** The problem reported for a postgres store without {@code hmac.keyFile}. */
  public static final String SHARED_KEY_REQUIRED =
      "hmac.keyFile: missing while store is postgres (expected: one key file shared by every"
          + " replica, e.g. mounted from a Kubernetes secret; flag --hmac-key-file)";

  private KeySource() {}

  /** Whether {@code config} has no key file although its store needs a shared one. */
  public static boolean lacksSharedKey(TallyConfig config) {
    return config.store().kind() == StoreConfig.Kind.POSTGRES && config.hmac().keyFile() == null;
  }

  /**
   * Loads or makes the key ring for {@code config}; {@code log} gets one line when no key file was
   * configured (never the key).
   *
   * @throws ConfigException naming {@code hmac.keyFile} for a postgres store without one
   */
  public static KeyRing resolve(TallyConfig config, InstantSource clock, Consumer<String> log) {
    Path file = config.hmac().keyFile();
    if (file != null) {
      return KeyFiles.load(file);
    }
    switch (config.store().kind()) {
      case POSTGRES -> throw new ConfigException("configuration", List.of(SHARED_KEY_REQUIRED));
      case MEMORY -> {
        log.accept(
            "tally: no --hmac-key-file given; using an HMAC key generated in memory (the memory"
                + " store keeps nothing across restarts, so neither does its key; nothing"
                + " written)");
        return KeyFiles.ephemeral(clock);
      }
      default -> {
        Path generated = config.store().generatedKeyFile();
        boolean existed = Files.exists(generated);
        KeyRing ring = KeyFiles.loadOrGenerate(generated, clock);
        log.accept(
            existed
                ? "tally: using the HMAC key kept in " + generated
                : "tally: no --hmac-key-file given; generated an HMAC key in "
                    + generated
                    + " (kept beside the store, never printed)");
        return ring;
      }
    }
  }
}
