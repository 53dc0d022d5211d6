package dev.tally.core.actor;

import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSelector;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.proc.SecurityContext;
import java.io.IOException;
import java.net.URI;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A JWK Set fetched from a URL, never on the request path: once at start (blocking, bounded), then
 * every {@code refresh} and, when a token names a key id the set lacks, at most every {@link
 * JwtConfig#MIN_REFETCH}, on one daemon thread. Until a fetch succeeded no token verifies (the call
 * is refused, never let through unverified). A failed refresh keeps the last good set.
 */
final class RefreshingJwks implements JWKSource<SecurityContext> {
  private static final System.Logger LOG = System.getLogger(RefreshingJwks.class.getName());
  static final int TIMEOUT_MILLIS = 5_000;
  static final int MAX_BYTES = 512 * 1024;

  private final URI url;
  private final Clock clock;
  private final ScheduledExecutorService thread;
  private final AtomicBoolean fetching = new AtomicBoolean();
  private volatile JWKSet keys = new JWKSet();
  private volatile Instant lastFetch = Instant.MIN;

  private RefreshingJwks(URI url, Clock clock) {
    this.url = url;
    this.clock = clock;
    this.thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "tally-jwks");
              t.setDaemon(true);
              return t;
            });
  }

  static RefreshingJwks start(URI url, Duration refresh, Clock clock) {
    RefreshingJwks k = new RefreshingJwks(url, clock);
    k.fetch();
    long every = Math.max(JwtConfig.MIN_REFETCH.toMillis(), refresh.toMillis());
    k.thread.scheduleWithFixedDelay(k::fetch, every, every, TimeUnit.MILLISECONDS);
    return k;
  }

  @Override
  public List<JWK> get(JWKSelector selector, SecurityContext context) {
    List<JWK> found = selector.select(keys);
    if (found.isEmpty()
        && Duration.between(lastFetch, clock.instant()).compareTo(JwtConfig.MIN_REFETCH) >= 0
        && fetching.compareAndSet(false, true)) {
      thread.execute(
          () -> {
            try {
              fetch();
            } finally {
              fetching.set(false);
            }
          });
    }
    return found;
  }

  private void fetch() {
    lastFetch = clock.instant();
    try {
      keys = JWKSet.load(url.toURL(), TIMEOUT_MILLIS, TIMEOUT_MILLIS, MAX_BYTES);
    } catch (IOException | ParseException | RuntimeException e) {
      LOG.log(
          System.Logger.Level.WARNING,
          "actor.jwt.jwksUrl: "
              + shown(url)
              + " could not be fetched ("
              + e.getClass().getSimpleName()
              + "); keeping the last good key set of "
              + keys.size()
              + " keys");
    }
  }

  /** The URL without user info, query or fragment (they may hold credentials). */
  static String shown(URI u) {
    return u.getScheme()
        + "://"
        + u.getHost()
        + (u.getPort() >= 0 ? ":" + u.getPort() : "")
        + (u.getRawPath() == null ? "" : u.getRawPath());
  }

  @Override
  public String toString() {
    return "RefreshingJwks[" + shown(url) + "]";
  }
}
