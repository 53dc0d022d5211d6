package dev.tally.core.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import dev.tally.core.actor.ActorConfig;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * The Tally configuration file, shared by the sidecar and the servlet filter: validated once at
 * start, immutable afterwards. {@code config/README.md} documents every key with its default, its
 * environment variable and its Helm key. Precedence: flag &gt; environment &gt; file &gt; default
 * ({@link ConfigOverrides}).
 *
 * <p>Every problem is collected and reported at once in a {@link ConfigException} naming the key
 * path, the value (or {@code <redacted>}) and what was expected; unknown keys are problems too. The
 * adapter sections are kept raw ({@link AdapterSections}) for the adapters to validate.
 *
 * @param version the file format version (only {@code 1} exists)
 * @param tools the tool contracts
 * @param actor how the caller is identified
 * @param idempotency where explicit idempotency keys are read
 * @param intentScope where explicit intent scopes are read
 * @param limits input and result size limits
 * @param lease the lease of dispatched executions
 * @param hmac where the fingerprint keys come from
 * @param store which execution store
 * @param storage how the embedded stores and the audit journals are tuned and placed
 * @param adapters the raw adapter sections
 * @param writes who may use write tools, and the operator's switch
 * @param confirmation how calls needing confirmation wait
 */
public record TallyConfig(
    int version,
    ToolsConfig tools,
    ActorConfig actor,
    IdempotencyConfig idempotency,
    IntentScopeConfig intentScope,
    LimitsConfig limits,
    LeaseConfig lease,
    HmacConfig hmac,
    StoreConfig store,
    StorageConfig storage,
    AdapterSections adapters,
    WritesConfig writes,
    ConfirmationConfig confirmation) {

  public static final int VERSION = 1;

  /** The core top-level keys; {@link AdapterSections#NAMES} are allowed as well. */
  public static final List<String> CORE_KEYS =
      List.of(
          "version",
          "tools",
          "actor",
          "idempotency",
          "intentScope",
          "limits",
          "lease",
          "hmac",
          "store",
          "journal",
          "memory",
          "audit",
          "writes",
          "confirmation");

  /** Larger configuration files are refused. */
  public static final int MAX_FILE_BYTES = 1 << 20;

  private static final ObjectMapper YAML = yamlMapper();
  private static final Pattern DUPLICATE = Pattern.compile("Duplicate field '([^']{1,128})'");

  public TallyConfig {
    Objects.requireNonNull(tools, "tools");
    Objects.requireNonNull(actor, "actor");
    Objects.requireNonNull(idempotency, "idempotency");
    Objects.requireNonNull(intentScope, "intentScope");
    Objects.requireNonNull(limits, "limits");
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(hmac, "hmac");
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(storage, "storage");
    Objects.requireNonNull(adapters, "adapters");
  }

  /** Every key at its default: no file, no overrides. */
  public static TallyConfig defaults() {
    return new TallyConfig(
        VERSION,
        ToolsConfig.DEFAULT,
        ActorConfig.DEFAULT,
        IdempotencyConfig.DEFAULT,
        IntentScopeConfig.DEFAULT,
        LimitsConfig.DEFAULT,
        LeaseConfig.DEFAULT,
        HmacConfig.DEFAULT,
        StoreConfig.DEFAULT,
        StorageConfig.DEFAULT,
        AdapterSections.NONE,
        WritesConfig.DEFAULT,
        ConfirmationConfig.DEFAULT);
  }

  /** Loads {@code file} (or only defaults when {@code null}) with environment overrides. */
  public static TallyConfig load(Path file, Map<String, String> env) {
    return load(file, ConfigOverrides.ofEnv(env));
  }

  /**
   * Loads {@code file} (or only defaults and overrides when {@code null}).
   *
   * @throws ConfigException naming the file and every problem
   */
  public static TallyConfig load(Path file, ConfigOverrides overrides) {
    if (file == null) {
      return parse("", "configuration", overrides);
    }
    String source = "config file " + file;
    try {
      if (Files.size(file) > MAX_FILE_BYTES) {
        throw new ConfigException(
            source, List.of("larger than " + MAX_FILE_BYTES + " bytes (expected: a config file)"));
      }
      String text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(Files.readAllBytes(file)))
              .toString();
      return parse(text, source, overrides);
    } catch (NoSuchFileException e) {
      throw new ConfigException(source, List.of("not found"));
    } catch (CharacterCodingException e) {
      throw new ConfigException(source, List.of("not UTF-8 text"));
    } catch (IOException e) {
      throw new ConfigException(source, List.of("cannot be read: " + e.getClass().getSimpleName()));
    }
  }

  /** Parses YAML text with environment overrides. */
  public static TallyConfig parse(String yaml, Map<String, String> env) {
    return parse(yaml, "configuration", ConfigOverrides.ofEnv(env));
  }

  /**
   * Parses YAML text.
   *
   * @param source what the text is, for the exception message ({@code config file /x.yaml})
   * @throws ConfigException naming {@code source} and every problem
   */
  public static TallyConfig parse(String yaml, String source, ConfigOverrides overrides) {
    ObjectNode root = readTree(yaml, source);
    Problems problems = new Problems();
    Overlay.apply(root, overrides, problems);
    ConfigSection r = ConfigSection.root(root, problems);
    List<String> allowed = new ArrayList<>(CORE_KEYS);
    allowed.addAll(AdapterSections.NAMES);
    r.allowKeys(allowed);

    if (r.has("version") && !r.raw("version").asText().strip().equals(String.valueOf(VERSION))) {
      r.problem("version", r.raw("version"), VERSION + ", the only format version");
    }
    ToolsConfig tools = ToolsSection.read(r.section("tools"));
    ActorConfig actor = CoreSections.actor(r.section("actor"));
    IdempotencyConfig idempotency = CoreSections.idempotency(r.section("idempotency"));
    IntentScopeConfig intentScope = CoreSections.intentScope(r.section("intentScope"), idempotency);
    LimitsConfig limits = CoreSections.limits(r.section("limits"));
    LeaseConfig lease = CoreSections.lease(r.section("lease"));
    HmacConfig hmac = CoreSections.hmac(r.section("hmac"));
    StoreConfig store = CoreSections.store(r);
    StorageConfig storage =
        CoreSections.storage(r.section("journal"), r.section("memory"), r.section("audit"));
    WritesConfig writes = ControlSections.writes(r.section("writes"));
    ConfirmationConfig confirmation = ControlSections.confirmation(r.section("confirmation"));
    Map<String, JsonNode> adapters = new LinkedHashMap<>();
    for (String name : AdapterSections.NAMES) {
      if (r.has(name)) {
        JsonNode n = r.raw(name);
        if (n.isObject()) {
          adapters.put(name, n);
        } else {
          r.problem(name, n, "a mapping of keys to values");
        }
      }
    }
    r.throwIfInvalid(source);
    return new TallyConfig(
        VERSION,
        tools,
        actor,
        idempotency,
        intentScope,
        limits,
        lease,
        hmac,
        store,
        storage,
        AdapterSections.of(adapters),
        writes,
        confirmation);
  }

  private static ObjectNode readTree(String yaml, String source) {
    JsonNode tree;
    try {
      tree = YAML.readTree(yaml);
    } catch (JsonProcessingException e) {
      throw new ConfigException(source, List.of(describe(e)));
    }
    if (tree == null || tree.isMissingNode() || tree.isNull()) {
      return JsonNodeFactory.instance.objectNode();
    }
    if (!tree.isObject()) {
      throw new ConfigException(
          source, List.of("the document is " + Problems.show("", tree) + " (expected: a mapping)"));
    }
    return (ObjectNode) tree;
  }

  /** A YAML syntax error as position and problem, never the offending text or a stack trace. */
  private static String describe(JsonProcessingException e) {
    int line = -1;
    int column = -1;
    String what = "a syntax error";
    if (e.getCause() instanceof MarkedYAMLException m) {
      if (m.getProblem() != null) {
        what = m.getProblem();
      }
      if (m.getProblemMark() != null) {
        line = m.getProblemMark().getLine() + 1;
        column = m.getProblemMark().getColumn() + 1;
      }
    } else if (e.getOriginalMessage() != null) {
      Matcher m = DUPLICATE.matcher(e.getOriginalMessage());
      if (m.lookingAt()) {
        what = "key " + m.group(1) + " appears twice in one mapping";
      }
    }
    JsonLocation at = e.getLocation();
    if (line < 1 && at != null) {
      line = at.getLineNr();
      column = at.getColumnNr();
    }
    String where =
        line < 1 ? "invalid YAML" : "invalid YAML at line " + line + ", column " + column;
    return where + ": " + Problems.sanitize(what);
  }

  private static ObjectMapper yamlMapper() {
    LoaderOptions loader = new LoaderOptions();
    loader.setMaxAliasesForCollections(20);
    loader.setAllowDuplicateKeys(false);
    loader.setCodePointLimit(MAX_FILE_BYTES);
    YAMLFactory factory = YAMLFactory.builder().loaderOptions(loader).build();
    return YAMLMapper.builder(factory)
        .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
        .enable(YAMLParser.Feature.EMPTY_STRING_AS_NULL)
        .build();
  }
}
