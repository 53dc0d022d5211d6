package dev.tally.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.core.config.ConfigException;
import dev.tally.core.config.LimitsConfig;
import dev.tally.core.config.StoreConfig;
import dev.tally.core.config.TallyConfig;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FilterSettingsTest {
  @Test
  void defaultsAreDocumented() {
    FilterSettings s = FilterSettings.defaults();
    assertThat(s.maxRequestBytes()).isEqualTo(LimitsConfig.DEFAULT_MAX_REQUEST_BYTES);
    assertThat(s.maxResponseBytes()).isEqualTo(FilterSettings.DEFAULT_MAX_RESPONSE_BYTES);
    assertThat(s.framing()).isEqualTo(FilterSettings.Framing.AUTO);
    assertThat(s.target()).isEqualTo(FilterSettings.DEFAULT_TARGET);
  }

  @Test
  void theFilterSectionOfTheSharedFileIsRead() {
    TallyConfig c =
        TallyConfig.parse(
            "limits:\n  maxRequestBytes: 8KiB\nfilter:\n  framing: json\n  target: billing\n"
                + "  maxResponseBytes: 64KiB\n",
            Map.of());

    FilterSettings s = FilterSettings.from(c);

    assertThat(s.maxRequestBytes()).isEqualTo(8192);
    assertThat(s.maxResponseBytes()).isEqualTo(65536);
    assertThat(s.framing()).isEqualTo(FilterSettings.Framing.JSON);
    assertThat(s.target()).isEqualTo("billing");
  }

  @Test
  void badValuesAndUnknownKeysAreNamedWithTheSharedMessages() {
    TallyConfig c =
        TallyConfig.parse(
            "filter:\n  framing: xml\n  maxResponseBytes: lots\n  tagret: x\n", Map.of());

    assertThatThrownBy(() -> FilterSettings.from(c))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("filter.framing")
        .hasMessageContaining("filter.maxResponseBytes")
        .hasMessageContaining("filter.tagret");
  }

  @Test
  void initParamsAreKeyPathsOverTheFile(@TempDir Path dir) throws Exception {
    Path yaml = dir.resolve("tally.yaml");
    Files.writeString(yaml, "store: journal:" + dir.resolve("j") + "\nfilter:\n  framing: json\n");
    Map<String, String> params = new LinkedHashMap<>();
    params.put(TallyFilter.CONFIG_PARAM, yaml.toString());
    params.put("store", "memory");
    params.put("filter.framing", "sse");

    TallyConfig c = TallyFilter.load(filterConfig(params));

    assertThat(c.store().kind()).isEqualTo(StoreConfig.Kind.MEMORY);
    assertThat(FilterSettings.from(c).framing()).isEqualTo(FilterSettings.Framing.SSE);
  }

  @Test
  void aBadInitParamFailsInitNamingTheKey() {
    TallyFilter f = new TallyFilter();
    assertThatThrownBy(() -> f.init(filterConfig(Map.of("store", "redis://x"))))
        .hasMessageContaining("store");
  }

  static FilterConfig filterConfig(Map<String, String> params) {
    return new FilterConfig() {
      @Override
      public String getFilterName() {
        return "tally";
      }

      @Override
      public ServletContext getServletContext() {
        return null;
      }

      @Override
      public String getInitParameter(String name) {
        return params.get(name);
      }

      @Override
      public Enumeration<String> getInitParameterNames() {
        return Collections.enumeration(params.keySet());
      }
    };
  }
}
