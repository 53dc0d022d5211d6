package dev.tally.core.config;

import java.nio.file.Path;

/**
 * Where the fingerprint keys come from.
 *
 * @param keyFile the key file ({@code KeyFiles} format), or {@code null}: then {@code tally serve}
 *     generates one beside the store ({@link StoreConfig#generatedKeyFile()})
 */
public record HmacConfig(Path keyFile) {
  public static final HmacConfig DEFAULT = new HmacConfig(null);
}
