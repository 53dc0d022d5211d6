package dev.tally.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PostgresTargetTest {
  private static final String SECRET = "s3cr3t-Pa55";
  private static final UnaryOperator<String> NO_ENV = name -> null;

  private static PostgresTarget parse(String url) {
    return PostgresTarget.parse(url, NO_ENV);
  }

  @Test
  void parsesEveryPart() {
    PostgresTarget t = parse("postgres://app:" + SECRET + "@db.example:6543/tally");
    assertThat(t.host()).isEqualTo("db.example");
    assertThat(t.port()).isEqualTo(6543);
    assertThat(t.database()).isEqualTo("tally");
    assertThat(t.user()).isEqualTo("app");
    assertThat(t.password()).isEqualTo(SECRET);
    assertThat(t.hasPassword()).isTrue();
    assertThat(t.sslMode()).isEqualTo("disable");
    assertThat(t.applicationName()).isEqualTo("tally");
  }

  @Test
  void appliesLibpqDefaults() {
    PostgresTarget t = parse("postgresql://db.example");
    assertThat(t.port()).isEqualTo(5432);
    assertThat(t.user()).isEqualTo("postgres");
    assertThat(t.database()).isEqualTo("postgres");
    assertThat(t.hasPassword()).isFalse();
    assertThat(parse("postgres://alice@h").database()).isEqualTo("alice");
  }

  @Test
  void decodesPercentEncodingAndKeepsPlusLiteral() {
    PostgresTarget t = parse("postgres://us%40er:p%3Aa+ss%2F@h/d%20b");
    assertThat(t.user()).isEqualTo("us@er");
    assertThat(t.password()).isEqualTo("p:a+ss/");
    assertThat(t.database()).isEqualTo("d b");
  }

  @Test
  void takesTheLastAtSignSoAnUnencodedAtInThePasswordWorks() {
    PostgresTarget t = parse("postgres://u:pa@ss@h:5/db");
    assertThat(t.password()).isEqualTo("pa@ss");
    assertThat(t.host()).isEqualTo("h");
    assertThat(t.port()).isEqualTo(5);
  }

  @Test
  void parsesBracketedIpv6() {
    PostgresTarget t = parse("postgres://u@[::1]:7000/db");
    assertThat(t.host()).isEqualTo("::1");
    assertThat(t.port()).isEqualTo(7000);
    assertThat(t.describe()).isEqualTo("postgres://u@[::1]:7000/db");
  }

  @Test
  void readsThePasswordFromAFileWithoutItsLineBreak(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("pw");
    Files.writeString(file, SECRET + "\r\n", StandardCharsets.UTF_8);
    PostgresTarget t = parse("postgres://u@h/db?password_file=" + file);
    assertThat(t.password()).isEqualTo(SECRET);
  }

  @Test
  void readsThePasswordFromANamedEnvironmentVariable() {
    PostgresTarget t =
        PostgresTarget.parse("postgres://u@h/db?password_env=DB_PW", Map.of("DB_PW", SECRET)::get);
    assertThat(t.password()).isEqualTo(SECRET);
  }

  @Test
  void fallsBackToPgpassword() {
    PostgresTarget t = PostgresTarget.parse("postgres://u@h/db", Map.of("PGPASSWORD", SECRET)::get);
    assertThat(t.password()).isEqualTo(SECRET);
    PostgresTarget explicit =
        PostgresTarget.parse("postgres://u:other@h/db", Map.of("PGPASSWORD", SECRET)::get);
    assertThat(explicit.password()).isEqualTo("other");
  }

  @Test
  void acceptsSslModeAndApplicationName() {
    PostgresTarget t = parse("postgres://u@h/db?sslmode=verify-full&application_name=tally-a");
    assertThat(t.sslMode()).isEqualTo("verify-full");
    assertThat(t.applicationName()).isEqualTo("tally-a");
  }

  @Test
  void takesThePoolSizeFromTheUrl() {
    assertThat(parse("postgres://u@h/db?pool_size=32").poolSize()).isEqualTo(32);
    assertThat(parse("postgres://u@h/db").poolSize()).isZero();
    assertThat(PostgresStoreOptions.fromUrl("postgres://u:pw@h/db?pool_size=24").poolSize())
        .isEqualTo(24);
    assertThat(PostgresStoreOptions.fromUrl("postgres://u:pw@h/db").poolSize())
        .isEqualTo(PostgresStoreOptions.DEFAULT_POOL_SIZE);
    for (String n : List.of("0", "1001", "x", "", "-1", "99999")) {
      assertThatThrownBy(() -> parse("postgres://u@h/db?pool_size=" + n))
          .as(n)
          .hasMessageContaining("pool_size 1..1000");
    }
  }

  @Test
  void refusesMoreThanOnePasswordSource() {
    assertThatThrownBy(() -> parse("postgres://u:" + SECRET + "@h/db?password_env=X"))
        .hasMessageContaining("at most one password source")
        .hasMessageNotContaining(SECRET);
  }

  @Test
  void namesWhatIsWrongWithoutEchoingThePassword(@TempDir Path dir) {
    List<String> bad =
        List.of(
            "mysql://u:" + SECRET + "@h/db",
            "postgres://u:" + SECRET + "@/db",
            "postgres://u:" + SECRET + "@h:99999/db",
            "postgres://u:" + SECRET + "@h:port/db",
            "postgres://u:" + SECRET + "@[::1/db",
            "postgres://u:" + SECRET + "@h/db?sslmode=sometimes",
            "postgres://u:" + SECRET + "@h/db?unknown=1",
            "postgres://u:" + SECRET + "@h/db?sslmode=require&sslmode=disable",
            "postgres://u:%zz" + SECRET + "@h/db",
            "postgres://u:" + SECRET + "?x@h/db",
            "postgres://:" + SECRET + "@h/db",
            "postgres://u@h/db?password=%" + SECRET,
            "postgres://u@h/db?password_env=MISSING",
            "postgres://u@h/db?password_file=" + dir.resolve("missing"));
    for (String url : bad) {
      assertThatThrownBy(() -> parse(url))
          .as(url)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("store: ")
          .hasMessageContaining("expected: ")
          .hasMessageNotContaining(SECRET);
    }
  }

  @Test
  void errorsNameThePartThatIsWrong() {
    assertThatThrownBy(() -> parse("postgres://h:0/db")).hasMessageContaining("port number");
    assertThatThrownBy(() -> parse("postgres://h/db?sslmode=x")).hasMessageContaining("sslmode");
    assertThatThrownBy(() -> parse("postgres://h/db?timeout=1"))
        .hasMessageContaining("got timeout");
    assertThatThrownBy(() -> parse("postgres://h/db?password_env=NOPE"))
        .hasMessageContaining("password_env");
  }

  @Test
  void toStringAndDescribeNeverShowThePassword() {
    PostgresTarget t = parse("postgres://app:" + SECRET + "@h:1/db");
    assertThat(t.toString()).doesNotContain(SECRET).contains("app:<redacted>@h:1/db");
    assertThat(t.describe()).isEqualTo("postgres://app:<redacted>@h:1/db");
    PostgresStoreOptions options = PostgresStoreOptions.defaults(t);
    assertThat(options.toString()).doesNotContain(SECRET);
  }

  @Test
  void partByPartTargetsAreCheckedToo() {
    assertThatThrownBy(() -> PostgresTarget.of("", 5432, "db", "u", null))
        .hasMessageContaining("host");
    assertThatThrownBy(() -> PostgresTarget.of("h", 0, "db", "u", null))
        .hasMessageContaining("port: 0");
    assertThat(PostgresTarget.of("h", 5432, "db", "u", SECRET).toString()).doesNotContain(SECRET);
  }
}
